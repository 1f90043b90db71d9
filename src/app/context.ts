/**
 * The application layer's one shared contract (src/app/): every use case (open a store, run an
 * analysis, save/list runs, crawl, search, page detail, export, reset) is a function
 * `(input, context) => Promise<plain data>`. The CLI prints that data; the HTTP server sends it
 * as JSON. Neither adds logic of its own, so the two faces can never disagree.
 */

/** One progress report of a long-running use case (a solver iteration, a crawl checkpoint, an export). */
export interface ProgressEvent {
  /** What is running, e.g. 'load', 'pagerank', 'crawl', 'export'. */
  readonly phase: string;
  /** One human-readable line, already free of control characters. */
  readonly message: string;
  /** Units done so far and expected in all, when known. */
  readonly done?: number;
  readonly total?: number;
  /** Structured detail for machines (residual per iteration, crawl counters, ...): JSON-safe values only. */
  readonly data?: Readonly<Record<string, unknown>>;
}

/** What every use case may be given by its caller. */
export interface AppContext {
  /** Called with each progress event; must not throw. */
  readonly onProgress?: (event: ProgressEvent) => void;
  /** Aborts the use case; it then rejects with an AbortError (or stops a crawl at a checkpoint). */
  readonly signal?: AbortSignal;
  /** Called with a warning the user should see even when progress is not shown (one line); must not throw. */
  readonly onNotice?: (message: string) => void;
}

/** A context that reports nothing and is never aborted. */
export const quietContext: AppContext = {};

/** Throws the signal's reason when the caller has aborted. */
export function throwIfAborted(context: AppContext): void {
  context.signal?.throwIfAborted();
}
