/**
 * Live events from the server (server-sent events: `/api/crawl/events`, `/api/jobs/ID/events`).
 * A view opens a stream with handlers per event name and closes it when left; the browser's
 * EventSource reconnects by itself after a dropped connection.
 */

export type Handlers = Record<string, (data: unknown) => void>;

/** Opens `url` as an event stream; the returned function closes it. */
export function listen(url: string, handlers: Handlers, onError?: () => void): () => void {
  const source = new EventSource(url);
  for (const [name, handler] of Object.entries(handlers)) {
    source.addEventListener(name, (event) => {
      let data: unknown;
      try {
        data = JSON.parse((event as MessageEvent<string>).data);
      } catch {
        return;
      }
      handler(data);
    });
  }
  if (onError !== undefined) source.addEventListener('error', onError);
  return () => source.close();
}
