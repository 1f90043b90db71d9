/**
 * `wga crawl` for a crawl shared by several processes (src/app/shared-crawl.ts):
 *   wga crawl SEED... --shared --db postgres://...   start it, and work on it here
 *   wga crawl --join --db postgres://...             work on it (any machine reaching the database)
 *   wga crawl SEED... --instances N --db postgres://...  start it with N local processes
 *   wga crawl --join --instances N --db ...          N more local processes
 */
import { type CrawlSettings, completeSettings } from '../../crawl/settings.js';
import type { SharedReport } from '../../crawl/shared-crawler.js';
import { joinSharedCrawl, requirePostgres, runInstances, sharedCrawlInstances, startSharedCrawl } from '../../app/shared-crawl.js';
import { OptionError, WgaError, ExitCode } from '../../errors.js';
import { redactLocation } from '../../store/open.js';
import { count, percent, print, printJson, seconds, table } from '../output.js';
import { integerOption } from '../values.js';
import { settingsFromOptions } from './crawl.js';
import { checkBrowser } from '../../app/crawl.js';

export interface SharedCliOptions {
  db: string;
  shared?: boolean;
  join?: boolean;
  instances?: string;
  partitions?: string;
  lease?: string;
  resume?: boolean;
  quiet?: boolean;
  json?: boolean;
}

export function wantsSharedCrawl(options: { shared?: boolean; join?: boolean; instances?: string }): boolean {
  return options.shared === true || options.join === true || options.instances !== undefined;
}

export async function sharedCrawlCommand(seeds: string[], options: SharedCliOptions & Record<string, unknown>): Promise<void> {
  const db = options.db;
  const option = options.join === true ? '--join' : options.instances !== undefined ? '--instances' : '--shared';
  requirePostgres(db, option);
  if (options.resume === true) throw new OptionError('--resume', 'a shared crawl is continued with --join');
  if (options.checkpointPages !== undefined) throw new OptionError('--checkpoint-pages', "bounds a single crawl's writes to its store; a shared crawl's instances each write every --checkpoint ms");
  if (options.recrawl === true) throw new OptionError('--recrawl', 'is not supported in a crawl shared by several instances (a first pass with OPIC Greedy)');
  const instances = options.instances === undefined ? null : integerOption('--instances', options.instances, 1, 1);
  const location = redactLocation(db);
  if (options.join === true) {
    if (seeds.length > 0) throw new OptionError('--join', 'joins the crawl in the store with its own seeds; give no seed URLs');
  } else {
    const given = settingsFromOptions(options);
    const merged: Partial<CrawlSettings> & { seeds: string[] } = { ...given, seeds };
    if (merged.hosts === undefined && (merged.filters?.length ?? 0) > 0) merged.hosts = 'any';
    const settings = completeSettings(merged);
    checkBrowser(settings, options.render !== undefined || options.browser !== undefined);
    await startSharedCrawl(db, settings, {
      ...(options.partitions === undefined ? {} : { partitions: integerOption('--partitions', options.partitions, 64, 1) }),
      ...(options.lease === undefined ? {} : { leaseMs: integerOption('--lease', options.lease, 30_000, 1000) }),
    });
  }
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = (): void => {
    if (++interrupts === 1) controller.abort();
    else process.exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    if (instances !== null) {
      const result = await runInstances(db, instances, { signal: controller.signal });
      const failed = result.exitCodes.filter((code) => code !== 0).length;
      if (options.json === true) printJson({ store: location, instances: result.reports, exitCodes: result.exitCodes, shares: await sharedCrawlInstances(db) });
      else await printShares(db, `${instances} instances on ${location}`);
      if (failed > 0) throw new WgaError(`${failed} of ${instances} crawler processes failed (their errors are above); the others went on; join again with: wga crawl --join --db URL`, ExitCode.input);
      return;
    }
    const report = await joinSharedCrawl(db, {
      signal: controller.signal,
      onNotice: (message) => process.stderr.write(`wga: ${message}\n`),
      ...(options.quiet === true ? {} : { onProgress: (event) => process.stderr.write(`${event.message}\n`) }),
    });
    if (options.json === true) printJson(report);
    else printSharedReport(location, report);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

function printSharedReport(location: string, report: SharedReport): void {
  if (report.stoppedBy === 'finished-before') {
    print(`the shared crawl in ${location} is finished (${count(report.crawlPages)} pages, ${count(report.crawlFetches)} fetches); nothing to do`);
    return;
  }
  const why = { done: 'crawl finished', stopped: 'stopped', 'max-time': '--max-time reached', memory: '--memory reached', 'finished-before': '' }[report.stoppedBy];
  print(`instance ${report.instance} on ${location}, ${seconds(report.seconds)} (${why}): ${count(report.fetched)} pages fetched here; crawl: ${count(report.crawlPages)} pages, ${count(report.crawlFetches)} fetches`);
  print(
    table([
      ['requests', count(report.requests)],
      ['failed / excluded / other', `${count(report.failed)} / ${count(report.excluded)} / ${count(report.other)}`],
      ['checkpoints', `${count(report.checkpoints)} (${seconds(report.dbMs / 1000)} in the database, ${seconds(report.lockMs / 1000)} of it in their last statement, under the job's lock)`],
      ['money transfers sent / applied', `${count(report.transfersSent)} / ${count(report.transfersApplied)}`],
      ['rows written', count(report.rowsWritten)],
      ['OPIC run saved', report.run === null ? '- (another instance saves it)' : String(report.run)],
    ]),
  );
  if (report.stoppedBy !== 'done') print(`\ncontinue with: wga crawl --join --db ${location}`);
}

/** Each instance of the shared crawl with its share of the recorded pages. */
export async function printShares(db: string, title: string): Promise<void> {
  const shares = await sharedCrawlInstances(db);
  if (shares.length === 0) return;
  print(`${title}:`);
  print(
    table(
      [
        ['instance', 'state', 'pages', 'share', 'fetched', 'transfers sent', 'rows written', 'checkpoints'],
        ...shares.map((s) => [s.id, s.state, count(s.pages), percent(s.pages, shares.reduce((t, x) => t + x.pages, 0)), count(s.fetched), count(s.transfersSent), count(s.rowsWritten), count(s.checkpoints)]),
      ],
      [2, 3, 4, 5, 6, 7],
    ),
  );
}
