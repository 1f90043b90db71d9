/**
 * The schema, as numbered migrations for each database. A store records the
 * migrations it has applied in `schema_migrations` and applies the missing
 * ones in order, each in its own transaction.
 *
 * pages: one row per normalised URL (url_key), with what the last fetch
 *   found and what the crawler needs (OPIC's cash, history and last-read
 *   clock, the depth at which the page was found).
 * links: each (source, target, kind) once; kind 0 anchor, 1 redirect, 2 canonical (3-8 from version 3).
 * runs and scores: an analysis run and the value it gave every page, so that
 *   PageRank, Monte Carlo, OPIC, TrafficRank, HOTness, levels, SCC ids... can
 *   be stored, compared and queried later.
 * crawl_state: key/value settings and counters of a crawl.
 * Version 2 adds what a crawl needs to stop and resume exactly: OPIC's raw
 * state per page (the pool counters it has seen, see analysis/opic.ts), the
 * focus flag, the order of fetches, and Adaptive OPIC's interpolated history.
 * Version 3 adds what the real web needs: the kinds of link beyond the first
 * three, each link's rel tokens (bits), hreflang and sitemap lastmod; per page
 * the bytes on the wire, the validators (ETag, Last-Modified) and a digest of
 * the body, and whether it is a sitemap; every fetch as a visit (changed or
 * not, links added and removed), and the links each re-read added or removed.
 * Version 4 adds whether a page was rendered in a browser (--render): null, or 1 settled, 2 unsettled,
 * 3 failed (RENDER_CODES).
 * Version 5 adds, per page, the links to targets past --max-links-per-page that were not kept (null: none).
 * Version 6 adds sitemap_probes: the origins whose /sitemap.xml a crawl has tried (robots.txt naming
 * no sitemap), with the status it answered, so that neither a resumed crawl nor another instance of a
 * shared one asks again, and an audit knows whether a site has a sitemap.
 * Version 7 adds what a site audit reads of a page. SQLite's version 8 drops the index of scores by
 * page: a page's scores are looked up run by run in the primary key (run, page).
 */
import type { LinkKind, PageRole, RenderOutcome } from './store.js';

export const LINK_KIND_CODES: Record<LinkKind, number> = { anchor: 0, redirect: 1, canonical: 2, area: 3, frame: 4, iframe: 5, refresh: 6, alternate: 7, sitemap: 8 };
export const LINK_KIND_NAMES: readonly LinkKind[] = ['anchor', 'redirect', 'canonical', 'area', 'frame', 'iframe', 'refresh', 'alternate', 'sitemap'];
export const PAGE_ROLE_CODES: Record<PageRole, number> = { page: 0, sitemap: 1 };
export const RENDER_CODES: Record<RenderOutcome, number> = { settled: 1, unsettled: 2, failed: 3 };

export interface Migration {
  version: number;
  description: string;
  statements: string[];
}

export const SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'pages, links, runs, scores, crawl state',
    statements: [
      `CREATE TABLE pages (
        id INTEGER PRIMARY KEY,
        url TEXT NOT NULL,
        url_key TEXT NOT NULL UNIQUE,
        host TEXT NOT NULL DEFAULT '',
        status INTEGER,
        content_type TEXT,
        fetched_at REAL,
        size INTEGER,
        title TEXT,
        fetch_error TEXT,
        depth INTEGER,
        cash REAL NOT NULL DEFAULT 0,
        history REAL NOT NULL DEFAULT 0,
        last_read REAL NOT NULL DEFAULT 0,
        reads INTEGER NOT NULL DEFAULT 0
      )`,
      'CREATE INDEX pages_host ON pages (host)',
      `CREATE TABLE links (
        source INTEGER NOT NULL REFERENCES pages (id),
        target INTEGER NOT NULL REFERENCES pages (id),
        kind INTEGER NOT NULL DEFAULT 0,
        nofollow INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (source, target, kind)
      ) WITHOUT ROWID`,
      'CREATE INDEX links_target ON links (target, source)',
      `CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        method TEXT NOT NULL,
        parameters TEXT NOT NULL,
        started_at REAL NOT NULL,
        finished_at REAL NOT NULL,
        iterations REAL,
        residual REAL,
        converged INTEGER,
        pages INTEGER NOT NULL DEFAULT 0
      )`,
      `CREATE TABLE scores (
        run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        page INTEGER NOT NULL REFERENCES pages (id),
        value REAL NOT NULL,
        PRIMARY KEY (run, page)
      ) WITHOUT ROWID`,
      'CREATE INDEX scores_run_value ON scores (run, value DESC)',
      'CREATE INDEX scores_page ON scores (page)',
      'CREATE TABLE crawl_state (key TEXT PRIMARY KEY, value TEXT NOT NULL)',
    ],
  },
  {
    version: 2,
    description: 'crawler state per page: OPIC pool marks, focus, fetch order, interpolated history',
    statements: [
      'ALTER TABLE pages ADD COLUMN seen_all REAL NOT NULL DEFAULT 0',
      'ALTER TABLE pages ADD COLUMN seen_unread REAL NOT NULL DEFAULT 0',
      'ALTER TABLE pages ADD COLUMN seen_focus REAL NOT NULL DEFAULT 0',
      'ALTER TABLE pages ADD COLUMN focus INTEGER NOT NULL DEFAULT 0',
      'ALTER TABLE pages ADD COLUMN fetch_seq INTEGER',
      'ALTER TABLE pages ADD COLUMN window_history REAL NOT NULL DEFAULT 0',
    ],
  },
  {
    version: 3,
    description: 'link kinds, rel, hreflang and lastmod; wire size, validators, digest and role of pages; visits and link changes',
    statements: [
      'ALTER TABLE links ADD COLUMN rel INTEGER NOT NULL DEFAULT 0',
      'ALTER TABLE links ADD COLUMN hreflang TEXT',
      'ALTER TABLE links ADD COLUMN lastmod REAL',
      'UPDATE links SET rel = 1 WHERE nofollow <> 0',
      'ALTER TABLE pages ADD COLUMN wire_size INTEGER',
      'ALTER TABLE pages ADD COLUMN etag TEXT',
      'ALTER TABLE pages ADD COLUMN last_modified TEXT',
      'ALTER TABLE pages ADD COLUMN content_hash TEXT',
      'ALTER TABLE pages ADD COLUMN role INTEGER NOT NULL DEFAULT 0',
      // Keyed by (page, time) without a rowid (two B-trees per visit, not three: every fetch writes one).
      `CREATE TABLE visits (
        page INTEGER NOT NULL REFERENCES pages (id),
        fetched_at REAL NOT NULL,
        status INTEGER,
        fetch_error TEXT,
        content_hash TEXT,
        changed INTEGER,
        not_modified INTEGER NOT NULL DEFAULT 0,
        links_added INTEGER NOT NULL DEFAULT 0,
        links_removed INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (page, fetched_at)
      ) WITHOUT ROWID`,
      'CREATE INDEX visits_time ON visits (fetched_at)',
      `CREATE TABLE link_changes (
        at REAL NOT NULL,
        source INTEGER NOT NULL REFERENCES pages (id),
        target INTEGER NOT NULL REFERENCES pages (id),
        kind INTEGER NOT NULL,
        added INTEGER NOT NULL
      )`,
      'CREATE INDEX link_changes_time ON link_changes (at)',
    ],
  },
  {
    version: 4,
    description: 'whether a page was rendered in a browser',
    statements: ['ALTER TABLE pages ADD COLUMN rendered INTEGER'],
  },
  {
    version: 5,
    description: 'links a page had past --max-links-per-page',
    statements: ['ALTER TABLE pages ADD COLUMN links_dropped INTEGER'],
  },
  {
    version: 6,
    description: 'origins whose /sitemap.xml was tried',
    statements: ['CREATE TABLE sitemap_probes (origin TEXT PRIMARY KEY, status INTEGER, probed_at REAL NOT NULL)'],
  },
  {
    version: 7,
    description: 'what a site audit reads of a page: meta description, h1 headings, robots directives, words, text fingerprint, response time',
    statements: [
      'ALTER TABLE pages ADD COLUMN description TEXT',
      'ALTER TABLE pages ADD COLUMN h1 TEXT',
      'ALTER TABLE pages ADD COLUMN h1_count INTEGER',
      'ALTER TABLE pages ADD COLUMN robots INTEGER',
      'ALTER TABLE pages ADD COLUMN words INTEGER',
      'ALTER TABLE pages ADD COLUMN simhash TEXT',
      'ALTER TABLE pages ADD COLUMN response_ms REAL',
    ],
  },
  {
    version: 8,
    description: 'no index of scores by page: a page\'s scores are found run by run in the primary key',
    // The index cost a third of the time of saving a run (a crawl saves one score per known page).
    statements: ['DROP INDEX IF EXISTS scores_page'],
  },
];

export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'pages, links, runs, scores, crawl state',
    statements: [
      `CREATE TABLE pages (
        id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        url TEXT NOT NULL,
        url_key TEXT NOT NULL UNIQUE,
        host TEXT NOT NULL DEFAULT '',
        status INTEGER,
        content_type TEXT,
        fetched_at DOUBLE PRECISION,
        size BIGINT,
        title TEXT,
        fetch_error TEXT,
        depth INTEGER,
        cash DOUBLE PRECISION NOT NULL DEFAULT 0,
        history DOUBLE PRECISION NOT NULL DEFAULT 0,
        last_read DOUBLE PRECISION NOT NULL DEFAULT 0,
        reads INTEGER NOT NULL DEFAULT 0
      )`,
      'CREATE INDEX pages_host ON pages (host)',
      `CREATE TABLE links (
        source BIGINT NOT NULL REFERENCES pages (id),
        target BIGINT NOT NULL REFERENCES pages (id),
        kind SMALLINT NOT NULL DEFAULT 0,
        nofollow BOOLEAN NOT NULL DEFAULT FALSE,
        PRIMARY KEY (source, target, kind)
      )`,
      'CREATE INDEX links_target ON links (target, source)',
      `CREATE TABLE runs (
        id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        method TEXT NOT NULL,
        parameters JSONB NOT NULL,
        started_at DOUBLE PRECISION NOT NULL,
        finished_at DOUBLE PRECISION NOT NULL,
        iterations DOUBLE PRECISION,
        residual DOUBLE PRECISION,
        converged BOOLEAN,
        pages INTEGER NOT NULL DEFAULT 0
      )`,
      `CREATE TABLE scores (
        run BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        page BIGINT NOT NULL REFERENCES pages (id),
        value DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (run, page)
      )`,
      'CREATE INDEX scores_run_value ON scores (run, value DESC)',
      'CREATE INDEX scores_page ON scores (page)',
      'CREATE TABLE crawl_state (key TEXT PRIMARY KEY, value TEXT NOT NULL)',
    ],
  },
  {
    version: 2,
    description: 'crawler state per page: OPIC pool marks, focus, fetch order, interpolated history',
    statements: [
      'ALTER TABLE pages ADD COLUMN seen_all DOUBLE PRECISION NOT NULL DEFAULT 0',
      'ALTER TABLE pages ADD COLUMN seen_unread DOUBLE PRECISION NOT NULL DEFAULT 0',
      'ALTER TABLE pages ADD COLUMN seen_focus DOUBLE PRECISION NOT NULL DEFAULT 0',
      'ALTER TABLE pages ADD COLUMN focus BOOLEAN NOT NULL DEFAULT FALSE',
      'ALTER TABLE pages ADD COLUMN fetch_seq BIGINT',
      'ALTER TABLE pages ADD COLUMN window_history DOUBLE PRECISION NOT NULL DEFAULT 0',
    ],
  },
  {
    version: 3,
    description: 'link kinds, rel, hreflang and lastmod; wire size, validators, digest and role of pages; visits and link changes',
    statements: [
      'ALTER TABLE links ADD COLUMN rel SMALLINT NOT NULL DEFAULT 0',
      'ALTER TABLE links ADD COLUMN hreflang TEXT',
      'ALTER TABLE links ADD COLUMN lastmod DOUBLE PRECISION',
      'UPDATE links SET rel = 1 WHERE nofollow',
      'ALTER TABLE pages ADD COLUMN wire_size BIGINT',
      'ALTER TABLE pages ADD COLUMN etag TEXT',
      'ALTER TABLE pages ADD COLUMN last_modified TEXT',
      'ALTER TABLE pages ADD COLUMN content_hash TEXT',
      'ALTER TABLE pages ADD COLUMN role SMALLINT NOT NULL DEFAULT 0',
      `CREATE TABLE visits (
        page BIGINT NOT NULL REFERENCES pages (id),
        fetched_at DOUBLE PRECISION NOT NULL,
        status INTEGER,
        fetch_error TEXT,
        content_hash TEXT,
        changed BOOLEAN,
        not_modified BOOLEAN NOT NULL DEFAULT FALSE,
        links_added INTEGER NOT NULL DEFAULT 0,
        links_removed INTEGER NOT NULL DEFAULT 0
      )`,
      'CREATE INDEX visits_page ON visits (page, fetched_at)',
      'CREATE INDEX visits_time ON visits (fetched_at)',
      `CREATE TABLE link_changes (
        at DOUBLE PRECISION NOT NULL,
        source BIGINT NOT NULL REFERENCES pages (id),
        target BIGINT NOT NULL REFERENCES pages (id),
        kind SMALLINT NOT NULL,
        added BOOLEAN NOT NULL
      )`,
      'CREATE INDEX link_changes_time ON link_changes (at)',
    ],
  },
  {
    version: 4,
    description: 'whether a page was rendered in a browser',
    statements: ['ALTER TABLE pages ADD COLUMN rendered SMALLINT'],
  },
  {
    version: 5,
    description: 'links a page had past --max-links-per-page',
    statements: ['ALTER TABLE pages ADD COLUMN links_dropped INTEGER'],
  },
  {
    version: 6,
    description: 'origins whose /sitemap.xml was tried',
    statements: ['CREATE TABLE sitemap_probes (origin TEXT PRIMARY KEY, status INTEGER, probed_at DOUBLE PRECISION NOT NULL)'],
  },
  {
    version: 7,
    description: 'what a site audit reads of a page: meta description, h1 headings, robots directives, words, text fingerprint, response time',
    statements: [
      'ALTER TABLE pages ADD COLUMN description TEXT',
      'ALTER TABLE pages ADD COLUMN h1 TEXT',
      'ALTER TABLE pages ADD COLUMN h1_count INTEGER',
      'ALTER TABLE pages ADD COLUMN robots SMALLINT',
      'ALTER TABLE pages ADD COLUMN words INTEGER',
      'ALTER TABLE pages ADD COLUMN simhash TEXT',
      'ALTER TABLE pages ADD COLUMN response_ms REAL',
    ],
  },
];
