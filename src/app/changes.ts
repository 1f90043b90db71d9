/**
 * `changes`: what changed in a crawled site between two times, from the
 * visits a crawl keeps (every fetch: when, its answer, its body's digest,
 * whether it changed, the links it added and removed). Pages are new (first
 * visited in the window), gone (answered before, failing now), changed (a
 * body that differs from the one before) or unchanged (a 304, or the same
 * digest). Each page's change rate is estimated from all its visits with Cho
 * and Garcia-Molina's estimator (Estimating Frequency of Change, ACM TOIT
 * 3(3), 2003, Section 4: n accesses at a regular interval I that detected X
 * changes give r = -ln((n - X + 0.5) / (n + 0.5)) changes per interval,
 * nearly unbiased where X/n is not; here I is the mean interval between the
 * page's visits).
 */
import { OptionError } from '../errors.js';
import { CRAWL_STATE, type Store, type VisitRecord } from '../store/store.js';
import type { ChangesJson } from './changes-json.js';

export type { ChangesJson };

/** The estimated changes per day of a page visited `visits` times, `changes` of them finding a change, over `spanMs`. */
export function changeRate(visits: number, changes: number, spanMs: number): number | null {
  const n = visits - 1;
  if (n < 1 || !(spanMs > 0)) return null;
  const x = Math.min(changes, n);
  const perInterval = Math.log((n + 0.5) / (n - x + 0.5));
  const intervalDays = spanMs / n / 86_400_000;
  return perInterval / intervalDays;
}


/** The crawl's sessions as its crawl_state keeps them. */
async function sessionsOf(store: Store): Promise<Array<{ started: number; finished: number | null }>> {
  const text = (await store.crawlState())[CRAWL_STATE.sessions];
  return text === undefined ? [] : (JSON.parse(text) as Array<{ started: number; finished: number | null }>);
}

/**
 * A time as the command line gives it: an ISO date or time, milliseconds since the epoch, `run:N`
 * (when run N finished: a crawl saves its runs at the end of each session) or `session:N` (when the
 * crawl's Nth session started; `session:-1` the latest).
 */
export async function parseTime(store: Store, option: string, text: string): Promise<number> {
  const value = text.trim();
  const run = /^run:(\d+)$/.exec(value);
  if (run !== null) {
    const found = (await store.runs()).find((r) => r.id === Number(run[1]));
    if (found === undefined) throw new OptionError(option, `${store.location} has no run ${run[1]}`);
    return found.finishedAt;
  }
  const session = /^session:(-?\d+)$/.exec(value);
  if (session !== null) {
    const sessions = await sessionsOf(store);
    const n = Number(session[1]);
    const chosen = n < 0 ? sessions[sessions.length + n] : sessions[n - 1];
    if (chosen === undefined) throw new OptionError(option, `${store.location} has ${sessions.length} crawl sessions, not '${value}'`);
    return chosen.started;
  }
  if (/^\d{10,}$/.test(value)) return Number(value);
  const time = Date.parse(value);
  if (!Number.isFinite(time)) throw new OptionError(option, `'${value.slice(0, 60)}' is not a time: give an ISO date or time, run:N or session:N`);
  return time;
}

/** A visit the server answered (a 304, 2xx or 3xx): what the page was about is not judged here. */
function ok(visit: VisitRecord | undefined): boolean {
  if (visit === undefined) return false;
  return visit.notModified || (visit.status !== null && visit.status < 400);
}

/** Changes in [since, until) (defaults: the start of the crawl's latest session, and now). */
export async function changes(store: Store, request: { since?: string; until?: string; limit?: number } = {}): Promise<ChangesJson> {
  const limit = request.limit ?? 100;
  const sessions = await sessionsOf(store);
  const since = request.since !== undefined ? await parseTime(store, '--since', request.since) : (sessions[sessions.length - 1]?.started ?? 0);
  const until = request.until !== undefined ? await parseTime(store, '--until', request.until) : Number.MAX_SAFE_INTEGER;
  if (!(until > since)) throw new OptionError('--until', 'must come after --since');
  const [visits, before, linkChanges] = await Promise.all([store.visits(since, until), store.visitsBefore(since, until), store.linkChanges(since, until, Number.MAX_SAFE_INTEGER)]);
  const previous = new Map(before.map((v) => [v.page, v]));
  const byPage = new Map<number, VisitRecord[]>();
  for (const visit of visits) {
    let list = byPage.get(visit.page);
    if (list === undefined) byPage.set(visit.page, (list = []));
    list.push(visit);
  }
  const urlOf = new Map<number, string>();
  const pageUrl = async (id: number): Promise<string> => {
    let url = urlOf.get(id);
    if (url === undefined) urlOf.set(id, (url = (await store.pageById(id))?.url ?? `#${id}`));
    return url;
  };
  const result: ChangesJson = {
    store: store.location,
    since: new Date(since).toISOString(),
    until: until === Number.MAX_SAFE_INTEGER ? null : new Date(until).toISOString(),
    visits: visits.length,
    notModified: visits.filter((v) => v.notModified).length,
    counts: { new: 0, gone: 0, changed: 0, unchanged: 0, linksAdded: 0, linksRemoved: 0 },
    new: [],
    gone: [],
    changed: [],
    linksAdded: [],
    linksRemoved: [],
    rates: [],
  };
  for (const [page, list] of byPage) {
    const prior = previous.get(page);
    const last = list[list.length - 1]!;
    const added = list.reduce((n, v) => n + v.linksAdded, 0);
    const removed = list.reduce((n, v) => n + v.linksRemoved, 0);
    if (prior === undefined) {
      result.counts.new++;
      if (result.new.length < limit) result.new.push({ url: await pageUrl(page), status: list[0]!.status });
    } else if (ok(prior) && !ok(last) && !(last.error ?? '').startsWith('excluded:')) {
      // Answered before, failing now (4xx, 5xx recorded, or no answer).
      result.counts.gone++;
      if (result.gone.length < limit) result.gone.push({ url: await pageUrl(page), status: last.status, error: last.error, before: prior.status });
    } else if (list.some((v) => v.changed === true) || added + removed > 0) {
      result.counts.changed++;
      if (result.changed.length < limit) result.changed.push({ url: await pageUrl(page), linksAdded: added, linksRemoved: removed });
    } else result.counts.unchanged++;
  }
  for (const change of linkChanges) {
    const entry = { source: change.source, target: change.target, kind: change.kind, at: new Date(change.at).toISOString() };
    if (change.added) {
      result.counts.linksAdded++;
      if (result.linksAdded.length < limit) result.linksAdded.push(entry);
    } else {
      result.counts.linksRemoved++;
      if (result.linksRemoved.length < limit) result.linksRemoved.push(entry);
    }
  }
  const rated: Array<{ page: number; visits: number; changes: number; perDay: number }> = [];
  for (const row of await store.visitCounts([...byPage.keys()])) {
    const perDay = changeRate(row.visits, row.changes, row.last - row.first);
    if (perDay !== null) rated.push({ page: row.page, visits: row.visits, changes: row.changes, perDay });
  }
  rated.sort((a, b) => b.perDay - a.perDay || a.page - b.page);
  for (const { page, ...rest } of rated.slice(0, limit)) result.rates.push({ url: await pageUrl(page), ...rest });
  return result;
}
