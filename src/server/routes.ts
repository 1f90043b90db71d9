/**
 * The JSON API (docs/http-api.md) and the GUI's pages, thin over the application layer (src/app):
 * each route checks its parameters, calls one use case and sends its plain data as JSON, so the
 * API answers what the CLI's --json prints for the same store.
 */
import { auditChecksOption, auditStore } from '../app/audit.js';
import { PAGE_TABLE_COLUMNS, type PageTableColumn, loadPagesTable, pageTableColumn, queryPagesTable } from '../app/pages-table.js';
import { stringify } from 'csv-stringify/sync';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Worker } from 'node:worker_threads';
import { Hono, type Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { CrawlCliOptions } from '../app/crawl.js';
import { importGraph, resetStore } from '../app/data.js';
import { crawlTree, directoryTree, hostGraphView, neighbourhood, type StoreGraph } from '../app/graph-views.js';
import { siteGraph } from '../graph/hosts.js';
import { distances } from '../app/distances.js';
import { SEARCH_BY, SEARCH_MODES, compareRuns, deleteRun, getRun, listRuns, pageDetail, pagesByStatus, runScoresTsv, search, topPages } from '../app/pages.js';
import { type RankOptions, parseRankOptions } from '../app/rank.js';
import { stats } from '../app/stats.js';
import { changes } from '../app/changes.js';
import { degrees, levels, levelsAnalysis, scc, sccAnalysis } from '../app/structure.js';
import { choiceOption, integerOption, linkFilterOption } from '../app/values.js';
import { OptionError } from '../errors.js';
import type { Store } from '../store/store.js';
import type { CrawlWatch } from './crawl-watch.js';
import type { GraphCache } from './graph-cache.js';
import { HttpError, toErrorResponse } from './http-errors.js';
import type { JobList } from './jobs.js';
import type { RankWorkerInput, RankWorkerMessage } from './rank-worker.js';
import { guard, serveGui } from './guard.js';
import { flag, integer, query, required } from './parameters.js';
import type { StaticFiles } from './static-files.js';

export interface ServerContext {
  store: Store;
  /** The --db argument, to open more connections (rank workers, the crawl). */
  db: string;
  version: string;
  token: string;
  /** Listening beyond loopback: every request needs the token (header, cookie or ?token=). */
  remote: boolean;
  /** Host header values accepted (set once listening, when the port is known). */
  allowedHosts: Set<string>;
  cache: GraphCache;
  jobs: JobList;
  crawl: CrawlWatch;
  files: StaticFiles;
  log: (text: string) => void;
}

/** JSON bodies larger than this are refused (uploads of graph files go as raw bodies). */
const MAX_JSON_BYTES = 1 << 20;
/** Progress events of a job are sent in batches this often. */
const PROGRESS_MS = 50;
/** Largest graph file upload. */
const MAX_UPLOAD_BYTES = 2 * 1024 ** 3;

/** The `links` parameter of an analysis (values.ts linkFilterOption), checked: a 400 names it. */
function links(c: Context): string | undefined {
  const text = query(c, 'links');
  if (text !== undefined) linkFilterOption('links', text);
  return text;
}

function runId(c: Context, name = 'id', value = c.req.param(name)): number {
  return integerOption(name, value, 0, 1);
}

async function jsonBody(c: Context): Promise<Record<string, unknown>> {
  const length = Number(c.req.header('content-length') ?? '0');
  if (length > MAX_JSON_BYTES) throw new HttpError(413, 'too-large', `body: larger than ${MAX_JSON_BYTES} bytes`);
  const text = await c.req.text();
  if (text.length > MAX_JSON_BYTES) throw new HttpError(413, 'too-large', `body: larger than ${MAX_JSON_BYTES} bytes`);
  if (text.trim() === '') return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'bad-request', 'body: not a JSON document', 'body');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpError(400, 'bad-request', 'body: expected a JSON object', 'body');
  return body as Record<string, unknown>;
}

type Kind = 'value' | 'list' | 'flag';

/**
 * A JSON body as the CLI's options (strings, lists of strings, flags) under the same names, so
 * the application layer checks them exactly as it checks the command line.
 */
function asOptions(body: Record<string, unknown>, spec: Record<string, Kind>): Record<string, string | string[] | boolean> {
  const options: Record<string, string | string[] | boolean> = {};
  for (const [name, value] of Object.entries(body)) {
    const kind = spec[name];
    if (kind === undefined) throw new HttpError(400, 'bad-request', `${name}: unknown parameter`, name);
    if (value === null || value === undefined) continue;
    const scalar = (v: unknown): string => {
      if (typeof v === 'string') return v;
      if (typeof v === 'number' && Number.isFinite(v)) return String(v);
      throw new HttpError(400, 'bad-request', `${name}: expected a string or a number`, name);
    };
    if (kind === 'flag') {
      if (typeof value !== 'boolean') throw new HttpError(400, 'bad-request', `${name}: expected true or false`, name);
      options[name] = value;
    } else if (kind === 'list') {
      const list = Array.isArray(value) ? value.map(scalar) : [scalar(value)];
      if (list.length > 10_000) throw new HttpError(400, 'bad-request', `${name}: too many values`, name);
      options[name] = list;
    } else options[name] = scalar(value);
  }
  return options;
}

const RANK_PARAMETERS: Record<string, Kind> = {
  method: 'value', solver: 'value', damping: 'value', tolerance: 'value', maxIterations: 'value', teleport: 'list', root: 'list',
  maxLevel: 'value', walks: 'value', seed: 'value', strategy: 'value', reads: 'value', focus: 'value', focusShare: 'value',
  discoveryShare: 'value', alpha: 'value', sweep: 'value', threads: 'value', top: 'value', save: 'flag', links: 'value', hubs: 'flag', mode: 'value', exact: 'flag', log2m: 'value',
};

const CRAWL_PARAMETERS: Record<string, Kind> = {
  seeds: 'list', resume: 'flag', filter: 'list', fence: 'list', extensions: 'value', hosts: 'value', allowIp: 'list', denyIp: 'list',
  ipCountry: 'value', country: 'list', denyCountry: 'list', resolve: 'list', delay: 'value', perHost: 'value', concurrency: 'value',
  maxPages: 'value', maxDepth: 'value', maxTime: 'value', memory: 'value', strategy: 'value', bufferSize: 'value', refresh: 'flag', window: 'value',
  focus: 'list', focusShare: 'value', discoveryShare: 'value', damping: 'value', retries: 'value', retryDelay: 'value',
  userAgent: 'value', timeout: 'value', maxBody: 'value', maxRedirects: 'value', checkpoint: 'value', top: 'value',
  live: 'flag', liveInterval: 'value', liveShare: 'value', liveInlineEdges: 'value', compression: 'flag', sitemaps: 'flag', maxSitemaps: 'value',
  maxSitemapEntries: 'value', respectNofollow: 'flag', recrawl: 'flag', storeRetry: 'value',
  // Not --browser: a path to an executable the server would run is no parameter for a web form.
  render: 'value', renderConcurrency: 'value', renderTimeout: 'value', renderQuiet: 'value', renderResources: 'value', renderBudget: 'value', renderIdle: 'value', maxLinksPerPage: 'value',
  // Not --dns: the server would send queries to an address a web form names, outside the address rules.
  perIp: 'value', ipDelay: 'value', dnsTimeout: 'value', dnsMinTtl: 'value', dnsMaxTtl: 'value', dnsNegativeTtl: 'value', dnsConcurrency: 'value', dnsCache: 'value', keepAliveHosts: 'value',
};

const IMPORT_PARAMETERS: Record<string, Kind> = {
  path: 'value', format: 'value', labels: 'value', separator: 'value', header: 'flag', ids: 'value', weighted: 'flag', undirected: 'flag', countDuplicates: 'flag',
};

/** The confirmation POST /api/reset needs, word for word. */
export const RESET_CONFIRMATION = 'delete all data';

/** Runs a ranking on a worker thread (the solvers are synchronous); progress per iteration comes back as events. */
function rankOnWorker(db: string, options: RankOptions, control: { progress: (e: RankWorkerMessage & { type: 'progress' }) => void; signal: AbortSignal }): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const input: RankWorkerInput = { db, options };
    const worker = new Worker(new URL('./rank-worker.js', import.meta.url), { workerData: input });
    let settled = false;
    const settle = (f: () => void): void => {
      if (!settled) {
        settled = true;
        f();
      }
    };
    control.signal.addEventListener('abort', () => {
      void worker.terminate();
      settle(() => reject(new Error('cancelled')));
    });
    worker.on('message', (message: RankWorkerMessage) => {
      if (message.type === 'progress') control.progress(message);
      else if (message.type === 'done') settle(() => resolve(message.result));
      else {
        const { name, message: text, option } = message.error;
        const error = option !== undefined ? new OptionError(option, text.startsWith(`${option}: `) ? text.slice(option.length + 2) : text) : new Error(text);
        if (option === undefined && name !== 'Error') Object.assign(error, { name });
        settle(() => reject(name === 'UnknownNodeError' || option !== undefined ? error : new HttpError(400, 'bad-request', text)));
      }
    });
    worker.on('error', (error) => settle(() => reject(error)));
    worker.on('exit', (code) => settle(() => reject(new Error(`rank worker exited with status ${code}`))));
  });
}

export function buildRoutes(server: ServerContext): Hono {
  const app = new Hono();
  const describeError = (error: unknown) => toErrorResponse(error, server.log).body.error;

  guard(app, server);

  const storeGraph = async (): Promise<StoreGraph> => {
    const source = await server.cache.source();
    return { graph: source.graph, pageIds: source.pageIds!, store: server.store };
  };

  // ---- cheap calls (no graph) ----
  app.get('/api/info', async (c) => {
    const [counts, crawl] = await Promise.all([server.cache.counts(), server.crawl.status()]);
    return c.json({
      mode: 'store',
      store: server.store.location,
      kind: server.store.kind,
      version: server.version,
      counts,
      crawl: { running: crawl.running, owner: crawl.owner },
      graphReady: server.cache.ready,
    });
  });

  app.get('/api/page', async (c) => {
    const url = required(c, 'url');
    const offset = integer(c, 'offset', 0, 0);
    const limit = integer(c, 'limit', 100, 0, 100_000);
    return c.json(await pageDetail(server.store, url, { offset, limit }));
  });

  app.get('/api/pages', async (c) => {
    const status = query(c, 'status') ?? '4xx,5xx,failed';
    const limit = integer(c, 'limit', 100, 1, 10_000);
    const offset = integer(c, 'offset', 0, 0);
    return c.json(await pagesByStatus(server.store, { status, linkers: flag(c, 'linkers'), limit, offset, linkersLimit: integer(c, 'linkersLimit', 20, 0, 1000) }));
  });

  app.get('/api/pages-table', async (c) => {
    const sort = pageTableColumn('sort', query(c, 'sort') ?? 'url');
    const order = query(c, 'order') ?? 'asc';
    if (order !== 'asc' && order !== 'desc') throw new OptionError('order', `expected asc or desc, got '${order.slice(0, 20)}'`);
    const filters: Partial<Record<PageTableColumn, string>> = {};
    for (const [name, value] of Object.entries(c.req.queries())) {
      if (!name.startsWith('filter.')) continue;
      filters[pageTableColumn(name, name.slice('filter.'.length))] = value[0] ?? '';
    }
    const csv = query(c, 'format') === 'csv';
    const table = await server.cache.memo('pages-table', () => loadPagesTable(server.store));
    const request = { sort, descending: order === 'desc', filters, offset: csv ? 0 : integer(c, 'offset', 0, 0), limit: csv ? Number.MAX_SAFE_INTEGER : integer(c, 'limit', 100, 1, 10_000) };
    const started = performance.now();
    const answer = queryPagesTable(table, request);
    if (csv) {
      c.header('Content-Disposition', 'attachment; filename="wga-pages.csv"');
      return c.body(stringify(answer.rows, { header: true, columns: [...PAGE_TABLE_COLUMNS] }), 200, { 'Content-Type': 'text/csv; charset=utf-8' });
    }
    return c.json({ columns: PAGE_TABLE_COLUMNS, runs: table.runs, total: answer.total, offset: request.offset, rows: answer.rows, ms: performance.now() - started });
  });

  app.get('/api/audit', async (c) => {
    const checks = auditChecksOption(query(c, 'check'), 'check');
    const settings = { maxDepthOk: integer(c, 'maxDepthOk', 3, 0), slowMs: integer(c, 'slowMs', 1000, 0), nearBits: integer(c, 'nearBits', 7, 0, 16), nearPairs: integer(c, 'nearPairs', 100_000_000, 1), ...(checks === undefined ? {} : { checks }) };
    return c.json(await auditStore(server.store, settings));
  });

  app.get('/api/changes', async (c) => {
    const limit = integer(c, 'limit', 100, 1, 10_000);
    const since = query(c, 'since');
    const until = query(c, 'until');
    return c.json(await changes(server.store, { limit, ...(since === undefined ? {} : { since }), ...(until === undefined ? {} : { until }) }));
  });

  app.get('/api/search', async (c) => {
    const q = required(c, 'q');
    const mode = choiceOption('mode', query(c, 'mode'), [...SEARCH_MODES, 'linksTo', 'linkedFrom'] as const, 'substring');
    const by = mode === 'linksTo' || mode === 'linkedFrom' ? mode : 'url';
    const match = by === 'url' ? (mode as (typeof SEARCH_MODES)[number]) : flag(c, 'prefix') ? 'prefix' : 'substring';
    if (!(SEARCH_BY as readonly string[]).includes(by)) throw new HttpError(400, 'bad-request', 'mode: unknown', 'mode');
    const limit = integer(c, 'limit', 50, 1, 10_000);
    return c.json(await search(server.store, q, { mode: match, by, limit }));
  });

  app.get('/api/runs', async (c) => c.json(await listRuns(server.store)));
  app.get('/api/runs/:id', async (c) => {
    const id = runId(c);
    const k = integer(c, 'top', 10, 1, 10_000);
    await getRun(server.store, id);
    return c.json(await topPages(server.store, { method: '', run: id, k }));
  });
  app.delete('/api/runs/:id', async (c) => {
    const result = await deleteRun(server.store, runId(c));
    server.cache.invalidateCounts();
    return c.json(result);
  });
  app.get('/api/runs/:id/scores', async (c) => {
    const id = runId(c);
    const text = await runScoresTsv(server.store, id);
    c.header('Content-Disposition', `attachment; filename="wga-run-${id}.tsv"`);
    return c.body(text, 200, { 'Content-Type': 'text/tab-separated-values; charset=utf-8' });
  });
  app.get('/api/top', async (c) => {
    const method = query(c, 'score') ?? 'pagerank';
    const run = query(c, 'run') === undefined ? undefined : runId(c, 'run', query(c, 'run'));
    return c.json(await topPages(server.store, { method, run, k: integer(c, 'top', 10, 1, 10_000) }));
  });
  app.get('/api/compare', async (c) => {
    const a = runId(c, 'a', required(c, 'a'));
    const b = runId(c, 'b', required(c, 'b'));
    return c.json(await compareRuns(server.store, a, b));
  });

  // ---- analyses of the loaded graph ----
  app.get('/api/stats', async (c) => c.json(await server.cache.memo('stats', (source) => stats(source), links(c))));
  app.get('/api/scc', async (c) => {
    const root = query(c, 'root');
    const top = integer(c, 'top', 10, 0, 10_000);
    // The components are computed once per graph; each root only looks its component up.
    return c.json(
      await server.cache.memo(`scc\n${root ?? ''}\n${top}`, async (source, memo) => scc(source, { root, top }, await memo('scc', (s) => sccAnalysis(s.graph))), links(c)),
    );
  });
  app.get('/api/levels', async (c) => {
    const roots = c.req.queries('root')?.filter((r) => r !== '') ?? [];
    if (roots.length === 0) throw new HttpError(400, 'bad-request', 'root: missing (one or more root pages)', 'root');
    const maxLevel = integerOption('maxLevel', query(c, 'maxLevel'), Infinity, 0);
    const page = query(c, 'page');
    // The levels from these roots are computed once per graph; each page only looks its level up.
    const key = `levels\n${roots.join('\n')}\n${maxLevel}`;
    return c.json(
      await server.cache.memo(`${key}\n${page ?? ''}`, async (source, memo) =>
        levels(source, { roots, maxLevel, page }, await memo(key, (s) => levelsAnalysis(s.graph, { roots, maxLevel }))),
      links(c)),
    );
  });
  app.get('/api/distances', async (c) => {
    const exact = flag(c, 'exact');
    const log2m = query(c, 'log2m');
    const runs = integer(c, 'runs', 1, 1, 16);
    const seed = integer(c, 'seed', 1, 0);
    if (log2m !== undefined) integer(c, 'log2m', 8, 4, 12);
    const options = { exact, runs: String(runs), seed: String(seed), ...(log2m === undefined ? {} : { log2m }) };
    if (exact) delete (options as { runs?: string }).runs;
    return c.json(await server.cache.memo(`distances\n${exact}\n${log2m ?? ''}\n${runs}\n${seed}`, (source) => distances(source, options), links(c)));
  });
  app.get('/api/degrees', async (c) => {
    const top = integer(c, 'top', 10, 0, 10_000);
    return c.json(await server.cache.memo(`degrees\n${top}`, (source) => degrees(source, { top }), links(c)));
  });
  app.get('/api/neighbourhood', async (c) => {
    const url = required(c, 'url');
    const depth = integer(c, 'depth', 1, 1, 2);
    const limit = integer(c, 'limit', 60, 1, 500);
    return c.json(await neighbourhood(await storeGraph(), url, { depth, limit }));
  });
  app.get('/api/crawl-tree', async (c) => {
    const limit = integer(c, 'limit', 500, 1, 5000);
    const root = query(c, 'root');
    return c.json(await crawlTree(await storeGraph(), { root, limit }));
  });
  app.get('/api/dir-tree', async (c) => {
    const maxChildren = integer(c, 'maxChildren', 50, 1, 1000);
    const maxDepth = integer(c, 'maxDepth', 6, 1, 50);
    return c.json(
      await server.cache.memo(`dir\n${maxChildren}\n${maxDepth}`, (source) => {
        const { labels } = source.graph;
        const urls = (function* () {
          for (let v = 0; v < source.graph.nodeCount; v++) yield labels.label(v);
        })();
        return directoryTree(urls, { maxChildren, maxDepth });
      }),
    );
  });

  app.get('/api/hosts', async (c) => {
    const maxHosts = integer(c, 'maxHosts', 1000, 1, 100_000);
    const maxLinks = integer(c, 'maxLinks', 5000, 0, 1_000_000);
    const level = choiceOption('level', query(c, 'level'), ['host', 'domain'] as const, 'host');
    const reversed = flag(c, 'reversed');
    return c.json(
      await server.cache.memo(`hosts\n${level}\n${reversed}\n${maxHosts}\n${maxLinks}`, async (_source, memo) =>
        hostGraphView(await memo(`site-graph\n${level}\n${reversed}`, (s) => siteGraph(s.graph, level, { source: s.path, reversedNames: reversed })), { maxHosts, maxLinks }),
      ),
    );
  });

  // ---- jobs ----
  app.post('/api/rank', async (c) => {
    const body = await jsonBody(c);
    const options = asOptions(body, RANK_PARAMETERS) as RankOptions;
    if (options.save === undefined) options.save = true;
    // 400 now rather than a failed job.
    if (parseRankOptions(options).methods.length > 1) throw new HttpError(400, 'bad-request', 'method: one ranking method per job (a ranks table of several is `wga rank --method A,B --out FILE`)', 'method');
    if (options.links !== undefined) linkFilterOption('links', options.links);
    const job = server.jobs.start(
      'rank',
      body,
      (control) =>
        rankOnWorker(server.db, options, { progress: (m) => control.progress(m.event), signal: control.signal }).finally(() => server.cache.invalidateCounts()),
      describeError,
    );
    return c.json({ job: job.json }, 202);
  });

  app.post('/api/import', async (c) => {
    const type = c.req.header('content-type') ?? '';
    let path: string;
    let cleanup: (() => Promise<void>) | null = null;
    let file: Record<string, string | string[] | boolean>;
    if (type.startsWith('application/json') || type === '') {
      file = asOptions(await jsonBody(c), IMPORT_PARAMETERS);
      if (typeof file['path'] !== 'string') throw new HttpError(400, 'bad-request', 'path: missing (a graph file on the server; or upload one as application/octet-stream)', 'path');
      path = file['path'];
    } else if (type.startsWith('application/octet-stream')) {
      // The upload keeps its name's extension (.gz, .csv, ...): the format is detected from it.
      const name = basename(query(c, 'name') ?? 'upload.txt').replace(/[^A-Za-z0-9._-]/g, '_') || 'upload.txt';
      file = asOptions(Object.fromEntries(Object.entries(c.req.query()).filter(([k]) => k !== 'name')), IMPORT_PARAMETERS);
      const dir = await mkdtemp(join(tmpdir(), 'wga-upload-'));
      path = join(dir, name);
      cleanup = () => rm(dir, { recursive: true, force: true });
      const body = c.req.raw.body;
      if (body === null) throw new HttpError(400, 'bad-request', 'body: empty upload', 'body');
      let bytes = 0;
      const limit = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          bytes += chunk.length;
          callback(bytes > MAX_UPLOAD_BYTES ? new HttpError(413, 'too-large', `body: larger than ${MAX_UPLOAD_BYTES} bytes`) : null, chunk);
        },
      });
      try {
        await pipeline(Readable.fromWeb(body as import('node:stream/web').ReadableStream), limit, createWriteStream(path));
      } catch (error) {
        await cleanup();
        throw error;
      }
    } else throw new HttpError(415, 'bad-request', `Content-Type '${type.slice(0, 60)}': send application/json ({path}) or application/octet-stream (the file)`);
    if (server.crawl.runningHere) throw new HttpError(409, 'conflict', 'a crawl is running; stop it before importing');
    const job = server.jobs.start(
      'import',
      { ...file, path: cleanup === null ? path : basename(path) },
      async (control) => {
        try {
          return await importGraph(server.store, path, file, { onProgress: control.progress, signal: control.signal });
        } finally {
          server.cache.invalidate();
          await cleanup?.();
        }
      },
      describeError,
    );
    return c.json({ job: job.json }, 202);
  });

  app.get('/api/jobs', (c) => c.json({ jobs: server.jobs.list() }));
  app.get('/api/jobs/:id', (c) => {
    const job = server.jobs.get(c.req.param('id'));
    if (job === undefined) throw new HttpError(404, 'not-found', 'no such job');
    return c.json({ job: job.json });
  });
  const cancel = (c: Context) => {
    const job = server.jobs.cancel(c.req.param('id') ?? '');
    if (job === undefined) throw new HttpError(404, 'not-found', 'no such job');
    return c.json({ job: job.json });
  };
  app.delete('/api/jobs/:id', cancel);
  app.post('/api/jobs/:id/cancel', cancel);
  app.get('/api/jobs/:id/events', (c) => {
    const job = server.jobs.get(c.req.param('id'));
    if (job === undefined) throw new HttpError(404, 'not-found', 'no such job');
    return streamSSE(c, async (stream) => {
      await stream.writeSSE({ event: 'job', data: JSON.stringify(job.json) });
      if (job.json.state !== 'running') {
        await stream.writeSSE({ event: 'end', data: JSON.stringify(job.json) });
        return;
      }
      await new Promise<void>((resolve) => {
        // Progress events go out in batches every PROGRESS_MS (a TrafficRank sweep can take
        // microseconds), every one of them: the GUI draws a point per iteration.
        let pending: unknown[] = [];
        let timer: NodeJS.Timeout | null = null;
        const flush = (): void => {
          timer = null;
          const events = pending;
          pending = [];
          for (const event of events) void stream.writeSSE({ event: 'progress', data: JSON.stringify(event) }).catch(() => undefined);
        };
        const onProgress = (event: unknown): void => {
          pending.push(event);
          if (timer === null) timer = setTimeout(flush, PROGRESS_MS);
        };
        const onEnd = (json: unknown): void => {
          if (timer !== null) clearTimeout(timer);
          flush();
          stop();
          void stream.writeSSE({ event: 'end', data: JSON.stringify(json) }).finally(resolve);
        };
        const stop = (): void => {
          job.events.off('progress', onProgress);
          job.events.off('end', onEnd);
        };
        job.events.on('progress', onProgress);
        job.events.on('end', onEnd);
        stream.onAbort(() => {
          if (timer !== null) clearTimeout(timer);
          stop();
          resolve();
        });
      });
    });
  });

  // ---- crawl ----
  app.get('/api/crawl', async (c) => c.json({ crawl: await server.crawl.status() }));
  app.post('/api/crawl', async (c) => {
    const options = asOptions(await jsonBody(c), CRAWL_PARAMETERS) as CrawlCliOptions & { seeds?: string[] };
    const seeds = options.seeds ?? [];
    delete options.seeds;
    const status = await server.crawl.start(seeds, options);
    server.cache.invalidate();
    return c.json({ crawl: status }, 202);
  });
  app.post('/api/crawl/stop', async (c) => c.json({ crawl: await server.crawl.stop() }));
  app.get('/api/crawl/events', (c) =>
    streamSSE(c, async (stream) => {
      await new Promise<void>((resolve) => {
        const unwatch = server.crawl.watch((status) => {
          void stream.writeSSE({ event: 'status', data: JSON.stringify(status) }).catch(() => {
            unwatch();
            resolve();
          });
        });
        stream.onAbort(() => {
          unwatch();
          resolve();
        });
      });
    }),
  );

  // ---- data ----
  app.post('/api/reset', async (c) => {
    const body = await jsonBody(c);
    if (body['confirm'] !== RESET_CONFIRMATION) {
      throw new HttpError(400, 'bad-request', `confirm: send {"confirm": "${RESET_CONFIRMATION}"} to delete every page, link and run`, 'confirm');
    }
    if ((await server.crawl.status()).running) throw new HttpError(409, 'conflict', 'a crawl is running; stop it before deleting the data');
    const result = await resetStore(server.store);
    server.cache.invalidate();
    return c.json(result);
  });

  app.all('/api/*', () => {
    throw new HttpError(404, 'not-found', 'no such API endpoint (see docs/http-api.md)');
  });

  serveGui(app, server.files);
  return app;
}
