/**
 * `wga changes --db STORE`: what changed in the crawled site between two times (by default, in the
 * crawl's latest session): pages new, gone and changed, links added and removed, and the pages
 * that change most often (src/app/changes.ts).
 */
import type { Command } from 'commander';
import { changes } from '../../app/changes.js';
import { withStore } from '../../app/graph-source.js';
import { OptionError } from '../../errors.js';
import { count, print, printJson, safeLabel, table } from '../output.js';
import { integerOption } from '../values.js';

export function registerChanges(program: Command): void {
  program
    .command('changes')
    .description("what changed between two times of a crawl: pages new, gone and changed, links added and removed, change rates")
    .option('--db <store>', 'the store: a SQLite file or a postgres:// URL')
    .option('--since <time>', 'from this time: an ISO date or time, run:N (when run N was saved) or session:N (default: the start of the latest crawl session)')
    .option('--until <time>', 'up to this time, in the same forms (default: now)')
    .option('--limit <n>', 'at most this many pages and links listed of each kind (default: 100)')
    .option('--json', 'print one JSON document')
    .action(async (options: { db?: string; since?: string; until?: string; limit?: string; json?: boolean }) => {
      if (options.db === undefined) throw new OptionError('--db', 'missing: the store (a SQLite file or a postgres:// URL)');
      const limit = integerOption('--limit', options.limit, 100, 1);
      const report = await withStore(options.db, (store) =>
        changes(store, { limit, ...(options.since === undefined ? {} : { since: options.since }), ...(options.until === undefined ? {} : { until: options.until }) }),
      );
      if (options.json === true) {
        printJson(report);
        return;
      }
      const c = report.counts;
      print(`changes in ${report.store} from ${report.since} to ${report.until ?? 'now'}: ${count(report.visits)} visits (${count(report.notModified)} answered 304)`);
      print(
        table([
          ['new pages', count(c.new)],
          ['gone (failing now)', count(c.gone)],
          ['changed', count(c.changed)],
          ['unchanged', count(c.unchanged)],
          ['links added', count(c.linksAdded)],
          ['links removed', count(c.linksRemoved)],
        ]),
      );
      const list = (title: string, rows: string[][], total: number): void => {
        if (rows.length === 0) return;
        print(`\n${title}${total > rows.length ? ` (first ${count(rows.length)} of ${count(total)})` : ''}`);
        print(table(rows));
      };
      list('new', report.new.map((p) => [p.status === null ? '-' : String(p.status), safeLabel(p.url)]), c.new);
      list('gone', report.gone.map((p) => [`${p.before ?? '-'} -> ${p.status ?? p.error ?? '-'}`, safeLabel(p.url)]), c.gone);
      list('changed', report.changed.map((p) => [`+${p.linksAdded} -${p.linksRemoved} links`, safeLabel(p.url)]), c.changed);
      list('links added', report.linksAdded.map((l) => [l.kind, safeLabel(l.source), '->', safeLabel(l.target)]), c.linksAdded);
      list('links removed', report.linksRemoved.map((l) => [l.kind, safeLabel(l.source), '->', safeLabel(l.target)]), c.linksRemoved);
      const changing = report.rates.filter((r) => r.changes > 0);
      list('pages changing most (changes per day, Cho and Garcia-Molina; changes seen / intervals)', changing.map((r) => [r.perDay.toPrecision(3), `${r.changes}/${r.visits - 1}`, safeLabel(r.url)]), changing.length);
    });
}
