/**
 * A crawl checkpoint's one SQLite transaction (Store.writeCrawlBatch): new
 * pages, fetch results, visits, links and their changes, OPIC's state and the
 * crawl's state. It runs on whichever connection it is given: the store's own
 * (an in-memory store) or the writer thread's (sqlite-writer-thread.ts), so
 * that both write exactly the same rows.
 */
import type Database from 'better-sqlite3';
import { LINK_FIELDS, OPIC_FIELDS, PAGE_FIELDS, type PackedCrawlBatch, TEXT_SEPARATOR } from './packed-batch.js';
import { auditValues, diffLinkSets, droppedCode, type PriorAnswer, renderCode, VISIT_COLUMNS, visitOf } from './records.js';

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
  write(batch: PackedCrawlBatch): void {
    const st = this.st;
    this.db
      .transaction(() => {
        const pages = batch.pageNumbers;
        const text = new TextDecoder().decode(batch.pageText);
        let at = 0;
        const nextText = (): string => {
          const end = text.indexOf(TEXT_SEPARATOR, at);
          const value = text.slice(at, end);
          at = end + 1;
          return value;
        };
        for (let p = 0; p < pages.length; p += PAGE_FIELDS) {
          const url = nextText();
          const key = nextText();
          const host = nextText();
          // id, url, key, host, depth, focus, cash, history, last_read, reads, seen_all, seen_unread, seen_focus, window_history, role
          st.insertPage.run(pages[p], url, key, host, pages[p + 1], pages[p + 2], pages[p + 4], pages[p + 5], pages[p + 6], pages[p + 7], pages[p + 8], pages[p + 9], pages[p + 10], pages[p + 11], pages[p + 3]);
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
        const links = batch.linkNumbers;
        const extras = new Map(batch.linkExtras.map(([index, hreflang, lastmod]) => [index, [hreflang, lastmod] as const]));
        for (let l = 0, i = 0; l < links.length; l += LINK_FIELDS, i++) {
          const rel = links[l + 3]!;
          const extra = extras.get(i);
          st.insertLink.run(links[l], links[l + 1], links[l + 2], rel & 1, rel, extra?.[0] ?? null, extra?.[1] ?? null);
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
        const opic = batch.opicNumbers;
        for (let o = 0; o < opic.length; o += OPIC_FIELDS) {
          // cash, history, last_read, reads, seen_all, seen_unread, seen_focus, window_history, id
          st.updateOpic.run(opic[o + 1], opic[o + 2], opic[o + 3], opic[o + 4], opic[o + 5], opic[o + 6], opic[o + 7], opic[o + 8], opic[o]);
        }
        for (const { id, depth } of batch.depths) st.setDepth.run(depth, id);
        for (const [key, value] of Object.entries(batch.state)) st.setState.run(key, value);
        for (const probe of batch.sitemapProbes) st.setProbe.run(probe.origin, probe.status, probe.probedAt);
      })
      .immediate();
  }
}
