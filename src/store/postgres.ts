/**
 * The server store: PostgreSQL through `pg`, for several crawlers and
 * analysts sharing one database. Bulk paths use COPY (pg-copy-streams):
 * imports stream pages and links into temporary tables and merge them in
 * SQL inside one transaction; loading the graph back streams
 * `COPY ... TO STDOUT` text and parses its bytes, without an object per row.
 */
import { pipeline } from 'node:stream/promises';
import { newPool, submitCopy } from './pg-config.js';
import { copyNumberPairs, copyOutListRange } from './pg-copy.js';
import { readCrawlPagesInThread, readOutListsInThread, THREAD_READ_MIN_PAGES } from './reader-threads.js';
import { storeFailure } from './store-failure.js';
import { Readable } from 'node:stream';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { WgaError } from '../errors.js';
import { buildFromEdges } from '../graph/builder.js';
import { EdgeBuffer } from '../graph/edge-buffer.js';
import type { Graph } from '../graph/graph.js';
import { TextLabels } from '../graph/labels.js';
import { redactLocation } from './open.js';
import type { OutListBatch } from './out-lists.js';
import {
  COUNT_CONDITIONS,
  CRAWL_PAGE_COLUMNS,
  type CrawlPageRow,
  crawlPageFromRow,
  liveOpicExpression,
  type LinkRow,
  LINK_ROW_COLUMNS,
  PAGE_COLUMNS,
  type PriorAnswer,
  VISIT_COLUMNS,
  type VisitRow,
  diffLinkSets,
  type StatusClass,
  statusCondition,
  roleCode,
  droppedCode,
  renderCode,
  visitFromRow,
  visitOf,
  type PageRow,
  type RunRow,
  checkStorableUrl,
  keyOfLabel,
  kindCodes,
  linkFromRow,
  pageFromRow,
  runFromRow,
  AUDIT_COLUMNS,
  auditValues,
} from './records.js';
import { LINK_KIND_CODES, LINK_KIND_NAMES, POSTGRES_MIGRATIONS } from './schema.js';
import {
  CRAWL_STATE,
  newDataVersion,
  type CrawlBatch,
  type CrawlLock,
  type FetchRecord,
  type ImportReport,
  type LinkChangeRecord,
  type LinkFilter,
  type LoadProgress,
  type LinkKind,
  type LinkPaging,
  type LinkRecord,
  type NewLink,
  type NewRun,
  type RunPages,
  type RunScores,
  runPageId,
  runScore,
  type PageRecord,
  type PageRole,
  type RunRecord,
  type SearchOptions,
  type Store,
  type StoreCounts,
  type StoredCrawl,
  type StoredCrawlPage,
  type CrawlSummary,
  type StoredGraph,
  type VisitRecord,
  alignScores,
  linkFilterOf,
  relOf,
  StoreError,
  parseOpicState,
} from './store.js';

/** Sources whose out-lists one COPY of crawlOutLists reads (about 2 x 10^6 links on a crawl of 10 a page). */
const OUT_LIST_RANGE_PAGES = 200_000;
/** Sources whose out-lists a reader thread reads in one COPY (a large crawl's resume). */
const OUT_LIST_THREAD_RANGE_PAGES = 50_000;

/** A PostgreSQL store that cannot be reached, opened or used. */
export class PostgresStoreError extends StoreError {}

// BIGINT and DOUBLE PRECISION come back as numbers (ids stay far below 2^53).
pg.types.setTypeParser(20, (value) => Number(value));

/** COPY text format: backslash, tab, newline and carriage return are escaped. */
function copyText(value: string): string {
  return value.replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c]!);
}

/** Undoes copyText on one field of COPY TO output. */
function uncopyText(value: string): string {
  if (!value.includes('\\')) return value;
  return value.replace(/\\(.)/g, (_, c: string) => ({ t: '\t', n: '\n', r: '\r', '\\': '\\' })[c] ?? c);
}

/** Keys and hosts of a graph's pages, refusing URLs the database cannot hold. */
function pageKeys(graph: Graph, location: string): Array<{ key: string; host: string }> {
  return Array.from({ length: graph.nodeCount }, (_, v) => {
    const url = graph.labels.label(v);
    checkStorableUrl(url, `${location} (import, page ${v})`);
    return keyOfLabel(url);
  });
}

/** COPY FROM STDIN of `count` rows made by `row(i)`, sent in 64 KB blocks (`onProgress` hears each). */
async function copyRows(client: pg.PoolClient, sql: string, count: number, row: (i: number) => string, onProgress?: LoadProgress): Promise<void> {
  async function* blocks(): AsyncGenerator<string> {
    let block = '';
    for (let i = 0; i < count; i++) {
      block += row(i);
      if (block.length > 1 << 16) {
        onProgress?.(i + 1, (i + 1) / count);
        yield block;
        block = '';
      }
    }
    if (block !== '') yield block;
  }
  await pipeline(Readable.from(blocks()), submitCopy(client, copyFrom(sql)));
}

/** Re-adds the links' foreign keys: PostgreSQL checks all rows in one join. */
async function restoreLinkForeignKeys(client: pg.PoolClient): Promise<void> {
  await client.query(
    `ALTER TABLE links ADD CONSTRAINT links_source_fkey FOREIGN KEY (source) REFERENCES pages (id),
                      ADD CONSTRAINT links_target_fkey FOREIGN KEY (target) REFERENCES pages (id)`,
  );
}

export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;

  private constructor(
    readonly location: string,
    private readonly pool: pg.Pool,
    /** The URL as given (its password too), for the reader threads' own connections. */
    private readonly url: string,
  ) {}

  static async open(url: string): Promise<PostgresStore> {
    const location = redactLocation(url);
    const pool = newPool(url, { max: 4 });
    const store = new PostgresStore(location, pool, url);
    try {
      await store.migrate();
    } catch (error) {
      await pool.end();
      if (error instanceof WgaError) throw error;
      throw new PostgresStoreError(location, `cannot open the store: ${(error as Error).message}`);
    }
    return store;
  }

  private async migrate(): Promise<void> {
    await this.transaction(async (client) => {
      // One migrator at a time, across every process sharing the database.
      await client.query('SELECT pg_advisory_xact_lock(7242)');
      await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)');
      const applied = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
      for (const migration of POSTGRES_MIGRATIONS) {
        if (applied.has(migration.version)) continue;
        for (const statement of migration.statements) await client.query(statement);
        await client.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [migration.version, Date.now()]);
      }
    });
  }

  private async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, work);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  async importGraph(graph: Graph, kind: LinkKind = 'anchor', onProgress?: LoadProgress): Promise<ImportReport> {
    const started = performance.now();
    const code = LINK_KIND_CODES[kind];
    const keys = pageKeys(graph, this.location);
    const report = await this.transaction(async (client) => {
      // Nobody else writes while we import: the store is checked empty, or merged into, consistently.
      await client.query('LOCK TABLE pages, links IN SHARE ROW EXCLUSIVE MODE');
      await bumpDataVersion(client);
      const empty = (await client.query('SELECT 1 FROM pages LIMIT 1')).rowCount === 0;
      if (empty && new Set(keys.map((k) => k.key)).size === keys.length) return this.importIntoEmpty(client, graph, keys, code, onProgress);
      return this.importMerging(client, graph, keys, code, onProgress);
    });
    return { ...report, seconds: (performance.now() - started) / 1000 };
  }

  /** Empty store: page v gets id v + 1, and pages and links are copied straight into their tables. */
  private async importIntoEmpty(client: pg.PoolClient, graph: Graph, keys: Array<{ key: string; host: string }>, code: number, onProgress?: LoadProgress) {
    await client.query('ALTER TABLE links DROP CONSTRAINT links_source_fkey, DROP CONSTRAINT links_target_fkey');
    await client.query('ALTER TABLE links DROP CONSTRAINT links_pkey');
    await client.query('DROP INDEX links_target');
    await copyRows(client, 'COPY pages (id, url, url_key, host) FROM STDIN', graph.nodeCount, (v) => {
      const { key, host } = keys[v]!;
      return `${v + 1}	${copyText(graph.labels.label(v))}	${copyText(key)}	${copyText(host)}
`;
    });
    await client.query("SELECT setval(pg_get_serial_sequence('pages', 'id'), $1)", [Math.max(1, graph.nodeCount)]);
    let u = 0;
    let e = 0;
    await copyRows(client, 'COPY links (source, target, kind, nofollow) FROM STDIN', graph.edgeCount, () => {
      while (e >= graph.outOffsets[u + 1]!) u++;
      return `${u + 1}	${graph.outTargets[e++]! + 1}	${code}	f
`;
    }, onProgress);
    // Indexes and constraints built once, from sorted data.
    await client.query('ALTER TABLE links ADD CONSTRAINT links_pkey PRIMARY KEY (source, target, kind)');
    await client.query('CREATE INDEX links_target ON links (target, source)');
    await restoreLinkForeignKeys(client);
    return { pagesAdded: graph.nodeCount, linksAdded: graph.edgeCount };
  }

  /** Store with pages already: stage, merge pages by key, then links by the merged ids. */
  private async importMerging(client: pg.PoolClient, graph: Graph, keys: Array<{ key: string; host: string }>, code: number, onProgress?: LoadProgress) {
    await client.query('CREATE TEMP TABLE import_pages (ord INTEGER PRIMARY KEY, url TEXT NOT NULL, url_key TEXT NOT NULL, host TEXT NOT NULL) ON COMMIT DROP');
    await client.query('CREATE TEMP TABLE import_links (source INTEGER NOT NULL, target INTEGER NOT NULL) ON COMMIT DROP');
    await copyRows(client, 'COPY import_pages (ord, url, url_key, host) FROM STDIN', graph.nodeCount, (v) => {
      const { key, host } = keys[v]!;
      return `${v}	${copyText(graph.labels.label(v))}	${copyText(key)}	${copyText(host)}
`;
    });
    let u = 0;
    let e = 0;
    await copyRows(client, 'COPY import_links (source, target) FROM STDIN', graph.edgeCount, () => {
      while (e >= graph.outOffsets[u + 1]!) u++;
      return `${u}	${graph.outTargets[e++]}
`;
    }, onProgress);
    const pages = await client.query(
      `INSERT INTO pages (url, url_key, host)
       SELECT DISTINCT ON (url_key) url, url_key, host FROM import_pages ORDER BY url_key, ord
       ON CONFLICT (url_key) DO NOTHING`,
    );
    await client.query('CREATE TEMP TABLE import_ids ON COMMIT DROP AS SELECT i.ord, p.id FROM import_pages i JOIN pages p ON p.url_key = i.url_key');
    await client.query('ALTER TABLE import_ids ADD PRIMARY KEY (ord)');
    const bulk = graph.edgeCount > 100_000;
    if (bulk) await client.query('ALTER TABLE links DROP CONSTRAINT links_source_fkey, DROP CONSTRAINT links_target_fkey');
    const links = await client.query(
      `INSERT INTO links (source, target, kind, nofollow)
       SELECT s.id, t.id, $1, FALSE FROM import_links l JOIN import_ids s ON s.ord = l.source JOIN import_ids t ON t.ord = l.target
       WHERE s.id <> t.id ORDER BY s.id, t.id ON CONFLICT DO NOTHING`,
      [code],
    );
    if (bulk) await restoreLinkForeignKeys(client);
    return { pagesAdded: pages.rowCount ?? 0, linksAdded: links.rowCount ?? 0 };
  }

  async loadGraph(filter?: readonly LinkKind[] | LinkFilter, onProgress?: LoadProgress): Promise<StoredGraph> {
    const { kinds, withoutRel } = linkFilterOf(filter);
    const codes = kindCodes(kinds).join(', ');
    // Integers of ours (kind codes, rel bits), never text from outside.
    const relCondition = withoutRel === 0 ? '' : ` AND (rel & ${Math.trunc(withoutRel)}) = 0`;
    const client = await this.pool.connect();
    try {
      // A repeatable-read transaction: pages and links from the same snapshot.
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const ids: number[] = [];
      const urls: string[] = [];
      await this.copyLines(client, 'COPY (SELECT id, url FROM pages ORDER BY id) TO STDOUT', (line) => {
        const tab = line.indexOf('\t');
        ids.push(Number(line.slice(0, tab)));
        urls.push(uncopyText(line.slice(tab + 1)));
      });
      const maxId = ids.length === 0 ? 0 : ids[ids.length - 1]!;
      const dense = new Int32Array(maxId + 1).fill(-1);
      ids.forEach((id, v) => (dense[id] = v));
      const edges = new EdgeBuffer();
      // No ORDER BY: the graph builder sorts; a sort here would cost more than the copy.
      await copyNumberPairs(client, `COPY (SELECT source, target FROM links WHERE kind IN (${codes})${relCondition}) TO STDOUT`, (s, t) => {
        edges.push(dense[s]!, dense[t]!);
        if (onProgress !== undefined && edges.length % 1_000_000 === 0) onProgress(edges.length, null);
      });
      await client.query('COMMIT');
      const { graph } = buildFromEdges(ids.length, edges, new TextLabels(urls));
      return { graph, pageIds: Float64Array.from(ids) };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** Streams COPY TO output line by line (text lines are few: one per page). */
  private async copyLines(client: pg.PoolClient, sql: string, onLine: (line: string) => void): Promise<void> {
    let carry = '';
    await pipeline(submitCopy(client, copyTo(sql)), async (source: AsyncIterable<Buffer>) => {
      for await (const chunk of source) {
        const text = carry + chunk.toString('utf8');
        const lines = text.split('\n');
        carry = lines.pop()!;
        for (const line of lines) onLine(line);
      }
    });
    if (carry !== '') onLine(carry);
  }

  async addPages(urls: readonly string[], keys: readonly string[], depth: number | null = null, roles?: readonly PageRole[]): Promise<number[]> {
    for (const url of urls) checkStorableUrl(url, this.location);
    const hosts = urls.map((url) => keyOfLabel(url).host);
    const result = await this.pool.query<{ id: number; url_key: string }>(
      `WITH input AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $5::smallint[]) AS i (url, url_key, host, role)),
       added AS (INSERT INTO pages (url, url_key, host, depth, role) SELECT url, url_key, host, $4, role FROM input ON CONFLICT (url_key) DO NOTHING RETURNING id, url_key)
       SELECT id, url_key FROM added UNION ALL SELECT p.id, p.url_key FROM pages p JOIN input i ON i.url_key = p.url_key`,
      [urls, keys, hosts, depth, urls.map((_, i) => roleCode(roles?.[i]))],
    );
    const byKey = new Map(result.rows.map((row) => [row.url_key, row.id]));
    // A page another connection added after this statement's snapshot was skipped by ON CONFLICT
    // and is not in the snapshot either: a second statement, with a new snapshot, sees it.
    const missing = keys.filter((key) => !byKey.has(key));
    if (missing.length > 0) {
      const again = await this.pool.query<{ id: number; url_key: string }>('SELECT id, url_key FROM pages WHERE url_key = ANY($1::text[])', [missing]);
      for (const row of again.rows) byKey.set(row.url_key, row.id);
    }
    return keys.map((key) => {
      const id = byKey.get(key);
      if (id === undefined) throw new PostgresStoreError(this.location, `page '${key.slice(0, 100)}' could not be added`);
      return id;
    });
  }

  async recordFetch(page: number, fetch: FetchRecord): Promise<void> {
    await this.pool.query(
      `UPDATE pages SET status = $1, content_type = $2, fetched_at = $3, size = $4, title = $5, fetch_error = $6,
         wire_size = $8, etag = $9, last_modified = $10, content_hash = $11, rendered = $12, links_dropped = $13,
         description = $14, h1 = $15, h1_count = $16, robots = $17, words = $18, simhash = $19, response_ms = $20 WHERE id = $7`,
      [fetch.status, fetch.contentType, fetch.fetchedAt, fetch.size, fetch.title, fetch.error, page, fetch.wireSize ?? null, fetch.etag ?? null, fetch.lastModified ?? null, fetch.contentHash ?? null, renderCode(fetch.rendered), droppedCode(fetch.linksDropped), ...auditValues(fetch.audit)],
    );
  }

  async addLinks(links: readonly NewLink[]): Promise<number> {
    if (links.length === 0) return 0;
    const result = await this.pool.query(
      `INSERT INTO links (source, target, kind, nofollow, rel, hreflang, lastmod)
       SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::smallint[], $4::boolean[], $5::smallint[], $6::text[], $7::float8[]) ON CONFLICT DO NOTHING`,
      linkColumns(links),
    );
    return result.rowCount ?? 0;
  }

  async counts(): Promise<StoreCounts> {
    const { rows } = await this.pool.query<Record<keyof StoreCounts, string>>(
      `SELECT (SELECT count(*) FROM pages) AS pages, (SELECT count(*) FROM links) AS links,
        (SELECT count(*) FROM pages WHERE ${COUNT_CONDITIONS.fetched}) AS fetched,
        (SELECT count(*) FROM pages WHERE ${COUNT_CONDITIONS.failed}) AS failed,
        (SELECT count(*) FROM pages WHERE ${COUNT_CONDITIONS.excluded}) AS excluded,
        (SELECT count(*) FROM pages WHERE ${COUNT_CONDITIONS.frontier}) AS frontier,
        (SELECT count(*) FROM runs) AS runs, (SELECT count(*) FROM pages WHERE links_dropped > 0) AS "overLinkCap"`,
    );
    const row = rows[0]!;
    return {
      pages: Number(row.pages),
      links: Number(row.links),
      fetched: Number(row.fetched),
      failed: Number(row.failed),
      excluded: Number(row.excluded),
      frontier: Number(row.frontier),
      overLinkCap: Number(row.overLinkCap),
      runs: Number(row.runs),
    };
  }

  async crawlCounts(): Promise<{ redirects: number; other: number; hosts: number }> {
    const { rows } = await this.pool.query<{ redirects: string; other: string; hosts: string }>(
      `SELECT (SELECT count(*) FROM pages WHERE ${COUNT_CONDITIONS.redirects}) AS redirects,
        (SELECT count(*) FROM pages WHERE ${COUNT_CONDITIONS.other}) AS other,
        (SELECT count(DISTINCT host) FROM pages WHERE host <> '') AS hosts`,
    );
    return { redirects: Number(rows[0]!.redirects), other: Number(rows[0]!.other), hosts: Number(rows[0]!.hosts) };
  }

  async pageByUrl(url: string): Promise<PageRecord | null> {
    const key = keyOfLabel(url).key;
    // By its key first (the unique index); by the URL as given only when no key matches (a scan).
    let { rows } = await this.pool.query<PageRow>(`SELECT ${PAGE_COLUMNS} FROM pages WHERE url_key = $1`, [key]);
    if (rows.length === 0) ({ rows } = await this.pool.query<PageRow>(`SELECT ${PAGE_COLUMNS} FROM pages WHERE url = $1 LIMIT 1`, [url]));
    return rows.length === 0 ? null : pageFromRow(rows[0]!);
  }

  async *pageBatches(batchSize = 10_000): AsyncIterable<PageRecord[]> {
    let after = -1;
    for (;;) {
      const { rows } = await this.pool.query<PageRow>(`SELECT ${PAGE_COLUMNS} FROM pages WHERE id > $1 ORDER BY id LIMIT $2`, [after, batchSize]);
      if (rows.length === 0) return;
      const batch = rows.map(pageFromRow);
      after = batch[batch.length - 1]!.id;
      yield batch;
    }
  }

  async *linkBatches(batchSize = 100_000): AsyncIterable<NewLink[]> {
    let after = [-1, -1, -1];
    for (;;) {
      const { rows } = await this.pool.query<{ source: number; target: number; kind: number; nofollow: boolean; rel: number; hreflang: string | null; lastmod: number | null }>(
        'SELECT source, target, kind, nofollow, rel, hreflang, lastmod FROM links WHERE (source, target, kind) > ($1, $2, $3) ORDER BY source, target, kind LIMIT $4',
        [...after, batchSize],
      );
      if (rows.length === 0) return;
      const last = rows[rows.length - 1]!;
      after = [Number(last.source), Number(last.target), Number(last.kind)];
      yield rows.map((row) => ({
        source: Number(row.source),
        target: Number(row.target),
        kind: LINK_KIND_NAMES[Number(row.kind)] ?? 'anchor',
        nofollow: row.nofollow === true,
        rel: Number(row.rel),
        hreflang: row.hreflang,
        lastmod: row.lastmod === null ? null : Number(row.lastmod),
      }));
    }
  }

  async pageById(id: number): Promise<PageRecord | null> {
    const { rows } = await this.pool.query<PageRow>(`SELECT ${PAGE_COLUMNS} FROM pages WHERE id = $1`, [id]);
    return rows.length === 0 ? null : pageFromRow(rows[0]!);
  }

  async searchPages(text: string, options: SearchOptions = {}): Promise<PageRecord[]> {
    const sql =
      options.mode === 'prefix'
        ? `SELECT ${PAGE_COLUMNS} FROM pages WHERE left(url, length($1)) = $1 ORDER BY url LIMIT $2`
        : `SELECT ${PAGE_COLUMNS} FROM pages WHERE strpos(url, $1) > 0 ORDER BY id LIMIT $2`;
    const { rows } = await this.pool.query<PageRow>(sql, [text, options.limit ?? 100]);
    return rows.map(pageFromRow);
  }

  async searchByNeighbour(text: string, direction: 'in' | 'out', options: SearchOptions = {}): Promise<PageRecord[]> {
    const [near, far] = direction === 'in' ? ['source', 'target'] : ['target', 'source'];
    const match = options.mode === 'prefix' ? 'left(m.url, length($1)) = $1' : 'strpos(m.url, $1) > 0';
    const { rows } = await this.pool.query<PageRow>(
      `SELECT ${PAGE_COLUMNS.split(', ').map((c) => `p.${c}`).join(', ')} FROM pages p
       WHERE p.id IN (SELECT l.${near} FROM links l JOIN pages m ON m.id = l.${far} WHERE ${match})
       ORDER BY p.id LIMIT $2`,
      [text, options.limit ?? 100],
    );
    return rows.map(pageFromRow);
  }

  async links(page: number, direction: 'in' | 'out', paging: LinkPaging = {}): Promise<LinkRecord[]> {
    const [self, other] = direction === 'out' ? ['source', 'target'] : ['target', 'source'];
    const { rows } = await this.pool.query<LinkRow>(
      `SELECT p.url AS url, ${LINK_ROW_COLUMNS} FROM links l JOIN pages p ON p.id = l.${other}
       WHERE l.${self} = $1 ORDER BY p.url COLLATE "C", l.kind LIMIT $2 OFFSET $3`,
      [page, paging.limit ?? null, paging.offset ?? 0],
    );
    return rows.map(linkFromRow);
  }

  async linkCount(page: number, direction: 'in' | 'out'): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>(`SELECT count(*) AS n FROM links WHERE ${direction === 'out' ? 'source' : 'target'} = $1`, [page]);
    return Number(rows[0]!.n);
  }

  async degrees(page: number): Promise<{ inDegree: number; outDegree: number }> {
    const { rows } = await this.pool.query<{ in_degree: string; out_degree: string }>(
      `SELECT (SELECT count(DISTINCT source) FROM links WHERE target = $1 AND source <> target) AS in_degree,
              (SELECT count(DISTINCT target) FROM links WHERE source = $1 AND source <> target) AS out_degree`,
      [page],
    );
    return { inDegree: Number(rows[0]!.in_degree), outDegree: Number(rows[0]!.out_degree) };
  }

  async saveRun(run: NewRun, pages: RunPages, scores: RunScores): Promise<number> {
    const pageId = runPageId(pages);
    const score = runScore(scores);
    return this.transaction(async (client) => {
      await bumpDataVersion(client);
      const { rows } = await client.query<{ id: number }>(
        `INSERT INTO runs (method, parameters, started_at, finished_at, iterations, residual, converged, pages)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
        [run.method, JSON.stringify(run.parameters), run.startedAt, run.finishedAt, run.iterations, run.residual, run.converged, pages.length],
      );
      const id = rows[0]!.id;
      async function* lines(): AsyncGenerator<string> {
        let block = '';
        for (let v = 0; v < pages.length; v++) {
          const value = score(v);
          if (!Number.isFinite(value)) continue;
          block += `${id}\t${pageId(v)}\t${value}\n`;
          if (block.length > 1 << 16) {
            yield block;
            block = '';
          }
        }
        if (block !== '') yield block;
      }
      await pipeline(Readable.from(lines()), submitCopy(client, copyFrom('COPY scores (run, page, value) FROM STDIN')));
      return id;
    });
  }

  async runs(): Promise<RunRecord[]> {
    const { rows } = await this.pool.query<RunRow>('SELECT * FROM runs ORDER BY id');
    return rows.map(runFromRow);
  }

  async latestRun(method: string): Promise<RunRecord | null> {
    const { rows } = await this.pool.query<RunRow>('SELECT * FROM runs WHERE method = $1 ORDER BY id DESC LIMIT 1', [method]);
    return rows.length === 0 ? null : runFromRow(rows[0]!);
  }

  async scoresOf(page: number): Promise<Array<{ run: number; method: string; value: number }>> {
    const { rows } = await this.pool.query<{ run: number; method: string; value: number }>(
      'SELECT s.run AS run, r.method AS method, s.value AS value FROM scores s JOIN runs r ON r.id = s.run WHERE s.page = $1 ORDER BY s.run',
      [page],
    );
    return rows;
  }

  async topPages(run: number, limit: number): Promise<Array<{ page: PageRecord; value: number }>> {
    const { rows } = await this.pool.query<PageRow & { value: number }>(
      `SELECT ${PAGE_COLUMNS.split(', ').map((c) => `p.${c}`).join(', ')}, s.value AS value FROM scores s JOIN pages p ON p.id = s.page
       WHERE s.run = $1 ORDER BY s.value DESC, p.id LIMIT $2`,
      [run, limit],
    );
    return rows.map((row) => ({ page: pageFromRow(row), value: row.value }));
  }

  async runScores(run: number, pageIds: Float64Array): Promise<Float64Array> {
    const { rows } = await this.pool.query<{ page: string; value: number }>('SELECT page, value FROM scores WHERE run = $1', [run]);
    return alignScores(rows.map((r) => ({ page: Number(r.page), value: r.value })), pageIds);
  }

  async deleteRun(run: number): Promise<boolean> {
    return this.transaction(async (client) => {
      await bumpDataVersion(client);
      await client.query('DELETE FROM scores WHERE run = $1', [run]);
      return ((await client.query('DELETE FROM runs WHERE id = $1', [run])).rowCount ?? 0) > 0;
    });
  }

  async reset(): Promise<void> {
    await this.transaction(async (client) => {
      await client.query('TRUNCATE scores, runs, link_changes, visits, links, pages, crawl_state, sitemap_probes RESTART IDENTITY');
      await bumpDataVersion(client);
    });
  }

  async writeCrawlBatch(batch: CrawlBatch): Promise<void> {
    for (const page of batch.pages) checkStorableUrl(page.url, this.location);
    // Whole columns as array parameters through unnest: one statement per kind of row.
    const column = <T, U>(rows: readonly T[], pick: (row: T) => U): U[] => rows.map(pick);
    await this.transaction(async (client) => {
      // A batch is written once even when it is sent again: a crawl retrying after a lost connection
      // cannot tell a write that failed from one whose answer was lost. The progress entry is unique
      // to each batch; locking it first serializes a retry behind an attempt still in flight.
      const progress = batch.state[CRAWL_STATE.progress];
      if (progress !== undefined) {
        await client.query("INSERT INTO crawl_state (key, value) VALUES ($1, '') ON CONFLICT (key) DO NOTHING", [CRAWL_STATE.progress]);
        const held = await client.query<{ value: string }>('SELECT value FROM crawl_state WHERE key = $1 FOR UPDATE', [CRAWL_STATE.progress]);
        if (held.rows[0]?.value === progress) return;
      }
      const pages = batch.pages;
      if (pages.length > 0) {
        await client.query(
          `INSERT INTO pages (id, url, url_key, host, depth, focus, cash, history, last_read, reads, seen_all, seen_unread, seen_focus, window_history, role)
           SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::int[], $6::boolean[], $7::float8[], $8::float8[],
                                $9::float8[], $10::int[], $11::float8[], $12::float8[], $13::float8[], $14::float8[], $15::smallint[])`,
          [
            column(pages, (p) => p.id), column(pages, (p) => p.url), column(pages, (p) => p.key), column(pages, (p) => p.host),
            column(pages, (p) => p.depth), column(pages, (p) => p.focus), column(pages, (p) => p.opic.cash), column(pages, (p) => p.opic.history),
            column(pages, (p) => p.opic.lastRead), column(pages, (p) => p.opic.reads), column(pages, (p) => p.opic.seenAll),
            column(pages, (p) => p.opic.seenUnread), column(pages, (p) => p.opic.seenFocus), column(pages, (p) => p.windowHistory),
            column(pages, (p) => roleCode(p.role)),
          ],
        );
      }
      await recordFetches(client, batch.fetches, batch.replaceLinksOf, batch.links);
      const opic = batch.opic;
      if (opic.length > 0) {
        await client.query(
          `UPDATE pages p SET cash = o.cash, history = o.history, last_read = o.last_read, reads = o.reads, seen_all = o.seen_all,
             seen_unread = o.seen_unread, seen_focus = o.seen_focus, window_history = o.window_history
           FROM unnest($1::bigint[], $2::float8[], $3::float8[], $4::float8[], $5::int[], $6::float8[], $7::float8[], $8::float8[], $9::float8[])
             AS o (id, cash, history, last_read, reads, seen_all, seen_unread, seen_focus, window_history)
           WHERE p.id = o.id`,
          [
            column(opic, (o) => o.id), column(opic, (o) => o.state.cash), column(opic, (o) => o.state.history), column(opic, (o) => o.state.lastRead),
            column(opic, (o) => o.state.reads), column(opic, (o) => o.state.seenAll), column(opic, (o) => o.state.seenUnread),
            column(opic, (o) => o.state.seenFocus), column(opic, (o) => o.windowHistory),
          ],
        );
      }
      const depths = batch.depths ?? [];
      if (depths.length > 0) {
        await client.query('UPDATE pages p SET depth = d.depth FROM unnest($1::bigint[], $2::int[]) AS d (id, depth) WHERE p.id = d.id', [
          column(depths, (d) => d.id),
          column(depths, (d) => d.depth),
        ]);
      }
      const entries = Object.entries(batch.state);
      if (entries.length > 0) {
        await client.query(
          `INSERT INTO crawl_state (key, value) SELECT * FROM unnest($1::text[], $2::text[])
           ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
          [entries.map((e) => e[0]), entries.map((e) => e[1])],
        );
      }
      const probes = batch.sitemapProbes ?? [];
      if (probes.length > 0) {
        await client.query(
          `INSERT INTO sitemap_probes (origin, status, probed_at) SELECT * FROM unnest($1::text[], $2::int[], $3::float8[])
           ON CONFLICT (origin) DO UPDATE SET status = excluded.status, probed_at = excluded.probed_at`,
          [column(probes, (p) => p.origin), column(probes, (p) => p.status), column(probes, (p) => p.probedAt)],
        );
      }
    });
  }

  async crawlSummary(): Promise<CrawlSummary> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const pages = await client.query<{ n: string }>('SELECT count(*) AS n FROM pages');
      const seeds = await client.query<[string]>({ text: 'SELECT url FROM pages WHERE depth = 0 ORDER BY id', rowMode: 'array' });
      const redirects = await client.query<[number, number]>({ text: `SELECT source, target FROM links WHERE kind = ${LINK_KIND_CODES.redirect}`, rowMode: 'array' });
      const state = await client.query<{ key: string; value: string }>('SELECT key, value FROM crawl_state');
      const probes = await client.query<[string]>({ text: 'SELECT origin FROM sitemap_probes', rowMode: 'array' });
      await client.query('COMMIT');
      return {
        pages: Number(pages.rows[0]!.n),
        seeds: seeds.rows.map((r) => r[0]),
        redirects: redirects.rows.map(([s, t]) => [Number(s), Number(t)]),
        state: Object.fromEntries(state.rows.map((r) => [r.key, r.value])),
        sitemapProbes: probes.rows.map((r) => r[0]),
      };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async *crawlPageBatches(batchSize = 10_000): AsyncIterable<StoredCrawlPage[]> {
    // A large crawl's pages are read on reader threads (pg-reader-worker.ts): the same pages, in the same batches.
    if (await this.readsOnThreads()) {
      yield* readCrawlPagesInThread(this.url, batchSize, undefined, 'postgres');
      return;
    }
    for (let after = 0; ; ) {
      const { rows } = await this.pool.query<CrawlPageRow>({ text: `SELECT ${CRAWL_PAGE_COLUMNS} FROM pages WHERE id > $1 ORDER BY id LIMIT $2`, values: [after, batchSize], rowMode: 'array' });
      if (rows.length === 0) return;
      const pages = rows.map(crawlPageFromRow);
      after = pages[pages.length - 1]!.id;
      yield pages;
    }
  }

  /** True when the crawl's pages number THREAD_READ_MIN_PAGES or more: a resume then reads on reader threads. */
  private async readsOnThreads(): Promise<boolean> {
    const { rows } = await this.pool.query<{ max: string | number | null }>('SELECT max(id) AS max FROM pages');
    return Number(rows[0]?.max ?? 0) >= THREAD_READ_MIN_PAGES;
  }

  async *crawlOutLists(kinds: readonly LinkKind[]): AsyncIterable<OutListBatch> {
    // Integers of ours (kind codes, id bounds), never text from outside: COPY takes no parameters.
    if (await this.readsOnThreads()) {
      yield* readOutListsInThread(this.url, kindCodes(kinds), OUT_LIST_THREAD_RANGE_PAGES, undefined, 'postgres');
      return;
    }
    const { rows } = await this.pool.query<{ max: string | null }>('SELECT max(id) AS max FROM pages');
    const maxId = Number(rows[0]?.max ?? 0);
    const client = await this.pool.connect();
    try {
      for (let from = 0; from < maxId; from += OUT_LIST_RANGE_PAGES) {
        const batch = await copyOutListRange(client, kindCodes(kinds), from, from + OUT_LIST_RANGE_PAGES);
        if (batch.sources.length > 0) yield batch;
      }
    } finally {
      client.release();
    }
  }

  async loadCrawl(): Promise<StoredCrawl> {
    // The summary and the batches, in one list (tests and small stores; a resume streams them).
    const { seeds: _seeds, pages: _count, ...summary } = await this.crawlSummary();
    const pages: StoredCrawlPage[] = [];
    for await (const batch of this.crawlPageBatches()) for (const page of batch) pages.push(page);
    return { pages, ...summary };
  }

  async crawlState(): Promise<Record<string, string>> {
    const { rows } = await this.pool.query<{ key: string; value: string }>('SELECT key, value FROM crawl_state');
    return Object.fromEntries(rows.map((r) => [r.key, r.value]));
  }

  async pagesByStatus(classes: readonly StatusClass[], statuses: readonly number[], paging: { offset: number; limit: number }): Promise<{ pages: PageRecord[]; total: number }> {
    const where = statusCondition(classes, statuses);
    const { rows } = await this.pool.query<PageRow>(`SELECT ${PAGE_COLUMNS} FROM pages WHERE ${where} ORDER BY id LIMIT $1 OFFSET $2`, [paging.limit, paging.offset]);
    const total = await this.pool.query<{ n: string }>(`SELECT count(*) AS n FROM pages WHERE ${where}`);
    return { pages: rows.map(pageFromRow), total: Number(total.rows[0]!.n) };
  }

  async liveSharedInstances(withinMs: number): Promise<Array<{ hostname: string; pid: number; startedAt: number }>> {
    const exists = await this.pool.query<{ t: string | null }>("SELECT to_regclass('shared_instances')::text AS t");
    if (exists.rows[0]?.t == null) return [];
    const { rows } = await this.pool.query<{ hostname: string; pid: number; started: number }>(
      `SELECT hostname, pid, extract(epoch FROM started_at) * 1000 AS started FROM shared_instances
       WHERE state IN ('working', 'waiting', 'short') AND heartbeat > clock_timestamp() - $1 * interval '1 millisecond' ORDER BY started_at`,
      [withinMs],
    );
    return rows.map((r) => ({ hostname: r.hostname, pid: Number(r.pid), startedAt: Number(r.started) }));
  }

  async visits(from: number, to: number, page?: number): Promise<VisitRecord[]> {
    const { rows } =
      page === undefined
        ? await this.pool.query<VisitRow>(`SELECT ${VISIT_COLUMNS} FROM visits WHERE fetched_at >= $1 AND fetched_at < $2 ORDER BY fetched_at, page`, [from, to])
        : await this.pool.query<VisitRow>(`SELECT ${VISIT_COLUMNS} FROM visits WHERE page = $3 AND fetched_at >= $1 AND fetched_at < $2 ORDER BY fetched_at`, [from, to, page]);
    return rows.map(visitFromRow);
  }

  async visitsBefore(time: number, to: number): Promise<VisitRecord[]> {
    const { rows } = await this.pool.query<VisitRow>(
      `SELECT DISTINCT ON (page) ${VISIT_COLUMNS} FROM visits
       WHERE fetched_at < $1 AND page IN (SELECT page FROM visits WHERE fetched_at >= $1 AND fetched_at < $2)
       ORDER BY page, fetched_at DESC`,
      [time, to],
    );
    return rows.map(visitFromRow);
  }

  async linkChanges(from: number, to: number, limit: number): Promise<LinkChangeRecord[]> {
    const { rows } = await this.pool.query<{ at: number; source: string; target: string; kind: number; added: boolean }>(
      `SELECT c.at AS at, s.url AS source, t.url AS target, c.kind AS kind, c.added AS added FROM link_changes c
       JOIN pages s ON s.id = c.source JOIN pages t ON t.id = c.target
       WHERE c.at >= $1 AND c.at < $2 ORDER BY c.at, c.ctid LIMIT $3`,
      [from, to, limit],
    );
    return rows.map((r) => ({ at: Number(r.at), source: r.source, target: r.target, kind: LINK_KIND_NAMES[Number(r.kind)] ?? 'anchor', added: r.added }));
  }

  async visitCounts(pages?: readonly number[]): Promise<Array<{ page: number; visits: number; changes: number; first: number; last: number }>> {
    const { rows } = await this.pool.query<{ page: string; visits: string; changes: string; first: number; last: number }>(
      `SELECT page, count(*) AS visits, count(*) FILTER (WHERE changed) AS changes, min(fetched_at) AS first, max(fetched_at) AS last
       FROM visits ${pages === undefined ? '' : 'WHERE page = ANY($1::bigint[])'} GROUP BY page ORDER BY page`,
      pages === undefined ? [] : [pages],
    );
    return rows.map((r) => ({ page: Number(r.page), visits: Number(r.visits), changes: Number(r.changes), first: Number(r.first), last: Number(r.last) }));
  }

  async takeCrawlLock(lock: CrawlLock, canTake: (holder: CrawlLock) => boolean): Promise<CrawlLock | null> {
    return this.transaction(async (client) => {
      // Serialises lock takers across processes for the length of this transaction.
      await client.query('SELECT pg_advisory_xact_lock(7243)');
      const { rows } = await client.query<{ value: string }>('SELECT value FROM crawl_state WHERE key = $1', [CRAWL_STATE.lock]);
      if (rows.length > 0) {
        const holder = JSON.parse(rows[0]!.value) as CrawlLock;
        if (holder.owner !== lock.owner && !canTake(holder)) return holder;
      }
      await client.query('INSERT INTO crawl_state (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [
        CRAWL_STATE.lock,
        JSON.stringify(lock),
      ]);
      return null;
    });
  }

  async releaseCrawlLock(owner: string): Promise<void> {
    await this.transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(7243)');
      const { rows } = await client.query<{ value: string }>('SELECT value FROM crawl_state WHERE key = $1', [CRAWL_STATE.lock]);
      if (rows.length > 0 && (JSON.parse(rows[0]!.value) as CrawlLock).owner === owner) await client.query('DELETE FROM crawl_state WHERE key = $1', [CRAWL_STATE.lock]);
    });
  }

  async liveOpicTop(limit: number): Promise<Array<{ page: PageRecord; value: number }> | null> {
    const state = parseOpicState((await this.crawlState())[CRAWL_STATE.opic]);
    if (state === null) return null;
    const order = { all: 1, unread: 2, focused: 3, clock: 4 } as const;
    const value = liveOpicExpression((name) => `$${order[name]}::float8`);
    const { rows } = await this.pool.query<PageRow & { value: number }>(
      `SELECT ${PAGE_COLUMNS}, ${value} AS value FROM pages ORDER BY value DESC, id LIMIT $5`,
      [state.all, state.unread, state.focused, state.clock, limit],
    );
    return rows.map((row) => ({ page: pageFromRow(row), value: row.value }));
  }
}

/** The columns of links as unnest's arrays: source, target, kind, nofollow, rel, hreflang, lastmod. */
export function linkColumns(links: readonly NewLink[]): unknown[][] {
  return [
    links.map((l) => l.source), links.map((l) => l.target), links.map((l) => LINK_KIND_CODES[l.kind]), links.map((l) => (relOf(l) & 1) === 1),
    links.map((l) => relOf(l)), links.map((l) => l.hreflang ?? null), links.map((l) => l.lastmod ?? null),
  ];
}

/**
 * Records fetches in a transaction, as a crawl checkpoint does (both stores' semantics, see
 * sqlite.ts): the answer over the page's row (a 304 only moves its time), the links of
 * `replaceLinksOf` replaced by `links`, the links a re-read added or removed, and a visit per fetch,
 * changed or not judged against the digest stored before.
 */
export async function recordFetches(
  client: pg.PoolClient,
  fetches: ReadonlyArray<{ id: number; fetchSeq: number | null; record: FetchRecord }>,
  replaceLinksOf: readonly number[],
  links: readonly NewLink[],
): Promise<void> {
  const column = <T, U>(rows: readonly T[], pick: (row: T) => U): U[] => rows.map(pick);
  const prior = new Map<number, PriorAnswer>();
  if (fetches.length > 0) {
    const { rows } = await client.query<PriorAnswer & { id: string }>('SELECT id, status, fetch_error, content_hash FROM pages WHERE id = ANY($1::bigint[])', [
      column(fetches, (f) => f.id),
    ]);
    for (const row of rows) prior.set(Number(row.id), row);
    const full = fetches.filter((f) => f.record.notModified !== true);
    const same = fetches.filter((f) => f.record.notModified === true);
    if (full.length > 0) {
      await client.query(
        `UPDATE pages p SET status = f.status, content_type = f.content_type, fetched_at = f.fetched_at, size = f.size, title = f.title,
           fetch_error = f.fetch_error, fetch_seq = f.fetch_seq, wire_size = f.wire_size, etag = f.etag, last_modified = f.last_modified, content_hash = f.content_hash,
           rendered = f.rendered, links_dropped = f.links_dropped, description = f.description, h1 = f.h1, h1_count = f.h1_count, robots = f.robots,
           words = f.words, simhash = f.simhash, response_ms = f.response_ms
         FROM unnest($1::bigint[], $2::int[], $3::text[], $4::float8[], $5::bigint[], $6::text[], $7::text[], $8::bigint[], $9::bigint[], $10::text[], $11::text[], $12::text[], $13::smallint[], $14::int[],
                     $15::text[], $16::text[], $17::int[], $18::smallint[], $19::int[], $20::text[], $21::real[])
           AS f (id, status, content_type, fetched_at, size, title, fetch_error, fetch_seq, wire_size, etag, last_modified, content_hash, rendered, links_dropped,
                 description, h1, h1_count, robots, words, simhash, response_ms)
         WHERE p.id = f.id`,
        [
          column(full, (f) => f.id), column(full, (f) => f.record.status), column(full, (f) => f.record.contentType),
          column(full, (f) => f.record.fetchedAt), column(full, (f) => f.record.size), column(full, (f) => f.record.title),
          column(full, (f) => f.record.error), column(full, (f) => f.fetchSeq), column(full, (f) => f.record.wireSize ?? null),
          column(full, (f) => f.record.etag ?? null), column(full, (f) => f.record.lastModified ?? null), column(full, (f) => f.record.contentHash ?? null),
          column(full, (f) => renderCode(f.record.rendered)),
          column(full, (f) => droppedCode(f.record.linksDropped)),
          ...AUDIT_COLUMNS.map((_, k) => column(full, (f) => auditValues(f.record.audit)[k]!)),
        ],
      );
    }
    if (same.length > 0) {
      await client.query('UPDATE pages p SET fetched_at = f.fetched_at, fetch_seq = f.fetch_seq FROM unnest($1::bigint[], $2::float8[], $3::bigint[]) AS f (id, fetched_at, fetch_seq) WHERE p.id = f.id', [
        column(same, (f) => f.id), column(same, (f) => f.record.fetchedAt), column(same, (f) => f.fetchSeq),
      ]);
    }
  }
  const replaced = new Map<number, Array<[number, number]>>();
  if (replaceLinksOf.length > 0) {
    const sources = [...new Set(replaceLinksOf)];
    for (const source of sources) replaced.set(source, []);
    const { rows } = await client.query<[string, string, number]>({ text: 'SELECT source, target, kind FROM links WHERE source = ANY($1::bigint[])', values: [sources], rowMode: 'array' });
    for (const [source, target, kind] of rows) replaced.get(Number(source))!.push([Number(target), Number(kind)]);
    await client.query('DELETE FROM links WHERE source = ANY($1::bigint[])', [sources]);
  }
  if (links.length > 0) {
    await client.query(
      `INSERT INTO links (source, target, kind, nofollow, rel, hreflang, lastmod)
       SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::smallint[], $4::boolean[], $5::smallint[], $6::text[], $7::float8[]) ON CONFLICT DO NOTHING`,
      linkColumns(links),
    );
  }
  const lastFetch = new Map(fetches.map((f) => [f.id, f.record.fetchedAt]));
  const counts = new Map<number, { added: number; removed: number }>();
  if (replaced.size > 0) {
    const after = new Map<number, Array<[number, number]>>([...replaced.keys()].map((source) => [source, []]));
    const { rows } = await client.query<[string, string, number]>({ text: 'SELECT source, target, kind FROM links WHERE source = ANY($1::bigint[])', values: [[...replaced.keys()]], rowMode: 'array' });
    for (const [source, target, kind] of rows) after.get(Number(source))!.push([Number(target), Number(kind)]);
    const changes: Array<[number, number, number, number, boolean]> = [];
    for (const [source, before] of replaced) {
      const { added, removed } = diffLinkSets(before, after.get(source)!);
      const at = lastFetch.get(source) ?? Date.now();
      for (const [target, kind] of added) changes.push([at, source, target, kind, true]);
      for (const [target, kind] of removed) changes.push([at, source, target, kind, false]);
      counts.set(source, { added: added.length, removed: removed.length });
    }
    if (changes.length > 0) {
      await client.query('INSERT INTO link_changes (at, source, target, kind, added) SELECT * FROM unnest($1::float8[], $2::bigint[], $3::bigint[], $4::smallint[], $5::boolean[])', [
        column(changes, (c) => c[0]), column(changes, (c) => c[1]), column(changes, (c) => c[2]), column(changes, (c) => c[3]), column(changes, (c) => c[4]),
      ]);
    }
  }
  if (fetches.length > 0) {
    const visits = fetches.map((f) => {
      const v = visitOf(f.record, prior.get(f.id));
      const counted = lastFetch.get(f.id) === v.fetchedAt ? counts.get(f.id) : undefined;
      if (counted !== undefined) counts.delete(f.id);
      return { id: f.id, v, added: counted?.added ?? 0, removed: counted?.removed ?? 0 };
    });
    await client.query(
      `INSERT INTO visits (${VISIT_COLUMNS})
       SELECT * FROM unnest($1::bigint[], $2::float8[], $3::int[], $4::text[], $5::text[], $6::boolean[], $7::boolean[], $8::int[], $9::int[])`,
      [
        column(visits, (x) => x.id), column(visits, (x) => x.v.fetchedAt), column(visits, (x) => x.v.status), column(visits, (x) => x.v.error),
        column(visits, (x) => x.v.contentHash), column(visits, (x) => x.v.changed), column(visits, (x) => x.v.notModified),
        column(visits, (x) => x.added), column(visits, (x) => x.removed),
      ],
    );
  }
}

/** Runs `work` on one pooled client inside BEGIN ... COMMIT, rolled back when it throws. */
/** Marks the store changed (CRAWL_STATE.dataVersion), inside the writing transaction. */
async function bumpDataVersion(client: pg.PoolClient): Promise<void> {
  await client.query('INSERT INTO crawl_state (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [
    CRAWL_STATE.dataVersion,
    newDataVersion(),
  ]);
}

export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    if (storeFailure(error)?.transient === true) {
      // A lost or unanswering connection: a ROLLBACK would wait behind the unanswered statement.
      // The connection is destroyed instead; the server rolls back a transaction whose client left.
      broken = error as Error;
    } else {
      await client.query('ROLLBACK').catch((rollbackError: unknown) => {
        broken = rollbackError as Error;
      });
    }
    throw error;
  } finally {
    client.release(broken);
  }
}
