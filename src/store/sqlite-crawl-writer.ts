/**
 * A crawl checkpoint's one SQLite transaction (Store.writeCrawlBatch): new
 * pages, fetch results, visits, links and their changes, OPIC's state and the
 * crawl's state. It runs on whichever connection it is given: the store's own
 * (an in-memory store) or the writer thread's (sqlite-writer-thread.ts), so
 * that both write exactly the same rows.
 */
import type Database from 'better-sqlite3';
import { auditValues, diffLinkSets, droppedCode, type PriorAnswer, renderCode, roleCode, VISIT_COLUMNS, visitOf } from './records.js';
import { LINK_KIND_CODES } from './schema.js';
import { type CrawlBatch, relOf } from './store.js';

/** The settings every connection to a store file takes (the journal mode is the file's own). */
export function configureConnection(db: Database.Database): void {
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  // 64 MB of page cache: bulk imports and loads touch large B-trees.
  db.pragma('cache_size = -65536');
}

export class SqliteCrawlWriter {
  private readonly st;

  constructor(private readonly db: Database.Database) {
    this.st = {
      insertPage: db.prepare(
        `INSERT INTO pages (id, url, url_key, host, depth, focus, cash, history, last_read, reads, seen_all, seen_unread, seen_focus, window_history, role)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      recordFetch: db.prepare(
        `UPDATE pages SET status = ?, content_type = ?, fetched_at = ?, size = ?, title = ?, fetch_error = ?, fetch_seq = ?,
           wire_size = ?, etag = ?, last_modified = ?, content_hash = ?, rendered = ?, links_dropped = ?,
           description = ?, h1 = ?, h1_count = ?, robots = ?, words = ?, simhash = ?, response_ms = ? WHERE id = ?`,
      ),
      recordNotModified: db.prepare('UPDATE pages SET fetched_at = ?, fetch_seq = ? WHERE id = ?'),
      before: db.prepare('SELECT status, fetch_error, content_hash FROM pages WHERE id = ?'),
      // Two fetches of a page within one millisecond are one visit (the later answer kept).
      insertVisit: db.prepare(`INSERT OR REPLACE INTO visits (${VISIT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      linksOf: db.prepare('SELECT target, kind FROM links WHERE source = ?').raw(),
      insertLinkChange: db.prepare('INSERT INTO link_changes (at, source, target, kind, added) VALUES (?, ?, ?, ?, ?)'),
      deleteLinks: db.prepare('DELETE FROM links WHERE source = ?'),
      insertLink: db.prepare('INSERT OR IGNORE INTO links (source, target, kind, nofollow, rel, hreflang, lastmod) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      updateOpic: db.prepare(
        `UPDATE pages SET cash = ?, history = ?, last_read = ?, reads = ?, seen_all = ?, seen_unread = ?, seen_focus = ?, window_history = ?
         WHERE id = ?`,
      ),
      setDepth: db.prepare('UPDATE pages SET depth = ? WHERE id = ?'),
      setState: db.prepare('INSERT INTO crawl_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
      setProbe: db.prepare(
        'INSERT INTO sitemap_probes (origin, status, probed_at) VALUES (?, ?, ?) ON CONFLICT (origin) DO UPDATE SET status = excluded.status, probed_at = excluded.probed_at',
      ),
    };
  }

  /** Writes the batch in one transaction: all of it or, on any failure, none of it. */
  write(batch: CrawlBatch): void {
    const st = this.st;
    this.db
      .transaction(() => {
        for (const page of batch.pages) {
          const o = page.opic;
          st.insertPage.run(
            page.id, page.url, page.key, page.host, page.depth, page.focus ? 1 : 0, o.cash, o.history, o.lastRead, o.reads, o.seenAll, o.seenUnread, o.seenFocus,
            page.windowHistory, roleCode(page.role),
          );
        }
        // Each fetch is a visit; whether it changed the page is judged against the stored digest before it is replaced.
        const visits: Array<{ id: number; visit: ReturnType<typeof visitOf> }> = [];
        for (const { id, fetchSeq, record: r, first } of batch.fetches) {
          visits.push({ id, visit: visitOf(r, first === true ? undefined : (st.before.get(id) as PriorAnswer | undefined)) });
          if (r.notModified === true) st.recordNotModified.run(r.fetchedAt, fetchSeq, id);
          else st.recordFetch.run(r.status, r.contentType, r.fetchedAt, r.size, r.title, r.error, fetchSeq, r.wireSize ?? null, r.etag ?? null, r.lastModified ?? null, r.contentHash ?? null, renderCode(r.rendered), droppedCode(r.linksDropped), ...auditValues(r.audit), id);
        }
        const replaced = new Map<number, Array<[number, number]>>();
        for (const source of batch.replaceLinksOf) {
          if (!replaced.has(source)) replaced.set(source, st.linksOf.all(source) as Array<[number, number]>);
          st.deleteLinks.run(source);
        }
        for (const link of batch.links) {
          const rel = relOf(link);
          st.insertLink.run(link.source, link.target, LINK_KIND_CODES[link.kind], rel & 1, rel, link.hreflang ?? null, link.lastmod ?? null);
        }
        const changes = new Map<number, { added: number; removed: number }>();
        const lastFetch = new Map(batch.fetches.map((f) => [f.id, f.record.fetchedAt]));
        for (const [source, before] of replaced) {
          const { added, removed } = diffLinkSets(before, st.linksOf.all(source) as Array<[number, number]>);
          const at = lastFetch.get(source) ?? Date.now();
          for (const [target, kind] of added) st.insertLinkChange.run(at, source, target, kind, 1);
          for (const [target, kind] of removed) st.insertLinkChange.run(at, source, target, kind, 0);
          changes.set(source, { added: added.length, removed: removed.length });
        }
        for (const { id, visit: v } of visits) {
          const counted = lastFetch.get(id) === v.fetchedAt ? changes.get(id) : undefined;
          if (counted !== undefined) changes.delete(id);
          st.insertVisit.run(id, v.fetchedAt, v.status, v.error, v.contentHash, v.changed === null ? null : v.changed ? 1 : 0, v.notModified ? 1 : 0, counted?.added ?? 0, counted?.removed ?? 0);
        }
        for (const { id, state: o, windowHistory } of batch.opic) {
          st.updateOpic.run(o.cash, o.history, o.lastRead, o.reads, o.seenAll, o.seenUnread, o.seenFocus, windowHistory, id);
        }
        for (const { id, depth } of batch.depths ?? []) st.setDepth.run(depth, id);
        for (const [key, value] of Object.entries(batch.state)) st.setState.run(key, value);
        for (const probe of batch.sitemapProbes ?? []) st.setProbe.run(probe.origin, probe.status, probe.probedAt);
      })
      .immediate();
  }
}
