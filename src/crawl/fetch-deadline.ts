/**
 * A fetch's deadline (--timeout: the whole page, headers and body), handed to undici as the
 * request's `signal`. undici asks a signal only for `aborted`, `reason` and one 'abort' listener
 * (added when the request is made, removed when it ends), so this object is all it needs: an
 * AbortController is an EventTarget with its own AbortSignal, and built for every fetch it cost
 * about 3% of the crawler's thread (BENCHMARKS.md, issue 38). The timer aborts the fetch once
 * `ms` have passed unless clear() came first.
 */
export class FetchDeadline {
  aborted = false;
  reason: Error | undefined = undefined;
  private listeners: Array<() => void> = [];
  private readonly timer: NodeJS.Timeout;

  constructor(ms: number) {
    this.timer = setTimeout(() => this.abort(), ms);
  }

  /** What undici calls with 'abort'. */
  addEventListener(type: string, listener: () => void): void {
    if (type === 'abort') this.listeners.push(listener);
  }

  removeEventListener(type: string, listener: () => void): void {
    if (type !== 'abort') return;
    const at = this.listeners.indexOf(listener);
    if (at >= 0) this.listeners.splice(at, 1);
  }

  /** The fetch is over: no abort after it. */
  clear(): void {
    clearTimeout(this.timer);
    this.listeners.length = 0;
  }

  /** The deadline passed: the fetch is aborted, as AbortController.abort() would. */
  private abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = new DOMException('This operation was aborted', 'AbortError');
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener();
  }
}
