/**
 * The embedded store: one SQLite file through better-sqlite3, in WAL mode so
 * that readers (a `wga top` from another shell) never block the crawler and
 * several processes can write in turn (a busy writer is waited for).
 * better-sqlite3 is synchronous; the Store interface is asynchronous so the
 * PostgreSQL store can stand in for it.
 */
import Database from 'better-sqlite3';
import { FileNotFoundError, WgaError } from '../errors.js';
import { buildFromEdges } from '../graph/builder.js';
import { EdgeBuffer } from '../graph/edge-buffer.js';
import type { Graph } from '../graph/graph.js';
import { TextLabels } from '../graph/labels.js';
import {
  COUNT_CONDITIONS,
  CRAWL_PAGE_COLUMNS,
  type CrawlPageRow,
  crawlPageFromRow,
  liveOpicExpression,
  type LinkRow,
  LINK_ROW_COLUMNS,
  PAGE_COLUMNS,
  VISIT_COLUMNS,
  type VisitRow,
  type StatusClass,
  statusCondition,
  roleCode,
  droppedCode,
  renderCode,
  visitFromRow,
  type PageRow,
  type RunRow,
  checkStorableUrl,
  keyOfLabel,
  kindCodes,
  linkFromRow,
  pageFromRow,
  runFromRow,
  auditValues,
} from './records.js';
import { LINK_KIND_CODES, LINK_KIND_NAMES, SQLITE_MIGRATIONS } from './schema.js';
import type { OutListBatch } from './out-lists.js';
import { sqliteOutListReader } from './sqlite-out-lists.js';
import { packCrawlBatch } from './packed-batch.js';
import { readCrawlPagesInThread, readOutListsInThread, THREAD_READ_MIN_PAGES } from './reader-threads.js';
import { configureConnection, SqliteCrawlWriter } from './sqlite-crawl-writer.js';
import { SqliteWriterThread } from './sqlite-writer-thread.js';
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

/**
 * Whether a store's checkpoints go to a writer thread: a store file does, unless WGA_SQLITE_WRITER
 * is 'inline' (to compare the two in benchmarks); an in-memory store cannot (its database is its
 * connection's alone).
 */
function writesOnThread(location: string): boolean {
  return location !== ':memory:' && location !== '' && !location.startsWith('file:') && process.env.WGA_SQLITE_WRITER !== 'inline';
}

const LINKS_TARGET_INDEX = 'CREATE INDEX links_target ON links (target, source)';

/** Pages whose links one statement of loadGraph reads. */
const LOAD_RANGE_PAGES = 200_000;

/**
 * Sources whose out-lists a reader thread reads in one statement (crawlOutLists): about 5 x 10^5
 * links on a crawl of 10 a page, whose values better-sqlite3 gives as one array (24 bytes a link).
 */
const OUT_LIST_RANGE_PAGES = 50_000;

export { THREAD_READ_MIN_PAGES };

export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  private readonly db: Database.Database;

  private constructor(
    readonly location: string,
    db: Database.Database,
  ) {
    this.db = db;
  }

  /** Opens (creating if needed) the store file and brings its schema up to date. */
  static open(path: string, options: { create?: boolean } = {}): SqliteStore {
    let db: Database.Database;
    try {
      db = new Database(path, { timeout: 30_000, fileMustExist: options.create === false });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'SQLITE_CANTOPEN') throw new FileNotFoundError(path, options.create === false ? 'no such store' : 'cannot open or create the store file');
      throw new StoreError(path, `cannot open: ${(error as Error).message}`);
    }
    try {
      db.pragma('journal_mode = WAL');
      configureConnection(db);
      const store = new SqliteStore(path, db);
      store.migrate();
      return store;
    } catch (error) {
      db.close();
      if (error instanceof WgaError) throw error;
      throw new StoreError(path, `not a usable store: ${(error as Error).message}`);
    }
  }

  private migrate(): void {
    this.db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at REAL NOT NULL)');
    const applied = new Set(this.db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
    for (const migration of SQLITE_MIGRATIONS) {
      if (applied.has(migration.version)) continue;
      this.db
        .transaction(() => {
          // Another process may have migrated meanwhile: check again inside the write lock.
          const done = this.db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(migration.version);
          if (done !== undefined) return;
          for (const statement of migration.statements) this.db.exec(statement);
          this.db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(migration.version, Date.now());
        })
        .immediate();
    }
  }

  async close(): Promise<void> {
    try {
      await this.writerThread?.close();
    } finally {
      this.db.close();
    }
  }

  async importGraph(graph: Graph, kind: LinkKind = 'anchor', onProgress?: LoadProgress): Promise<ImportReport> {
    const started = performance.now();
    const insertPage = this.db.prepare('INSERT INTO pages (url, url_key, host) VALUES (?, ?, ?) ON CONFLICT (url_key) DO NOTHING');
    const insertPageWithId = this.db.prepare('INSERT INTO pages (id, url, url_key, host) VALUES (?, ?, ?, ?)');
    const findPage = this.db.prepare('SELECT id FROM pages WHERE url_key = ?').pluck();
    const insertLink = this.db.prepare('INSERT OR IGNORE INTO links (source, target, kind, nofollow) VALUES (?, ?, ?, 0)');
    const code = LINK_KIND_CODES[kind];
    const keys = Array.from({ length: graph.nodeCount }, (_, v) => {
      const url = graph.labels.label(v);
      checkStorableUrl(url, `${this.location} (import, page ${v})`);
      return keyOfLabel(url);
    });
    const report = this.db
      .transaction(() => {
        this.bumpDataVersion();
        // Into an empty store, page v gets id v + 1 without a lookup; the index by target is
        // cheaper built once at the end than kept up to date through millions of inserts.
        const empty = this.db.prepare('SELECT 1 FROM pages LIMIT 1').get() === undefined;
        const distinct = empty && new Set(keys.map((k) => k.key)).size === keys.length;
        const rebuildIndex = graph.edgeCount > 100_000 && this.db.prepare('SELECT 1 FROM links LIMIT 1').get() === undefined;
        if (rebuildIndex) this.db.exec('DROP INDEX links_target');
        const ids = new Float64Array(graph.nodeCount);
        let pagesAdded = 0;
        for (let v = 0; v < graph.nodeCount; v++) {
          const { key, host } = keys[v]!;
          if (distinct) {
            insertPageWithId.run(v + 1, graph.labels.label(v), key, host);
            ids[v] = v + 1;
            pagesAdded++;
            continue;
          }
          const result = insertPage.run(graph.labels.label(v), key, host);
          if (result.changes === 1) {
            ids[v] = Number(result.lastInsertRowid);
            pagesAdded++;
          } else {
            ids[v] = findPage.get(key) as number;
          }
        }
        let linksAdded = 0;
        for (let u = 0; u < graph.nodeCount; u++) {
          const source = ids[u]!;
          const end = graph.outOffsets[u + 1]!;
          for (let e = graph.outOffsets[u]!; e < end; e++) {
            const target = ids[graph.outTargets[e]!]!;
            if (target !== source) linksAdded += insertLink.run(source, target, code).changes;
          }
          if (onProgress !== undefined && (u & 0x3fff) === 0) onProgress(end, graph.edgeCount === 0 ? 1 : end / graph.edgeCount);
        }
        if (rebuildIndex) this.db.exec(LINKS_TARGET_INDEX);
        return { pagesAdded, linksAdded };
      })
      .immediate();
    return { ...report, seconds: (performance.now() - started) / 1000 };
  }

  async loadGraph(filter?: readonly LinkKind[] | LinkFilter, onProgress?: LoadProgress): Promise<StoredGraph> {
    const { kinds, withoutRel } = linkFilterOf(filter);
    const codes = kindCodes(kinds);
    const placeholders = codes.map(() => '?').join(', ');
    // One read transaction: a consistent snapshot while a crawler writes. Values come through
    // pluck(), as plain numbers and strings: no object per row.
    return this.db.transaction(() => {
      const ids = this.db.prepare('SELECT id FROM pages ORDER BY id').pluck().all() as number[];
      const urls = this.db.prepare('SELECT url FROM pages ORDER BY id').pluck().all() as string[];
      const maxId = ids.length === 0 ? 0 : ids[ids.length - 1]!;
      const dense = new Int32Array(maxId + 1).fill(-1);
      ids.forEach((id, v) => (dense[id] = v));
      // withoutRel is an integer of ours, never text from outside.
      const where = `WHERE kind IN (${placeholders})${withoutRel === 0 ? '' : ` AND (rel & ${Math.trunc(withoutRel)}) = 0`}`;
      // Each link comes as one integer, source * 2^bits + target (exact below 2^53), in one scan of
      // the table: half the rows' crossings into JavaScript of a query per column.
      const bits = Math.max(1, Math.ceil(Math.log2(maxId + 1)));
      const edges = new EdgeBuffer();
      // Read in ranges of source ids (the primary key's order), so that a large graph's load can
      // say how far it is between two ranges; each range is still one statement.
      const step = Math.max(1, LOAD_RANGE_PAGES);
      if (2 * bits <= 53) {
        const shift = 2 ** bits;
        const range = this.db.prepare(`SELECT source * ${shift} + target FROM links ${where} AND source >= ? AND source < ? ORDER BY source, target, kind`).pluck();
        for (let low = 0; low <= maxId; low += step) {
          const packed = range.all(...codes, low, low + step) as number[];
          for (const value of packed) {
            const source = Math.floor(value / shift);
            edges.push(dense[source]!, dense[value - source * shift]!);
          }
          onProgress?.(edges.length, Math.min(1, (low + step) / (maxId + 1)));
        }
      } else {
        let read = 0;
        for (const [source, target] of this.db.prepare(`SELECT source, target FROM links ${where} ORDER BY source, target, kind`).raw().iterate(...codes) as Iterable<[number, number]>) {
          edges.push(dense[source]!, dense[target]!);
          if (++read % 1_000_000 === 0) onProgress?.(read, source / (maxId + 1));
        }
      }
      const { graph } = buildFromEdges(ids.length, edges, new TextLabels(urls));
      return { graph, pageIds: Float64Array.from(ids) };
    })();
  }

  async *pageBatches(batchSize = 10_000): AsyncIterable<PageRecord[]> {
    const next = this.db.prepare(`SELECT ${PAGE_COLUMNS} FROM pages WHERE id > ? ORDER BY id LIMIT ?`);
    let after = -1;
    for (;;) {
      const batch = (next.all(after, batchSize) as PageRow[]).map(pageFromRow);
      if (batch.length === 0) return;
      after = batch[batch.length - 1]!.id;
      yield batch;
    }
  }

  async *linkBatches(batchSize = 100_000): AsyncIterable<NewLink[]> {
    const next = this.db.prepare(
      'SELECT source, target, kind, nofollow, rel, hreflang, lastmod FROM links WHERE (source, target, kind) > (?, ?, ?) ORDER BY source, target, kind LIMIT ?',
    ).raw();
    let after: [number, number, number] = [-1, -1, -1];
    for (;;) {
      const rows = next.all(...after, batchSize) as Array<[number, number, number, number, number, string | null, number | null]>;
      if (rows.length === 0) return;
      const last = rows[rows.length - 1]!;
      after = [last[0], last[1], last[2]];
      yield rows.map(([source, target, kind, nofollow, rel, hreflang, lastmod]) => ({
        source, target, kind: LINK_KIND_NAMES[kind] ?? 'anchor', nofollow: nofollow === 1, rel, hreflang, lastmod,
      }));
    }
  }

  async addPages(urls: readonly string[], keys: readonly string[], depth: number | null = null, roles?: readonly PageRole[]): Promise<number[]> {
    const insert = this.db.prepare('INSERT INTO pages (url, url_key, host, depth, role) VALUES (?, ?, ?, ?, ?) ON CONFLICT (url_key) DO NOTHING');
    const find = this.db.prepare('SELECT id FROM pages WHERE url_key = ?').pluck();
    return this.db
      .transaction(() =>
        urls.map((url, i) => {
          checkStorableUrl(url, this.location);
          const key = keys[i]!;
          const result = insert.run(url, key, keyOfLabel(url).host, depth, roleCode(roles?.[i]));
          return result.changes === 1 ? Number(result.lastInsertRowid) : (find.get(key) as number);
        }),
      )
      .immediate();
  }

  async recordFetch(page: number, fetch: FetchRecord): Promise<void> {
    this.db
      .prepare(
        `UPDATE pages SET status = ?, content_type = ?, fetched_at = ?, size = ?, title = ?, fetch_error = ?,
           wire_size = ?, etag = ?, last_modified = ?, content_hash = ?, rendered = ?, links_dropped = ?,
           description = ?, h1 = ?, h1_count = ?, robots = ?, words = ?, simhash = ?, response_ms = ? WHERE id = ?`,
      )
      .run(fetch.status, fetch.contentType, fetch.fetchedAt, fetch.size, fetch.title, fetch.error, fetch.wireSize ?? null, fetch.etag ?? null, fetch.lastModified ?? null, fetch.contentHash ?? null, renderCode(fetch.rendered), droppedCode(fetch.linksDropped), ...auditValues(fetch.audit), page);
  }

  async addLinks(links: readonly NewLink[]): Promise<number> {
    const insert = this.db.prepare('INSERT OR IGNORE INTO links (source, target, kind, nofollow, rel, hreflang, lastmod) VALUES (?, ?, ?, ?, ?, ?, ?)');
    return this.db
      .transaction(() => {
        let added = 0;
        for (const link of links) {
          const rel = relOf(link);
          added += insert.run(link.source, link.target, LINK_KIND_CODES[link.kind], rel & 1, rel, link.hreflang ?? null, link.lastmod ?? null).changes;
        }
        return added;
      })
      .immediate();
  }

  async counts(): Promise<StoreCounts> {
    const count = (sql: string): number => this.db.prepare(sql).pluck().get() as number;
    return {
      pages: count('SELECT count(*) FROM pages'),
      links: count('SELECT count(*) FROM links'),
      fetched: count(`SELECT count(*) FROM pages WHERE ${COUNT_CONDITIONS.fetched}`),
      failed: count(`SELECT count(*) FROM pages WHERE ${COUNT_CONDITIONS.failed}`),
      excluded: count(`SELECT count(*) FROM pages WHERE ${COUNT_CONDITIONS.excluded}`),
      frontier: count(`SELECT count(*) FROM pages WHERE ${COUNT_CONDITIONS.frontier}`),
      runs: count('SELECT count(*) FROM runs'),
      overLinkCap: count('SELECT count(*) FROM pages WHERE links_dropped > 0'),
    };
  }

  async crawlCounts(): Promise<{ redirects: number; other: number; hosts: number }> {
    const count = (sql: string): number => this.db.prepare(sql).pluck().get() as number;
    return {
      redirects: count(`SELECT count(*) FROM pages WHERE ${COUNT_CONDITIONS.redirects}`),
      other: count(`SELECT count(*) FROM pages WHERE ${COUNT_CONDITIONS.other}`),
      hosts: count("SELECT count(DISTINCT host) FROM pages WHERE host <> ''"),
    };
  }

  async pageByUrl(url: string): Promise<PageRecord | null> {
    // By its key first (the unique index); by the URL as given only when no key matches (a scan).
    const row = (this.db.prepare(`SELECT ${PAGE_COLUMNS} FROM pages WHERE url_key = ?`).get(keyOfLabel(url).key) ??
      this.db.prepare(`SELECT ${PAGE_COLUMNS} FROM pages WHERE url = ? LIMIT 1`).get(url)) as PageRow | undefined;
    return row === undefined ? null : pageFromRow(row);
  }

  async pageById(id: number): Promise<PageRecord | null> {
    const row = this.db.prepare(`SELECT ${PAGE_COLUMNS} FROM pages WHERE id = ?`).get(id) as PageRow | undefined;
    return row === undefined ? null : pageFromRow(row);
  }

  async searchPages(text: string, options: SearchOptions = {}): Promise<PageRecord[]> {
    const limit = options.limit ?? 100;
    const sql =
      options.mode === 'prefix'
        ? `SELECT ${PAGE_COLUMNS} FROM pages WHERE substr(url, 1, length(?)) = ? ORDER BY url LIMIT ?`
        : `SELECT ${PAGE_COLUMNS} FROM pages WHERE instr(url, ?) > 0 ORDER BY id LIMIT ?`;
    const parameters = options.mode === 'prefix' ? [text, text, limit] : [text, limit];
    return (this.db.prepare(sql).all(...parameters) as PageRow[]).map(pageFromRow);
  }

  async searchByNeighbour(text: string, direction: 'in' | 'out', options: SearchOptions = {}): Promise<PageRecord[]> {
    const limit = options.limit ?? 100;
    // 'in': pages with a link to a matching page; 'out': pages a matching page links to.
    const [near, far] = direction === 'in' ? ['source', 'target'] : ['target', 'source'];
    const match = options.mode === 'prefix' ? 'substr(m.url, 1, length(?)) = ?' : 'instr(m.url, ?) > 0';
    const sql = `SELECT ${PAGE_COLUMNS.split(', ').map((c) => `p.${c}`).join(', ')} FROM pages p
      WHERE p.id IN (SELECT l.${near} FROM links l JOIN pages m ON m.id = l.${far} WHERE ${match})
      ORDER BY p.id LIMIT ?`;
    const parameters = options.mode === 'prefix' ? [text, text, limit] : [text, limit];
    return (this.db.prepare(sql).all(...parameters) as PageRow[]).map(pageFromRow);
  }

  async links(page: number, direction: 'in' | 'out', paging: LinkPaging = {}): Promise<LinkRecord[]> {
    const [self, other] = direction === 'out' ? ['source', 'target'] : ['target', 'source'];
    const rows = this.db
      .prepare(
        `SELECT p.url AS url, ${LINK_ROW_COLUMNS} FROM links l JOIN pages p ON p.id = l.${other} WHERE l.${self} = ? ORDER BY p.url, l.kind LIMIT ? OFFSET ?`,
      )
      .all(page, paging.limit ?? -1, paging.offset ?? 0) as LinkRow[];
    return rows.map(linkFromRow);
  }

  async linkCount(page: number, direction: 'in' | 'out'): Promise<number> {
    return this.db.prepare(`SELECT count(*) FROM links WHERE ${direction === 'out' ? 'source' : 'target'} = ?`).pluck().get(page) as number;
  }

  async degrees(page: number): Promise<{ inDegree: number; outDegree: number }> {
    const count = (sql: string): number => this.db.prepare(sql).pluck().get(page) as number;
    return {
      inDegree: count('SELECT count(DISTINCT source) FROM links WHERE target = ? AND source <> target'),
      outDegree: count('SELECT count(DISTINCT target) FROM links WHERE source = ? AND source <> target'),
    };
  }

  async saveRun(run: NewRun, pages: RunPages, scores: RunScores): Promise<number> {
    const pageId = runPageId(pages);
    const score = runScore(scores);
    const insertRun = this.db.prepare(
      'INSERT INTO runs (method, parameters, started_at, finished_at, iterations, residual, converged, pages) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const insertScore = this.db.prepare('INSERT INTO scores (run, page, value) VALUES (?, ?, ?)');
    const save = (): number =>
      this.db
        .transaction(() => {
          this.bumpDataVersion();
          const converged = run.converged === null ? null : run.converged ? 1 : 0;
          const id = Number(
            insertRun.run(run.method, JSON.stringify(run.parameters), run.startedAt, run.finishedAt, run.iterations, run.residual, converged, pages.length)
              .lastInsertRowid,
          );
          for (let v = 0; v < pages.length; v++) {
            const value = score(v);
            if (Number.isFinite(value)) insertScore.run(id, pageId(v), value);
          }
          return id;
        })
        .immediate();
    // A crawl saves its runs over ids 1..n. When the stored ids are exactly 1..max (pages are never
    // deleted), every page of such a range exists, and checking each score's page against the pages
    // table (a third of the insert's time) is skipped.
    if (pages instanceof Float64Array || !this.denseRange(pages.first, pages.length)) return save();
    this.db.pragma('foreign_keys = OFF');
    try {
      return save();
    } finally {
      this.db.pragma('foreign_keys = ON');
    }
  }

  /** Whether pages first .. first + length - 1 are all stored: the ids are 1..max(id) and the range within them. */
  private denseRange(first: number, length: number): boolean {
    if (length === 0) return true;
    const { count, low, high } = this.db.prepare('SELECT count(*) AS count, min(id) AS low, max(id) AS high FROM pages').get() as {
      count: number;
      low: number | null;
      high: number | null;
    };
    return low === 1 && high === count && first >= 1 && first + length - 1 <= count;
  }

  async runs(): Promise<RunRecord[]> {
    return (this.db.prepare('SELECT * FROM runs ORDER BY id').all() as RunRow[]).map(runFromRow);
  }

  async latestRun(method: string): Promise<RunRecord | null> {
    const row = this.db.prepare('SELECT * FROM runs WHERE method = ? ORDER BY id DESC LIMIT 1').get(method) as RunRow | undefined;
    return row === undefined ? null : runFromRow(row);
  }

  async scoresOf(page: number): Promise<Array<{ run: number; method: string; value: number }>> {
    return this.db
      // One look-up of (run, page) per run, in the scores' primary key (no index by page: issue 38).
      .prepare('SELECT r.id AS run, r.method AS method, s.value AS value FROM runs r CROSS JOIN scores s ON s.run = r.id AND s.page = ? ORDER BY r.id')
      .all(page) as Array<{ run: number; method: string; value: number }>;
  }

  async topPages(run: number, limit: number): Promise<Array<{ page: PageRecord; value: number }>> {
    const rows = this.db
      .prepare(
        `SELECT ${PAGE_COLUMNS.split(', ').map((c) => `p.${c}`).join(', ')}, s.value AS value FROM scores s JOIN pages p ON p.id = s.page
         WHERE s.run = ? ORDER BY s.value DESC, p.id LIMIT ?`,
      )
      .all(run, limit) as Array<PageRow & { value: number }>;
    return rows.map((row) => ({ page: pageFromRow(row), value: row.value }));
  }

  async runScores(run: number, pageIds: Float64Array): Promise<Float64Array> {
    const rows = this.db.prepare('SELECT page, value FROM scores WHERE run = ?').iterate(run) as IterableIterator<{ page: number; value: number }>;
    return alignScores(rows, pageIds);
  }

  async deleteRun(run: number): Promise<boolean> {
    return this.db
      .transaction(() => {
        this.db.prepare('DELETE FROM scores WHERE run = ?').run(run);
        this.bumpDataVersion();
        return this.db.prepare('DELETE FROM runs WHERE id = ?').run(run).changes > 0;
      })
      .immediate();
  }

  async reset(): Promise<void> {
    this.db
      .transaction(() => {
        for (const table of ['scores', 'runs', 'link_changes', 'visits', 'links', 'pages', 'crawl_state', 'sitemap_probes']) this.db.exec(`DELETE FROM ${table}`);
        this.bumpDataVersion();
      })
      .immediate();
  }

  /** Marks the store changed (CRAWL_STATE.dataVersion); called inside the writing transaction. */
  private bumpDataVersion(): void {
    this.db
      .prepare('INSERT INTO crawl_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value')
      .run(CRAWL_STATE.dataVersion, newDataVersion());
  }

  /** Checkpoints of an in-memory store: written on this connection (a second one would see another database). */
  private crawlWriter: SqliteCrawlWriter | null = null;
  /** Checkpoints of a store file: written on a thread of its own (sqlite-writer-thread.ts). */
  private writerThread: SqliteWriterThread | null = null;

  async writeCrawlBatch(batch: CrawlBatch): Promise<void> {
    for (const page of batch.pages) checkStorableUrl(page.url, this.location);
    if (writesOnThread(this.location)) {
      this.writerThread ??= new SqliteWriterThread(this.location);
      return this.writerThread.write(batch);
    }
    this.crawlWriter ??= new SqliteCrawlWriter(this.db);
    this.crawlWriter.write(packCrawlBatch(batch));
  }

  async crawlSummary(): Promise<CrawlSummary> {
    return this.db.transaction(() => ({
      pages: this.db.prepare('SELECT count(*) FROM pages').pluck().get() as number,
      seeds: this.db.prepare('SELECT url FROM pages WHERE depth = 0 ORDER BY id').pluck().all() as string[],
      redirects: this.db.prepare(`SELECT source, target FROM links WHERE kind = ${LINK_KIND_CODES.redirect}`).raw().all() as Array<[number, number]>,
      state: this.readCrawlState(),
      sitemapProbes: this.db.prepare('SELECT origin FROM sitemap_probes').pluck().all() as string[],
    }))();
  }

  async *crawlPageBatches(batchSize = 10_000): AsyncIterable<StoredCrawlPage[]> {
    // A large crawl's pages are read on a thread of their own (reader-threads.ts); the same
    // pages, in the same batches.
    const last = this.db.prepare('SELECT max(id) FROM pages').pluck().get() as number | null;
    if (!this.db.memory && last !== null && last >= THREAD_READ_MIN_PAGES) {
      yield* readCrawlPagesInThread(this.db.name, batchSize);
      return;
    }
    // Keyset pages of the id order: each batch one short read, nothing held open between them.
    const statement = this.db.prepare(`SELECT ${CRAWL_PAGE_COLUMNS} FROM pages WHERE id > ? ORDER BY id LIMIT ?`).raw();
    for (let after = 0; ; ) {
      const rows = statement.all(after, batchSize) as CrawlPageRow[];
      if (rows.length === 0) return;
      const pages = rows.map(crawlPageFromRow);
      after = pages[pages.length - 1]!.id;
      yield pages;
    }
  }

  async *crawlOutLists(kinds: readonly LinkKind[]): AsyncIterable<OutListBatch> {
    const codes = kindCodes(kinds);
    const maxId = (this.db.prepare('SELECT max(id) FROM pages').pluck().get() as number | null) ?? 0;
    // A large crawl's links are read on the reader threads (reader-threads.ts): the same lists.
    if (!this.db.memory && maxId >= THREAD_READ_MIN_PAGES) {
      yield* readOutListsInThread(this.db.name, codes, OUT_LIST_RANGE_PAGES);
      return;
    }
    const read = sqliteOutListReader(this.db, codes, maxId);
    for (let from = 0; from < maxId; from += LOAD_RANGE_PAGES) {
      const batch = read(from, from + LOAD_RANGE_PAGES);
      if (batch.sources.length > 0) yield batch;
    }
  }

  async loadCrawl(): Promise<StoredCrawl> {
    return this.db.transaction(() => {
      const rows = this.db.prepare(`SELECT ${CRAWL_PAGE_COLUMNS} FROM pages ORDER BY id`).raw().all() as CrawlPageRow[];
      const redirects = this.db.prepare(`SELECT source, target FROM links WHERE kind = ${LINK_KIND_CODES.redirect}`).raw().all() as Array<[number, number]>;
      const sitemapProbes = this.db.prepare('SELECT origin FROM sitemap_probes').pluck().all() as string[];
      return { pages: rows.map(crawlPageFromRow), redirects, state: this.readCrawlState(), sitemapProbes };
    })();
  }

  private readCrawlState(): Record<string, string> {
    const rows = this.db.prepare('SELECT key, value FROM crawl_state').raw().all() as Array<[string, string]>;
    return Object.fromEntries(rows);
  }

  async crawlState(): Promise<Record<string, string>> {
    return this.readCrawlState();
  }

  async pagesByStatus(classes: readonly StatusClass[], statuses: readonly number[], paging: { offset: number; limit: number }): Promise<{ pages: PageRecord[]; total: number }> {
    const where = statusCondition(classes, statuses).replace(/\bTRUE\b/, '1');
    const pages = (this.db.prepare(`SELECT ${PAGE_COLUMNS} FROM pages WHERE ${where} ORDER BY id LIMIT ? OFFSET ?`).all(paging.limit, paging.offset) as PageRow[]).map(pageFromRow);
    const total = this.db.prepare(`SELECT count(*) FROM pages WHERE ${where}`).pluck().get() as number;
    return { pages, total };
  }

  async liveSharedInstances(): Promise<Array<{ hostname: string; pid: number; startedAt: number }>> {
    return [];
  }

  async visits(from: number, to: number, page?: number): Promise<VisitRecord[]> {
    const rows =
      page === undefined
        ? this.db.prepare(`SELECT ${VISIT_COLUMNS} FROM visits WHERE fetched_at >= ? AND fetched_at < ? ORDER BY fetched_at, page`).all(from, to)
        : this.db.prepare(`SELECT ${VISIT_COLUMNS} FROM visits WHERE page = ? AND fetched_at >= ? AND fetched_at < ? ORDER BY fetched_at`).all(page, from, to);
    return (rows as VisitRow[]).map(visitFromRow);
  }

  async visitsBefore(time: number, to: number): Promise<VisitRecord[]> {
    const rows = this.db
      .prepare(
        `SELECT ${VISIT_COLUMNS.split(', ').map((c) => `v.${c}`).join(', ')} FROM visits v
         JOIN (SELECT page, max(fetched_at) AS at FROM visits WHERE fetched_at < ? AND page IN (SELECT page FROM visits WHERE fetched_at >= ? AND fetched_at < ?) GROUP BY page) b
           ON b.page = v.page AND b.at = v.fetched_at
         ORDER BY v.page`,
      )
      .all(time, time, to) as VisitRow[];
    return rows.map(visitFromRow);
  }

  async linkChanges(from: number, to: number, limit: number): Promise<LinkChangeRecord[]> {
    const rows = this.db
      .prepare(
        `SELECT c.at AS at, s.url AS source, t.url AS target, c.kind AS kind, c.added AS added FROM link_changes c
         JOIN pages s ON s.id = c.source JOIN pages t ON t.id = c.target
         WHERE c.at >= ? AND c.at < ? ORDER BY c.at, c.rowid LIMIT ?`,
      )
      .all(from, to, limit) as Array<{ at: number; source: string; target: string; kind: number; added: number }>;
    return rows.map((r) => ({ at: r.at, source: r.source, target: r.target, kind: LINK_KIND_NAMES[r.kind] ?? 'anchor', added: r.added === 1 }));
  }

  async visitCounts(pages?: readonly number[]): Promise<Array<{ page: number; visits: number; changes: number; first: number; last: number }>> {
    const sql = `SELECT page, count(*) AS visits, sum(CASE WHEN changed = 1 THEN 1 ELSE 0 END) AS changes, min(fetched_at) AS first, max(fetched_at) AS last
       FROM visits ${pages === undefined ? '' : 'WHERE page IN (SELECT value FROM json_each(?))'} GROUP BY page ORDER BY page`;
    const rows = (pages === undefined ? this.db.prepare(sql).all() : this.db.prepare(sql).all(JSON.stringify(pages))) as Array<{ page: number; visits: number; changes: number; first: number; last: number }>;
    return rows.map((r) => ({ page: r.page, visits: r.visits, changes: r.changes, first: r.first, last: r.last }));
  }

  async takeCrawlLock(lock: CrawlLock, canTake: (holder: CrawlLock) => boolean): Promise<CrawlLock | null> {
    return this.db
      .transaction(() => {
        const text = this.db.prepare('SELECT value FROM crawl_state WHERE key = ?').pluck().get(CRAWL_STATE.lock) as string | undefined;
        if (text !== undefined) {
          const holder = JSON.parse(text) as CrawlLock;
          if (holder.owner !== lock.owner && !canTake(holder)) return holder;
        }
        this.db
          .prepare('INSERT INTO crawl_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value')
          .run(CRAWL_STATE.lock, JSON.stringify(lock));
        return null;
      })
      .immediate();
  }

  async releaseCrawlLock(owner: string): Promise<void> {
    this.db
      .transaction(() => {
        const text = this.db.prepare('SELECT value FROM crawl_state WHERE key = ?').pluck().get(CRAWL_STATE.lock) as string | undefined;
        if (text !== undefined && (JSON.parse(text) as CrawlLock).owner === owner) this.db.prepare('DELETE FROM crawl_state WHERE key = ?').run(CRAWL_STATE.lock);
      })
      .immediate();
  }

  async liveOpicTop(limit: number): Promise<Array<{ page: PageRecord; value: number }> | null> {
    const state = parseOpicState(this.readCrawlState()[CRAWL_STATE.opic]);
    if (state === null) return null;
    const value = liveOpicExpression((name) => `@${name}`);
    const rows = this.db
      .prepare(`SELECT ${PAGE_COLUMNS}, ${value} AS value FROM pages ORDER BY value DESC, id LIMIT @limit`)
      .all({ all: state.all, unread: state.unread, focused: state.focused, clock: state.clock, limit }) as Array<PageRow & { value: number }>;
    return rows.map((row) => ({ page: pageFromRow(row), value: row.value }));
  }
}
