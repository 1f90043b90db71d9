/**
 * A rank job's thread: the solvers are synchronous, so they run here, off the server's event loop,
 * on the worker's own connection to the store; progress (one event per iteration) and the result
 * go back as messages.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { withGraph } from '../app/graph-source.js';
import { type RankOptions, parseRankOptions, rank } from '../app/rank.js';

export interface RankWorkerInput {
  db: string;
  options: RankOptions;
}

export type RankWorkerMessage =
  | { type: 'progress'; event: { phase: string; message: string; done?: number; total?: number; data?: Record<string, unknown> } }
  | { type: 'done'; result: unknown }
  | { type: 'failed'; error: { name: string; message: string; option?: string } };

const input = workerData as RankWorkerInput;
const post = (message: RankWorkerMessage): void => parentPort!.postMessage(message);

try {
  const request = parseRankOptions(input.options);
  const result = await withGraph({ db: input.db, links: input.options.links }, (source) =>
    rank(source, request, {
      onProgress: (event) => post({ type: 'progress', event: { ...event, ...(event.data === undefined ? {} : { data: { ...event.data } }) } }),
    }),
  );
  post({ type: 'done', result });
} catch (error) {
  const e = error as Error & { option?: string };
  post({ type: 'failed', error: { name: e.name, message: e.message, ...(e.option === undefined ? {} : { option: e.option }) } });
}
