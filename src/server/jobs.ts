/**
 * Long work started over HTTP (a ranking, an import) as jobs: an id to poll, progress events to
 * watch (Server-Sent Events), a result or an error at the end, and cancellation.
 */
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import type { ProgressEvent } from '../app/context.js';
import type { ErrorBody } from './http-errors.js';

export type JobKind = 'rank' | 'import';
export type JobState = 'running' | 'done' | 'failed' | 'cancelled';

/** A job as the API shows it. */
export interface JobJson {
  id: string;
  kind: JobKind;
  state: JobState;
  startedAt: number;
  finishedAt: number | null;
  request: Record<string, unknown>;
  progress: ProgressEvent | null;
  /** [iteration, residual] of each solver iteration so far: the convergence curve. */
  residuals: Array<[number, number]>;
  result: unknown;
  error: ErrorBody['error'] | null;
}

/** What a job's runner is given: report progress, learn of cancellation. */
export interface JobControl {
  progress(event: ProgressEvent): void;
  readonly signal: AbortSignal;
}

/** Jobs kept (finished ones beyond this are forgotten, oldest first). */
const KEEP = 100;
/** Points of a convergence curve kept: beyond, every other one is dropped (the curve keeps its shape). */
const MAX_RESIDUALS = 10_000;

export class Job {
  readonly events = new EventEmitter();
  readonly controller = new AbortController();
  readonly json: JobJson;

  constructor(kind: JobKind, request: Record<string, unknown>) {
    this.json = {
      id: randomUUID(),
      kind,
      state: 'running',
      startedAt: Date.now(),
      finishedAt: null,
      request,
      progress: null,
      residuals: [],
      result: null,
      error: null,
    };
    this.events.setMaxListeners(0);
  }

  progress(event: ProgressEvent): void {
    if (this.json.state !== 'running') return;
    this.json.progress = event;
    const iteration = event.data?.['iteration'];
    const residual = event.data?.['residual'];
    if (typeof iteration === 'number' && typeof residual === 'number' && Number.isFinite(residual)) {
      // A repeated iteration replaces its point (Gauss-Seidel reports its last sweep, then the measured residual there).
      const last = this.json.residuals[this.json.residuals.length - 1];
      if (last !== undefined && last[0] === iteration) last[1] = residual;
      else this.json.residuals.push([iteration, residual]);
      if (this.json.residuals.length > MAX_RESIDUALS) this.json.residuals = this.json.residuals.filter((_, i) => i % 2 === 1);
    }
    this.events.emit('progress', event);
  }

  finish(state: Exclude<JobState, 'running'>, outcome: { result?: unknown; error?: ErrorBody['error'] }): void {
    if (this.json.state !== 'running') return;
    this.json.state = state;
    this.json.finishedAt = Date.now();
    this.json.result = outcome.result ?? null;
    this.json.error = outcome.error ?? null;
    this.events.emit('end', this.json);
  }
}

export class JobList {
  private readonly jobs = new Map<string, Job>();

  /** Starts `run` as a job; its result or error ends the job. */
  start(kind: JobKind, request: Record<string, unknown>, run: (control: JobControl) => Promise<unknown>, describeError: (error: unknown) => ErrorBody['error']): Job {
    const job = new Job(kind, request);
    this.jobs.set(job.json.id, job);
    this.forgetOld();
    const control: JobControl = { progress: (event) => job.progress(event), signal: job.controller.signal };
    run(control).then(
      (result) => job.finish('done', { result }),
      (error: unknown) => {
        if (job.controller.signal.aborted) job.finish('cancelled', { error: { code: 'conflict', message: 'cancelled' } });
        else job.finish('failed', { error: describeError(error) });
      },
    );
    return job;
  }

  get(id: string): Job | undefined {
    return this.jobs.get(id);
  }

  list(): JobJson[] {
    return [...this.jobs.values()].map((j) => j.json).reverse();
  }

  cancel(id: string): Job | undefined {
    const job = this.jobs.get(id);
    if (job !== undefined && job.json.state === 'running') {
      job.controller.abort();
      job.finish('cancelled', { error: { code: 'conflict', message: 'cancelled' } });
    }
    return job;
  }

  cancelAll(): void {
    for (const job of this.jobs.values()) if (job.json.state === 'running') this.cancel(job.json.id);
  }

  private forgetOld(): void {
    if (this.jobs.size <= KEEP) return;
    for (const [id, job] of this.jobs) {
      if (this.jobs.size <= KEEP) break;
      if (job.json.state !== 'running') this.jobs.delete(id);
    }
  }
}
