/**
 * A crawl shared by several crawler processes through one PostgreSQL store
 * (the Web Graph Analyzer paper, Section 4.3: "All instances use one DB"),
 * with distributed OPIC (the OPIC paper, Section 4.1). Tables, besides the
 * store's pages and links:
 * - shared_crawl: the one crawl job: its status (running, done), settings,
 *   number of partitions, lease length, and OPIC's shared globals: the
 *   virtual page's accumulator `all_pool` (see crawl/shared-ledger.ts), the
 *   clock G, what the virtual page received, the reads, the page count and
 *   the last fetch sequence number;
 * - shared_instances: one row per crawler process: heartbeat, state
 *   (working, short of work, waiting for work, finished, failed) and counters;
 * - shared_partitions: pages belong to partition hash(host) mod P; each
 *   partition has an owner whose lease expires unless renewed;
 * - shared_transfers: the OPIC paper's buffered "money transfers": cash owed
 *   to a page of a partition its sender does not hold, applied by the
 *   partition's owner at its next checkpoint;
 * - shared_news: pages an instance stored in a partition it does not hold
 *   (link targets), read (and deleted) by the partition's owner at its next
 *   checkpoint: how an owner learns the pages others found for it.
 *
 * Every checkpoint is one transaction, and instances' checkpoints run side by
 * side: nothing in one waits for another's but its last statement. It locks
 * only rows of its own: its partitions' rows (SELECT ... FOR UPDATE at the
 * start: the fencing; an instance taking partitions skips locked rows, SKIP
 * LOCKED), its pages, its instance row. Pages are inserted in one statement
 * in key order, so two instances storing the same new pages wait for each
 * other in the same order (no deadlock); a page stored first by another is
 * adopted (its stored cash joins ours). The shared globals are the one hot
 * row: shared_checkpoint_commit(), the last statement (one round trip, a
 * PL/pgSQL function), locks the job row until the commit, adds the virtual
 * page's payout to the accumulator over every page stored at the commit,
 * sets the new pages' seen_all to the accumulator before it, numbers the
 * fetches (fetch_seq, in commit order) and marks the crawl done when no page
 * waits for its first fetch. Each commit keeps the accounting exact:
 *   sum over pages of (cash + all_pool - seen_all) + sum of transfers = 1,
 * the virtual page's cash being paid out (into all_pool) in the transaction
 * that received it. The crawl's end is read from committed pages only, and a
 * checkpoint that adds pages also records the fetches that found them, so a
 * crawl is never ended while another instance's new pages are uncommitted.
 * A checkpoint also renews the instance's leases and does the balancing: an
 * instance below its fair share of partitions takes free or expired ones
 * (most unfetched pages first); an instance that holds more than its share,
 * or several partitions with work, while another waits is told to let some
 * go (crawl/shared-crawler.ts lets them go once their fetches are over). An
 * instance whose lease was taken over (it stalled longer than the lease)
 * fails its checkpoint: nothing it did since is kept.
 */
import pg from 'pg';
import { newPool } from './pg-config.js';
import { inTransaction, linkColumns } from './postgres.js';
import type { FetchRecord, NewLink, PageRole } from './store.js';
import { CRAWL_STATE, StoreError } from './store.js';
import { AUDIT_COLUMNS, auditValues, VISIT_COLUMNS, checkStorableUrl, liveOpicExpression, droppedCode, renderCode, roleCode, visitOf } from './records.js';
import { balance } from './shared-balance.js';

pg.types.setTypeParser(20, (value) => Number(value));

export const SHARED_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS shared_crawl (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    status TEXT NOT NULL,
    partitions INTEGER NOT NULL,
    lease_ms INTEGER NOT NULL,
    settings TEXT NOT NULL,
    all_pool DOUBLE PRECISION NOT NULL DEFAULT 0,
    clock DOUBLE PRECISION NOT NULL DEFAULT 0,
    virtual_received DOUBLE PRECISION NOT NULL DEFAULT 0,
    reads BIGINT NOT NULL DEFAULT 0,
    pages BIGINT NOT NULL DEFAULT 0,
    fetch_seq BIGINT NOT NULL DEFAULT 0,
    run_id BIGINT,
    started_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    finished_at TIMESTAMPTZ
  )`,
  `CREATE TABLE IF NOT EXISTS shared_instances (
    id TEXT PRIMARY KEY,
    hostname TEXT NOT NULL,
    pid INTEGER NOT NULL,
    started_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    heartbeat TIMESTAMPTZ NOT NULL DEFAULT now(),
    state TEXT NOT NULL DEFAULT 'working',
    partitions INTEGER NOT NULL DEFAULT 0,
    pages BIGINT NOT NULL DEFAULT 0,
    fetched BIGINT NOT NULL DEFAULT 0,
    requests BIGINT NOT NULL DEFAULT 0,
    transfers_sent BIGINT NOT NULL DEFAULT 0,
    transfers_applied BIGINT NOT NULL DEFAULT 0,
    rows_written BIGINT NOT NULL DEFAULT 0,
    checkpoints BIGINT NOT NULL DEFAULT 0,
    db_ms DOUBLE PRECISION NOT NULL DEFAULT 0,
    lock_ms DOUBLE PRECISION NOT NULL DEFAULT 0,
    waiting_pages BIGINT NOT NULL DEFAULT 0
  )`,
  'ALTER TABLE shared_instances ADD COLUMN IF NOT EXISTS lock_ms DOUBLE PRECISION NOT NULL DEFAULT 0',
  'ALTER TABLE shared_instances ADD COLUMN IF NOT EXISTS waiting_pages BIGINT NOT NULL DEFAULT 0',
  `CREATE TABLE IF NOT EXISTS shared_partitions (
    part INTEGER PRIMARY KEY,
    owner TEXT,
    lease_until TIMESTAMPTZ
  )`,
  `CREATE TABLE IF NOT EXISTS shared_transfers (
    id BIGSERIAL PRIMARY KEY,
    part INTEGER NOT NULL,
    target BIGINT NOT NULL REFERENCES pages (id),
    amount DOUBLE PRECISION NOT NULL
  )`,
  'CREATE INDEX IF NOT EXISTS shared_transfers_part ON shared_transfers (part)',
  'ALTER TABLE pages ADD COLUMN IF NOT EXISTS part INTEGER',
  'CREATE INDEX IF NOT EXISTS pages_part ON pages (part, id)',
  // Pages stored in a partition by an instance that does not hold it: news for its holder.
  `CREATE TABLE IF NOT EXISTS shared_news (
    id BIGSERIAL PRIMARY KEY,
    part INTEGER NOT NULL,
    page BIGINT NOT NULL
  )`,
  'CREATE INDEX IF NOT EXISTS shared_news_part ON shared_news (part)',
  'CREATE INDEX IF NOT EXISTS shared_news_page ON shared_news (page)',
  // Pages waiting for their first fetch, by partition: the crawl's end, the partitions with work.
  'CREATE INDEX IF NOT EXISTS pages_unread ON pages (part) WHERE status IS NULL AND fetch_error IS NULL',
  // The end of every checkpoint, in one round trip: the only part that waits for other instances
  // (the job row's lock, held until the commit). The virtual page's payout goes to every page
  // stored at the commit, the new ones included: they get seen_all = the accumulator before it.
  `CREATE OR REPLACE FUNCTION shared_checkpoint_commit(new_pages BIGINT[], fetched BIGINT[], paid DOUBLE PRECISION, growth DOUBLE PRECISION,
     read_count BIGINT, opic_key TEXT, settings_key TEXT) RETURNS JSON LANGUAGE plpgsql AS $fn$
   DECLARE
     j shared_crawl;
     old_all DOUBLE PRECISION;
     seq BIGINT;
     added INTEGER := coalesce(array_length(new_pages, 1), 0);
   BEGIN
     SELECT * INTO j FROM shared_crawl WHERE id = 1 FOR UPDATE;
     old_all := j.all_pool;
     seq := j.fetch_seq;
     UPDATE shared_crawl SET pages = pages + added,
       all_pool = CASE WHEN pages + added > 0 THEN all_pool + paid / (pages + added) ELSE all_pool END,
       clock = clock + growth, virtual_received = virtual_received + paid, reads = reads + read_count,
       fetch_seq = fetch_seq + coalesce(array_length(fetched, 1), 0)
     WHERE id = 1 RETURNING * INTO j;
     IF added > 0 THEN
       UPDATE pages SET seen_all = old_all WHERE id = ANY(new_pages);
     END IF;
     IF coalesce(array_length(fetched, 1), 0) > 0 THEN
       UPDATE pages p SET fetch_seq = seq + f.o FROM unnest(fetched) WITH ORDINALITY AS f (id, o) WHERE p.id = f.id;
     END IF;
     IF j.status = 'running' AND NOT EXISTS (SELECT 1 FROM pages WHERE status IS NULL AND fetch_error IS NULL) THEN
       UPDATE shared_crawl SET status = 'done', finished_at = clock_timestamp() WHERE id = 1 RETURNING * INTO j;
     END IF;
     INSERT INTO crawl_state (key, value) VALUES
       (opic_key, json_build_object('all', j.all_pool, 'unread', 0, 'focused', 0, 'clock', j.clock, 'virtualReceived', j.virtual_received, 'reads', j.reads)::text),
       (settings_key, j.settings), ('shared', 'true')
     ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE crawl_state.value IS DISTINCT FROM excluded.value;
     RETURN json_build_object('job', row_to_json(j), 'old_all', old_all, 'fetch_seq_start', seq);
   END
   $fn$`,
];

/** Pages waiting for their first fetch (the condition of the pages_unread index). */
const UNREAD = 'status IS NULL AND fetch_error IS NULL';

/** The objects the checkpoints need; a store made by an older wga lacks the last ones. */
const SHARED_OBJECTS = `SELECT to_regclass('shared_transfers') IS NOT NULL AND to_regclass('shared_news') IS NOT NULL AND to_regclass('pages_unread') IS NOT NULL
  AND to_regclass('pages_part') IS NOT NULL AND to_regproc('shared_checkpoint_commit') IS NOT NULL
  AND EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = 'shared_instances' AND column_name = 'lock_ms')
  AND EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = 'shared_instances' AND column_name = 'waiting_pages') AS ok,
  to_regclass('shared_crawl') IS NOT NULL AS old`;

/** FNV-1a of the host name, mod the partitions: the partition of a host's pages. */
export function partitionOf(hostname: string, partitions: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < hostname.length; i++) hash = Math.imul(hash ^ hostname.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % partitions;
}

export interface SharedJob {
  status: 'running' | 'done';
  partitions: number;
  leaseMs: number;
  settings: string;
  all: number;
  clock: number;
  virtualReceived: number;
  reads: number;
  pages: number;
  fetchSeq: number;
}

export interface LedgerState {
  cash: number;
  history: number;
  seenAll: number;
  lastRead: number;
  reads: number;
}

export interface SharedPageRow extends LedgerState {
  id: number;
  url: string;
  key: string;
  host: string;
  depth: number;
  part: number;
  /** Fetched already (a status or an error is stored). */
  done: boolean;
}

export interface NewSharedPage {
  local: number;
  url: string;
  key: string;
  host: string;
  depth: number;
  part: number;
  role?: PageRole;
}

/** What one checkpoint of an instance writes and asks (crawl/shared-crawler.ts builds it). */
export interface SharedCheckpoint {
  /** Partitions held at the snapshot (those being let go included). */
  held: number[];
  /** Partitions let go in this checkpoint (no fetch of theirs running since the snapshot). */
  release: number[];
  /** Partitions being let go: their transfers wait for the next holder. */
  releasing: number[];
  /** New pages of held partitions, with their OPIC state. */
  ownPages: Array<NewSharedPage & { state: LedgerState }>;
  /** New pages of other partitions (link targets), with no cash. */
  foreignPages: NewSharedPage[];
  /** Store ids of pages already stored, by local index. */
  ids: Map<number, number>;
  fetches: Array<{ local: number; part: number; record: FetchRecord; first: boolean }>;
  /** Links by local index (source, target). */
  links: NewLink[];
  /** OPIC state of stored pages that changed. */
  changed: Array<{ local: number; state: LedgerState }>;
  transfers: Array<{ local: number; part: number; amount: number }>;
  virtual: number;
  clockGrowth: number;
  reads: number;
  /** Counters to add to the instance's row. */
  counts: { fetched: number; requests: number; pages: number };
  /** No page to fetch and none running: asks for work. */
  waiting: boolean;
  /**
   * Has work, but on fewer hosts than it needs to keep its requests busy
   * (politeness limits each host): asks for partitions that instances with
   * more hosts than they need can spare.
   */
  short: boolean;
  /** The last checkpoint: let every partition go and mark the instance finished. */
  finishing: boolean;
  /** Partitions not to take again yet (let go recently). */
  avoid: number[];
  /** Unfetched pages held, by partition (for choosing what to let go). */
  workByPartition: Map<number, number>;
  /** Hosts with unfetched pages, by held partition. */
  hostsByPartition: Map<number, number>;
  /** Hosts with work the instance needs to keep its requests busy. */
  neededHosts: number;
  /** Pages waiting for their fetch in the partitions it holds (not those being let go). */
  waitingPages: number;
}

export interface SharedCheckpointResult {
  job: SharedJob;
  /** Store ids given to new pages: [local, id, seen_all, stored cash (adopted pages)]. */
  assigned: Array<[number, number, number, number]>;
  /** Pages others stored in held partitions (news), and every page of partitions taken now. */
  loaded: SharedPageRow[];
  /** Transfers applied to the instance's pages: [store id, amount]. */
  applied: Array<[number, number]>;
  acquired: number[];
  /** Partitions the instance should let go, for an instance waiting for work. */
  letGo: number[];
  rowsWritten: number;
  fetchSeqStart: number;
  /** Milliseconds of the last statement: waiting for the job row's lock and holding it (the commit aside). */
  lockMs: number;
}

export class LostLeaseError extends StoreError {}

export class SharedCrawlDb {
  private constructor(
    readonly location: string,
    private readonly pool: pg.Pool,
  ) {}

  /**
   * Opens the shared-crawl tables of a store; `create` adds them when missing (the store's owner
   * does, when a crawl is created). Joining needs only data rights on them.
   */
  static async open(url: string, location: string, options: { create?: boolean } = {}): Promise<SharedCrawlDb> {
    const pool = newPool(url, { max: 2 });
    const db = new SharedCrawlDb(location, pool);
    // DDL locks the pages table: never while instances are checkpointing, so only when something is missing:
    // a new store (its owner creates the crawl), or one whose shared tables an older wga made.
    const present = await pool.query<{ ok: boolean; old: boolean }>(SHARED_OBJECTS);
    if (present.rows[0]!.ok || (options.create !== true && !present.rows[0]!.old)) return db;
    try {
      await db.transaction(async (client) => {
        await client.query('SELECT pg_advisory_xact_lock(7244)');
        for (const statement of SHARED_SCHEMA) await client.query(statement);
      });
    } catch (error) {
      await pool.end();
      if (options.create === true) throw error;
      throw new StoreError(
        location,
        `its shared-crawl tables were made by an older wga and this role cannot add what this version needs (${(error as Error).message}); join once as the database's owner to upgrade them`,
      );
    }
    return db;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, work);
  }

  async job(): Promise<SharedJob | null> {
    const exists = await this.pool.query<{ t: string | null }>("SELECT to_regclass('shared_crawl')::text AS t");
    if (exists.rows[0]!.t === null) return null;
    const { rows } = await this.pool.query<JobRow>('SELECT * FROM shared_crawl WHERE id = 1');
    return rows.length === 0 ? null : jobFromRow(rows[0]!);
  }

  /**
   * Creates the crawl job with its seeds (one unit of cash shared among them, OPIC's initial
   * state). Refuses a store that holds pages or another crawl.
   */
  async createJob(settings: string, partitions: number, leaseMs: number, seeds: Array<Omit<NewSharedPage, 'local'>>): Promise<void> {
    await this.transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(7244)');
      const job = await client.query<JobRow>('SELECT * FROM shared_crawl');
      if (job.rows.length > 0) {
        const status = job.rows[0]!.status;
        throw new StoreError(
          this.location,
          status === 'done'
            ? 'already holds a finished shared crawl; start again after: wga reset --db URL'
            : 'already holds a shared crawl; join it with: wga crawl --join --db URL',
        );
      }
      const pages = await client.query<{ n: number }>('SELECT count(*)::bigint AS n FROM pages');
      if (pages.rows[0]!.n > 0) throw new StoreError(this.location, `holds ${pages.rows[0]!.n} pages already (another crawl or an import); crawl into an empty database`);
      await client.query('INSERT INTO shared_crawl (id, status, partitions, lease_ms, settings, pages) VALUES (1, $1, $2, $3, $4, $5)', ['running', partitions, leaseMs, settings, seeds.length]);
      await client.query('INSERT INTO shared_partitions (part) SELECT generate_series(0, $1::int - 1)', [partitions]);
      for (const seed of seeds) checkStorableUrl(seed.url, this.location);
      await client.query(
        `INSERT INTO pages (url, url_key, host, depth, part, cash, focus)
         SELECT u, k, h, d, p, $6::float8, false FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::int[]) AS s (u, k, h, d, p)`,
        [seeds.map((s) => s.url), seeds.map((s) => s.key), seeds.map((s) => s.host), seeds.map((s) => s.depth), seeds.map((s) => s.part), 1 / seeds.length],
      );
      await writeCrawlState(client, settings, { all: 0, clock: 0, virtualReceived: 0, reads: 0 });
    });
  }

  async register(id: string, hostname: string, pid: number): Promise<void> {
    await this.pool.query('INSERT INTO shared_instances (id, hostname, pid) VALUES ($1, $2, $3)', [id, hostname, pid]);
  }

  /**
   * Claims the try of an origin's /sitemap.xml: false when another instance, or an earlier session,
   * claimed it (a claim whose instance died before asking is not retried: the site's pages are crawled anyway).
   */
  async claimSitemapProbe(origin: string): Promise<boolean> {
    const { rows } = await this.pool.query(
      'INSERT INTO sitemap_probes (origin, status, probed_at) VALUES ($1, NULL, $2) ON CONFLICT (origin) DO NOTHING RETURNING origin',
      [origin, Date.now()],
    );
    return rows.length > 0;
  }

  /** What a claimed /sitemap.xml answered. */
  async sitemapProbeAnswered(origin: string, status: number | null): Promise<void> {
    await this.pool.query('UPDATE sitemap_probes SET status = $2, probed_at = $3 WHERE origin = $1', [origin, status, Date.now()]);
  }

  async markInstance(id: string, state: 'failed' | 'finished'): Promise<void> {
    await this.pool.query('UPDATE shared_instances SET state = $2, heartbeat = clock_timestamp() WHERE id = $1', [id, state]);
    await this.pool.query('UPDATE shared_partitions SET owner = NULL, lease_until = NULL WHERE owner = $1', [id]);
  }

  /**
   * One checkpoint of instance `me`, in one transaction (see the module comment). Nothing in it
   * waits for another instance's checkpoint but its last statement, shared_checkpoint_commit(),
   * which takes the job row's lock until the commit.
   */
  async checkpoint(me: string, c: SharedCheckpoint, spent: { dbMs: number; lockMs: number }): Promise<SharedCheckpointResult> {
    for (const page of [...c.ownPages, ...c.foreignPages]) checkStorableUrl(page.url, this.location);
    return this.transaction(async (client) => {
      let rowsWritten = 0;
      const run = async (text: string, values: unknown[]): Promise<pg.QueryResult> => {
        const result = await client.query(text, values);
        if (result.command !== 'SELECT') rowsWritten += result.rowCount ?? 0;
        return result;
      };
      // Fencing: every partition written must still be this instance's; its rows stay locked until the
      // commit, so nobody takes them over meanwhile (takers skip locked rows).
      const jobRow = await client.query<JobRow & { owned: number[] }>(
        `WITH mine AS (SELECT part FROM shared_partitions WHERE owner = $1 ORDER BY part FOR UPDATE)
         SELECT j.*, ARRAY(SELECT part FROM mine) AS owned FROM shared_crawl j WHERE id = 1`,
        [me],
      );
      if (jobRow.rows.length === 0) throw new StoreError(this.location, 'the shared crawl was deleted (wga reset?)');
      const job = jobFromRow(jobRow.rows[0]!);
      const leaseMs = job.leaseMs;
      const ownedSet = new Set(jobRow.rows[0]!.owned);
      const lost = c.held.filter((p) => !ownedSet.has(p));
      if (lost.length > 0) {
        throw new LostLeaseError(this.location, `this instance (${me}) lost its lease of partition${lost.length > 1 ? 's' : ''} ${lost.slice(0, 10).join(', ')} (it stalled longer than the lease, ${leaseMs} ms); another instance took over; leaving without writing`);
      }
      const ids = c.ids;
      const assigned: SharedCheckpointResult['assigned'] = [];
      const loaded: SharedPageRow[] = [];
      const adopted: Array<{ local: number; id: number; seenAll: number; cash: number; state: LedgerState }> = [];
      const ownByKey = new Map(c.ownPages.map((p) => [p.key, p]));
      const adopt = (row: { id: number; key: string; seenAll: number; cash: number }): boolean => {
        const mine = ownByKey.get(row.key);
        if (mine === undefined) return false;
        ownByKey.delete(row.key);
        ids.set(mine.local, row.id);
        adopted.push({ local: mine.local, id: row.id, seenAll: row.seenAll, cash: row.cash, state: mine.state });
        assigned.push([mine.local, row.id, row.seenAll, row.cash]);
        return true;
      };
      // The news of my partitions: pages others stored in them (a new page of mine with the same key is that page).
      if (c.held.length > 0) {
        const news = await client.query<PageRowRaw>({
          text: `WITH n AS (DELETE FROM shared_news WHERE part = ANY($1::int[]) RETURNING page)
                 SELECT ${SHARED_PAGE_COLUMNS} FROM pages WHERE id IN (SELECT page FROM n) ORDER BY id`,
          values: [c.held],
          rowMode: 'array',
        });
        rowsWritten += news.rows.length;
        for (const raw of news.rows) {
          const row = sharedPageFromRow(raw);
          if (!adopt(row)) loaded.push(row);
        }
      }
      // New pages, mine and others', in one statement in key order (two instances inserting the same keys
      // wait for each other in the same order: no deadlock). Pages of partitions I do not hold are news
      // for their holder. Their seen_all is set by shared_checkpoint_commit(), under the job's lock.
      const own = [...ownByKey.values()];
      const fresh = [
        ...own.map((p) => ({ page: p as NewSharedPage, state: p.state, news: false })),
        ...c.foreignPages.map((p) => ({ page: p, state: null, news: true })),
      ];
      const newIds: number[] = [];
      const newLocals: number[] = [];
      if (fresh.length > 0) {
        const st = (pick: (s: LedgerState) => number): number[] => fresh.map((f) => (f.state === null ? 0 : pick(f.state)));
        const inserted = await run(
          `WITH s AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::int[], $6::float8[], $7::float8[], $8::float8[], $9::int[], $10::boolean[], $11::smallint[])
                        AS s (u, k, h, d, p, c, hi, lr, r, news, role)),
                ins AS (INSERT INTO pages (url, url_key, host, depth, part, focus, cash, history, last_read, reads, seen_all, role)
                        SELECT u, k, h, d, p, false, c, hi, lr, r, 0, role FROM s ORDER BY k
                        ON CONFLICT (url_key) DO NOTHING RETURNING id, url_key, part),
                n AS (INSERT INTO shared_news (part, page) SELECT ins.part, ins.id FROM ins JOIN s ON s.k = ins.url_key WHERE s.news)
           SELECT id, url_key FROM ins`,
          [
            fresh.map((f) => f.page.url), fresh.map((f) => f.page.key), fresh.map((f) => f.page.host), fresh.map((f) => f.page.depth), fresh.map((f) => f.page.part),
            st((s) => s.cash), st((s) => s.history), st((s) => s.lastRead), st((s) => s.reads), fresh.map((f) => f.news),
            fresh.map((f) => roleCode(f.page.role)),
          ],
        );
        const byKey = new Map((inserted.rows as Array<{ id: number; url_key: string }>).map((r) => [r.url_key, Number(r.id)]));
        const missing: string[] = [];
        for (const f of fresh) {
          const id = byKey.get(f.page.key);
          if (id === undefined) {
            missing.push(f.page.key);
            continue;
          }
          ids.set(f.page.local, id);
          newIds.push(id);
          newLocals.push(f.page.local);
          if (f.state !== null) ownByKey.delete(f.page.key);
        }
        // Stored by someone else first (committed before or while we inserted): mine are adopted.
        if (missing.length > 0) {
          const existing = await client.query<{ id: number; url_key: string; seen_all: number; cash: number }>('SELECT id, url_key, seen_all, cash FROM pages WHERE url_key = ANY($1::text[])', [missing]);
          const found = new Map(existing.rows.map((r) => [r.url_key, r]));
          for (const f of fresh) {
            const id = byKey.get(f.page.key);
            if (id !== undefined) continue;
            const row = found.get(f.page.key);
            if (row === undefined) throw new StoreError(this.location, `internal error: page ${f.page.key.slice(0, 200)} was not stored`);
            if (f.state !== null) adopt({ id: Number(row.id), key: row.url_key, seenAll: row.seen_all, cash: row.cash });
            else {
              ids.set(f.page.local, Number(row.id));
              assigned.push([f.page.local, Number(row.id), -1, 0]);
            }
          }
        }
      }
      const idOf = (local: number): number => {
        const id = ids.get(local);
        if (id === undefined) throw new StoreError(this.location, `internal error: no store id for local page ${local}`);
        return id;
      };
      // Fetch results and OPIC states (adopted pages: their stored cash joins ours, their seen_all stays), one
      // update per page even when it was both fetched and credited (the fetch_seq, the crawl-wide order,
      // is given under the job's lock).
      const fetchedIds = c.fetches.map((x) => idOf(x.local));
      const updates = new Map<number, { fetch: FetchRecord | null; state: LedgerState | null }>();
      c.fetches.forEach((x, k) => updates.set(fetchedIds[k]!, { fetch: x.record, state: null }));
      const states = [
        ...c.changed.map((x) => ({ id: idOf(x.local), state: x.state })),
        ...adopted.map((a) => ({ id: a.id, state: { ...a.state, cash: a.state.cash + a.cash, seenAll: a.seenAll } })),
      ];
      for (const { id, state: st } of states) {
        const u = updates.get(id);
        if (u === undefined) updates.set(id, { fetch: null, state: st });
        else u.state = st;
      }
      if (updates.size > 0) {
        const u = [...updates];
        const f = <T,>(pick: (r: FetchRecord) => T): Array<T | null> => u.map(([, x]) => (x.fetch === null ? null : pick(x.fetch)));
        const o = (pick: (st: LedgerState) => number): Array<number | null> => u.map(([, x]) => (x.state === null ? null : pick(x.state)));
        await run(
          `UPDATE pages p SET
             status = CASE WHEN u.fetched THEN u.status ELSE p.status END, content_type = CASE WHEN u.fetched THEN u.content_type ELSE p.content_type END,
             fetched_at = CASE WHEN u.fetched THEN u.fetched_at ELSE p.fetched_at END, size = CASE WHEN u.fetched THEN u.size ELSE p.size END,
             title = CASE WHEN u.fetched THEN u.title ELSE p.title END, fetch_error = CASE WHEN u.fetched THEN u.fetch_error ELSE p.fetch_error END,
             wire_size = CASE WHEN u.fetched THEN u.wire_size ELSE p.wire_size END, etag = CASE WHEN u.fetched THEN u.etag ELSE p.etag END,
             last_modified = CASE WHEN u.fetched THEN u.last_modified ELSE p.last_modified END,
             content_hash = CASE WHEN u.fetched THEN u.content_hash ELSE p.content_hash END,
             rendered = CASE WHEN u.fetched THEN u.rendered ELSE p.rendered END,
             links_dropped = CASE WHEN u.fetched THEN u.links_dropped ELSE p.links_dropped END,
             description = CASE WHEN u.fetched THEN u.description ELSE p.description END, h1 = CASE WHEN u.fetched THEN u.h1 ELSE p.h1 END,
             h1_count = CASE WHEN u.fetched THEN u.h1_count ELSE p.h1_count END, robots = CASE WHEN u.fetched THEN u.robots ELSE p.robots END,
             words = CASE WHEN u.fetched THEN u.words ELSE p.words END, simhash = CASE WHEN u.fetched THEN u.simhash ELSE p.simhash END,
             response_ms = CASE WHEN u.fetched THEN u.response_ms ELSE p.response_ms END,
             cash = coalesce(u.cash, p.cash), history = coalesce(u.history, p.history), last_read = coalesce(u.last_read, p.last_read),
             reads = coalesce(u.reads, p.reads), seen_all = coalesce(u.seen_all, p.seen_all)
           FROM unnest($1::bigint[], $2::boolean[], $3::int[], $4::text[], $5::float8[], $6::bigint[], $7::text[], $8::text[],
                       $9::float8[], $10::float8[], $11::float8[], $12::int[], $13::float8[], $14::bigint[], $15::text[], $16::text[], $17::text[], $18::smallint[], $19::int[],
                       $20::text[], $21::text[], $22::int[], $23::smallint[], $24::int[], $25::text[], $26::real[])
             AS u (id, fetched, status, content_type, fetched_at, size, title, fetch_error, cash, history, last_read, reads, seen_all,
                   wire_size, etag, last_modified, content_hash, rendered, links_dropped, description, h1, h1_count, robots, words, simhash, response_ms)
           WHERE p.id = u.id`,
          [
            u.map(([id]) => id), u.map(([, x]) => x.fetch !== null),
            f((r) => r.status), f((r) => r.contentType), f((r) => r.fetchedAt), f((r) => r.size), f((r) => r.title), f((r) => r.error),
            o((st) => st.cash), o((st) => st.history), o((st) => st.lastRead), o((st) => st.reads), o((st) => st.seenAll),
            f((r) => r.wireSize ?? null), f((r) => r.etag ?? null), f((r) => r.lastModified ?? null), f((r) => r.contentHash ?? null),
            f((r) => renderCode(r.rendered)),
            f((r) => droppedCode(r.linksDropped)),
            ...AUDIT_COLUMNS.map((_, k) => f((r) => auditValues(r.audit)[k]!)),
          ],
        );
      }
      if (c.fetches.length > 0) {
        // Each fetch a visit (a shared crawl reads each page once: its first visit).
        const v = c.fetches.map((x, k) => ({ id: fetchedIds[k]!, visit: visitOf(x.record, undefined) }));
        await run(
          `INSERT INTO visits (${VISIT_COLUMNS})
           SELECT * FROM unnest($1::bigint[], $2::float8[], $3::int[], $4::text[], $5::text[], $6::boolean[], $7::boolean[], $8::int[], $9::int[])`,
          [
            v.map((x) => x.id), v.map((x) => x.visit.fetchedAt), v.map((x) => x.visit.status), v.map((x) => x.visit.error), v.map((x) => x.visit.contentHash),
            v.map((x) => x.visit.changed), v.map((x) => x.visit.notModified), v.map(() => 0), v.map(() => 0),
          ],
        );
      }
      if (c.links.length > 0) {
        await run(
          `INSERT INTO links (source, target, kind, nofollow, rel, hreflang, lastmod)
           SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::smallint[], $4::boolean[], $5::smallint[], $6::text[], $7::float8[]) ON CONFLICT DO NOTHING`,
          linkColumns(c.links.map((x) => ({ ...x, source: idOf(x.source), target: idOf(x.target) }))),
        );
      }
      if (c.transfers.length > 0) {
        const t = c.transfers;
        await run('INSERT INTO shared_transfers (part, target, amount) SELECT * FROM unnest($1::int[], $2::bigint[], $3::float8[])', [
          t.map((x) => x.part), t.map((x) => idOf(x.local)), t.map((x) => x.amount),
        ]);
      }
      // Leases: let go (all of them at the end), renew the others.
      const released = new Set(c.release);
      await run(
        `UPDATE shared_partitions SET
           owner = CASE WHEN part = ANY($2::int[]) OR $3 THEN NULL ELSE owner END,
           lease_until = CASE WHEN part = ANY($2::int[]) OR $3 THEN NULL ELSE clock_timestamp() + $4 * interval '1 millisecond' END
         WHERE owner = $1`,
        [me, c.release, c.finishing, leaseMs],
      );
      const keep = c.finishing ? [] : c.held.filter((p) => !released.has(p));
      const state = c.finishing ? 'finished' : c.waiting ? 'waiting' : c.short ? 'short' : 'working';
      const acquired: number[] = [];
      const letGo: number[] = [];
      if (!c.finishing && job.status === 'running') {
        // The free partitions with work, and the live instances with their states and waiting pages.
        const census = await client.query<{ free: number; alive: Array<{ id: string; state: string; waiting: number }> }>(
          `SELECT (SELECT count(*)::bigint FROM shared_partitions sp WHERE (owner IS NULL OR lease_until < clock_timestamp())
                     AND EXISTS (SELECT 1 FROM pages p WHERE p.part = sp.part AND ${UNREAD})) AS free,
                  coalesce((SELECT json_agg(json_build_object('id', id, 'state', state, 'waiting', waiting_pages)) FROM shared_instances
                            WHERE state IN ('working', 'waiting', 'short') AND heartbeat > clock_timestamp() - $1 * interval '1 millisecond'), '[]'::json) AS alive`,
          [leaseMs],
        );
        const decision = balance(
          {
            state: c.waiting ? 'waiting' : c.short ? 'short' : 'working',
            keep,
            workByPartition: c.workByPartition,
            hostsByPartition: c.hostsByPartition,
            neededHosts: c.neededHosts,
            waitingPages: c.waitingPages,
          },
          {
            partitions: job.partitions,
            freeWithWork: Number(census.rows[0]!.free),
            others: census.rows[0]!.alive.filter((r) => r.id !== me).map((r) => ({ state: r.state, waitingPages: Number(r.waiting) })),
          },
        );
        const { want, fair } = decision;
        if (want > 0) {
          // Those with the most pages to fetch first; rows another instance is taking are skipped, not waited for.
          const taken = await run(
            `UPDATE shared_partitions SET owner = $1, lease_until = clock_timestamp() + $2 * interval '1 millisecond'
             WHERE part IN (SELECT part FROM shared_partitions sp WHERE (owner IS NULL OR lease_until < clock_timestamp()) AND NOT (part = ANY($3::int[]))
                              AND ($5 OR EXISTS (SELECT 1 FROM pages p WHERE p.part = sp.part AND ${UNREAD}))
                            ORDER BY (SELECT count(*) FROM pages p WHERE p.part = sp.part AND ${UNREAD}) DESC, part LIMIT $4 FOR UPDATE SKIP LOCKED)
             RETURNING part`,
            // A waiting instance may take back what it let go: it has nothing else to do.
            [me, leaseMs, [...(c.waiting ? [] : c.avoid), ...keep, ...c.release], want, keep.length < fair],
          );
          for (const row of taken.rows as Array<{ part: number }>) acquired.push(row.part);
        }
        letGo.push(...decision.letGo);
      }
      // Every page of the partitions taken now (their news is in it, or comes at the next checkpoint).
      if (acquired.length > 0) {
        const rows = await client.query<PageRowRaw>({
          text: `WITH d AS (DELETE FROM shared_news WHERE part = ANY($1::int[])) SELECT ${SHARED_PAGE_COLUMNS} FROM pages WHERE part = ANY($1::int[]) ORDER BY id`,
          values: [acquired],
          rowMode: 'array',
        });
        for (const raw of rows.rows) loaded.push(sharedPageFromRow(raw));
      }
      // The transfers owed to every page held.
      const holding = [...keep, ...acquired];
      const releasing = new Set(c.releasing);
      const receiving = holding.filter((p) => !releasing.has(p));
      const applied: Array<[number, number]> = [];
      let transfersApplied = 0;
      if (receiving.length > 0) {
        const moved = await run(
          // Not yet those to pages whose news came after this checkpoint read it: they come with their page, next time.
          `WITH t AS (DELETE FROM shared_transfers st WHERE part = ANY($1::int[]) AND NOT EXISTS (SELECT 1 FROM shared_news n WHERE n.page = st.target)
                      RETURNING target, amount),
                s AS (SELECT target, sum(amount) AS amount, count(*) AS n FROM t GROUP BY target),
                u AS (UPDATE pages p SET cash = p.cash + s.amount FROM s WHERE p.id = s.target RETURNING p.id)
           SELECT s.target, s.amount, s.n FROM s`,
          [receiving],
        );
        let n = 0;
        for (const row of moved.rows as Array<{ target: number; amount: number; n: number }>) {
          applied.push([row.target, row.amount]);
          n += row.n;
        }
        rowsWritten += applied.length + n;
        transfersApplied = n;
      }
      if (c.finishing) await applyUnownedTransfers(client);
      // The instance's heartbeat, state and counters (the heartbeat others judge it by).
      rowsWritten += 1;
      await client.query(
        `UPDATE shared_instances SET heartbeat = clock_timestamp(), state = $2, pages = pages + $3, fetched = fetched + $4, requests = requests + $5,
           transfers_sent = transfers_sent + $6, checkpoints = checkpoints + 1, db_ms = db_ms + $7, transfers_applied = transfers_applied + $8,
           partitions = $9, rows_written = rows_written + $10, lock_ms = lock_ms + $11, waiting_pages = $12 WHERE id = $1`,
        [me, state, c.counts.pages, c.counts.fetched, c.counts.requests, c.transfers.length, spent.dbMs, transfersApplied, holding.length, rowsWritten, spent.lockMs, c.waitingPages],
      );
      // Last, under the job row's lock until the commit: the shared globals, the new pages' seen_all, the fetch order, the end.
      const lockStarted = performance.now();
      const tail = await client.query<{ r: { job: JobRow; old_all: number; fetch_seq_start: number } }>(
        'SELECT shared_checkpoint_commit($1::bigint[], $2::bigint[], $3::float8, $4::float8, $5::bigint, $6::text, $7::text) AS r',
        [newIds, fetchedIds, c.virtual, c.clockGrowth, c.reads, CRAWL_STATE.opic, CRAWL_STATE.settings],
      );
      const lockMs = performance.now() - lockStarted;
      const { job: jobAfter, old_all: oldAll, fetch_seq_start: fetchSeqStart } = tail.rows[0]!.r;
      rowsWritten += 1 + newIds.length + fetchedIds.length;
      for (let k = 0; k < newIds.length; k++) assigned.push([newLocals[k]!, newIds[k]!, oldAll, 0]);
      // Pages stored by this checkpoint and loaded with a partition taken in it were read before their seen_all was set.
      const added = new Set(newIds);
      for (const row of loaded) if (added.has(row.id)) row.seenAll = oldAll;
      return { job: jobFromRow(jobAfter), assigned, loaded, applied, acquired, letGo, rowsWritten, fetchSeqStart: Number(fetchSeqStart), lockMs };
    });
  }

  /**
   * The last instance out saves OPIC's estimates as a run: (H + C) / (G + 1) with C the page's
   * cash, what the virtual page owes it and the transfers not yet applied to it. Once the crawl is
   * done nothing changes these values, so the first instance out saves it; the others return null.
   */
  async saveRun(startedAt: number, damping: number): Promise<number | null> {
    return this.transaction(async (client) => {
      const row = (await client.query<JobRow & { run_id: number | null }>('SELECT * FROM shared_crawl WHERE id = 1 FOR UPDATE')).rows[0]!;
      if (row.run_id !== null || row.status !== 'done') return null;
      const job = jobFromRow(row);
      const run = await client.query<{ id: number }>(
        `INSERT INTO runs (method, parameters, started_at, finished_at, iterations, residual, converged, pages)
         VALUES ('opic', $1, $2, $3, $4, $5, NULL, $6) RETURNING id`,
        [JSON.stringify({ source: 'crawl', shared: true, strategy: 'greedy', damping, reads: job.reads }), startedAt, Date.now(), job.reads, job.clock > 0 ? 1 / job.clock : null, job.pages],
      );
      const id = run.rows[0]!.id;
      const value = liveOpicExpression((name) => ({ all: '$2::float8', unread: '0', focused: '0', clock: '$3::float8' })[name]);
      await client.query(
        `INSERT INTO scores (run, page, value)
         SELECT $1, p.id, ${value.replace('(history + cash', '(p.history + p.cash + coalesce(t.amount, 0)')}
         FROM pages p LEFT JOIN (SELECT target, sum(amount) AS amount FROM shared_transfers GROUP BY target) t ON t.target = p.id`,
        [id, job.all, job.clock],
      );
      await client.query('UPDATE shared_crawl SET run_id = $1 WHERE id = 1', [id]);
      return id;
    });
  }

  /**
   * The total cash, read in one snapshot: every page's cash and what the virtual page owes it,
   * plus the transfers not applied yet. 1 to rounding at every commit.
   */
  async totalCash(): Promise<{ pages: number; transfers: number; total: number }> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const job = await client.query<{ all_pool: number }>('SELECT all_pool FROM shared_crawl WHERE id = 1');
      const all = job.rows[0]?.all_pool ?? 0;
      const pages = await client.query<{ s: number }>('SELECT coalesce(sum(cash + $1::float8 - seen_all), 0) AS s FROM pages', [all]);
      const transfers = await client.query<{ s: number }>('SELECT coalesce(sum(amount), 0) AS s FROM shared_transfers');
      await client.query('COMMIT');
      const p = Number(pages.rows[0]!.s);
      const t = Number(transfers.rows[0]!.s);
      return { pages: p, transfers: t, total: p + t };
    } finally {
      client.release();
    }
  }

  async instances(): Promise<SharedInstanceRow[]> {
    return sharedInstances(this.pool);
  }
}

export interface SharedInstanceRow {
  id: string;
  hostname: string;
  pid: number;
  state: string;
  heartbeat: number;
  partitions: number;
  pages: number;
  fetched: number;
  requests: number;
  transfersSent: number;
  transfersApplied: number;
  rowsWritten: number;
  checkpoints: number;
  dbMs: number;
  lockMs: number;
}

/** The instances of the shared crawl in a store (none when it holds no shared crawl). */
export async function sharedInstances(pool: pg.Pool | pg.Client): Promise<SharedInstanceRow[]> {
  const exists = await pool.query<{ t: string | null }>("SELECT to_regclass('shared_instances')::text AS t");
  if (exists.rows[0]!.t === null) return [];
  const { rows } = await pool.query<Record<string, unknown>>('SELECT * FROM shared_instances ORDER BY started_at, id');
  return rows.map((r) => ({
    id: String(r.id),
    hostname: String(r.hostname),
    pid: Number(r.pid),
    state: String(r.state),
    heartbeat: (r.heartbeat as Date).getTime(),
    partitions: Number(r.partitions),
    pages: Number(r.pages),
    fetched: Number(r.fetched),
    requests: Number(r.requests),
    transfersSent: Number(r.transfers_sent),
    transfersApplied: Number(r.transfers_applied),
    rowsWritten: Number(r.rows_written),
    checkpoints: Number(r.checkpoints),
    dbMs: Number(r.db_ms),
    lockMs: Number(r.lock_ms),
  }));
}

/**
 * Transfers to partitions nobody holds (let go) go straight to their pages. The partitions' rows are
 * locked (skipping those another instance is taking), so that no new holder loads the pages meanwhile.
 */
async function applyUnownedTransfers(client: pg.PoolClient): Promise<void> {
  await client.query(
    `WITH free AS (SELECT part FROM shared_partitions WHERE owner IS NULL FOR UPDATE SKIP LOCKED),
          t AS (DELETE FROM shared_transfers st USING free WHERE st.part = free.part RETURNING st.target, st.amount),
          s AS (SELECT target, sum(amount) AS amount FROM t GROUP BY target)
     UPDATE pages p SET cash = p.cash + s.amount FROM s WHERE p.id = s.target`,
  );
}

/** The globals in crawl_state as the one-process crawler keeps them, so `wga top --db` reads them alike. */
async function writeCrawlState(client: pg.PoolClient, settings: string, g: { all: number; clock: number; virtualReceived: number; reads: number }): Promise<void> {
  const opic = JSON.stringify({ all: g.all, unread: 0, focused: 0, clock: g.clock, virtualReceived: g.virtualReceived, reads: g.reads });
  await client.query(
    `INSERT INTO crawl_state (key, value) VALUES ($1, $2), ($3, $4), ('shared', 'true')
     ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    [CRAWL_STATE.opic, opic, CRAWL_STATE.settings, settings],
  );
}

interface JobRow {
  status: string;
  partitions: number;
  lease_ms: number;
  settings: string;
  all_pool: number;
  clock: number;
  virtual_received: number;
  reads: number;
  pages: number;
  fetch_seq: number;
}

function jobFromRow(row: JobRow): SharedJob {
  return {
    status: row.status === 'done' ? 'done' : 'running',
    partitions: row.partitions,
    leaseMs: row.lease_ms,
    settings: row.settings,
    all: row.all_pool,
    clock: row.clock,
    virtualReceived: row.virtual_received,
    reads: Number(row.reads),
    pages: Number(row.pages),
    fetchSeq: Number(row.fetch_seq),
  };
}

const SHARED_PAGE_COLUMNS = 'id, url, url_key, host, depth, part, status, fetch_error, cash, history, seen_all, last_read, reads';
type PageRowRaw = [number, string, string, string, number | null, number, number | null, string | null, number, number, number, number, number];

function sharedPageFromRow(row: PageRowRaw): SharedPageRow {
  const [id, url, key, host, depth, part, status, error, cash, history, seenAll, lastRead, reads] = row;
  return { id: Number(id), url, key, host, depth: depth ?? 0, part, done: status !== null || error !== null, cash, history, seenAll, lastRead, reads: Number(reads) };
}
