/** A minimal Server-Sent Events reader over fetch, for the tests (what a browser's EventSource does). */

export interface SseEvent {
  event: string;
  data: string;
}

export interface SseStream {
  /** Events received so far. */
  events: SseEvent[];
  /** Resolves when `predicate` holds for an event (checked on every new one), or rejects after `timeoutMs`. */
  until(predicate: (event: SseEvent) => boolean, timeoutMs: number): Promise<SseEvent>;
  close(): void;
  /** The response's status and content type. */
  status: number;
  contentType: string;
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { Accept: 'text/event-stream', ...headers }, signal: controller.signal });
  const events: SseEvent[] = [];
  const waiters: Array<{ predicate: (e: SseEvent) => boolean; resolve: (e: SseEvent) => void }> = [];
  const push = (event: SseEvent): void => {
    events.push(event);
    for (const waiter of [...waiters]) {
      if (waiter.predicate(event)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(event);
      }
    }
  };
  void (async () => {
    if (response.body === null) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
          }
          if (data.length > 0) push({ event, data: data.join('\n') });
        }
      }
    } catch {
      // aborted
    }
  })();
  return {
    events,
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    until: (predicate, timeoutMs) => {
      const seen = events.find(predicate);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching event in ${timeoutMs} ms (got ${events.length})`)), timeoutMs);
        waiters.push({
          predicate,
          resolve: (e) => {
            clearTimeout(timer);
            resolve(e);
          },
        });
      });
    },
    close: () => controller.abort(),
  };
}
