/** `wga audit`: the site audit of a store (app/audit.ts), as a table or JSON. */
import type { Command } from 'commander';
import { stringify } from 'csv-stringify/sync';
import { type AuditFinding, DEFAULT_NEAR_PAIRS } from '../../analysis/audit.js';
import { auditChecksOption, auditStore } from '../../app/audit.js';
import { withStore } from '../../app/graph-source.js';
import { FileNotFoundError, OptionError } from '../../errors.js';
import { writeFileSync } from 'node:fs';
import { count, print, printJson, safeLabel, seconds } from '../output.js';
import { integerOption } from '../values.js';

interface AuditCliOptions {
  csv?: string;
  db?: string;
  json?: boolean;
  check?: string;
  maxDepthOk?: string;
  slowMs?: string;
  nearBits?: string;
  nearPairs?: string;
  limit?: string;
}

/** A finding's evidence in one line: its fields but the URL, lists shortened (`whole`: every item, unescaped for CSV). */
function evidence(finding: AuditFinding, whole = false): string {
  const label = whole ? (text: string): string => text : (text: string, max?: number): string => safeLabel(text, max);
  const parts: string[] = [];
  for (const [key, value] of Object.entries(finding)) {
    if (key === 'url' || value === null || value === undefined || value === false) continue;
    if (key === 'linkers' && Array.isArray(value)) {
      const urls = (value as Array<{ url: string; kind: string }>).map((l) => (l.kind === 'anchor' ? l.url : `${l.url} (${l.kind})`));
      const shown = whole ? urls : urls.slice(0, 3);
      parts.push(urls.length === 0 ? 'linked from no page' : `linked from ${shown.map((u) => label(u, 80)).join(', ')}${urls.length > shown.length ? ` and ${count(urls.length - shown.length)} more` : ''}`);
    } else if (key === 'hops' && Array.isArray(value)) {
      parts.push((value as Array<{ url: string; answer: string }>).map((h) => `${label(h.url, 60)} [${label(h.answer, 40)}]`).join(' -> '));
    } else if (key === 'others' && Array.isArray(value)) {
      const shown = whole ? (value as string[]) : (value as string[]).slice(0, 2);
      // `others` names MAX_OTHERS at most; the group's size says how many there are.
      const all = typeof finding.group === 'number' ? finding.group - 1 : value.length;
      parts.push(`with ${shown.map((u) => label(u, 60)).join(', ')}${all > shown.length ? ` and ${count(all - shown.length)} more` : ''}`);
    } else if (value === true) parts.push(key);
    else parts.push(`${key} ${label(String(value), 80)}`);
  }
  return parts.join('; ');
}

export function registerAudit(program: Command): void {
  program
    .command('audit')
    .description("a site audit of a crawl's store: broken links, redirect chains, titles, descriptions, headings, noindex, canonicals, orphans, sitemap gaps, duplicates, deep and slow pages")
    .option('--db <store>', 'the store: a SQLite file or a postgres:// URL')
    .option('--check <ids>', 'only these checks, comma-separated (default: all; see docs/audit.md)')
    .option('--max-depth-ok <n>', 'pages more clicks than this from the seeds are deep (default: 3)')
    .option('--slow-ms <ms>', 'pages answering slower than this are slow (default: 1000)')
    .option('--near-bits <n>', 'texts whose 64-bit SimHashes differ in at most this many bits are near-duplicates (default: 7)')
    .option('--near-pairs <n>', 'near-duplicates: SimHash comparisons at most; the check says when it stopped there (default: 100000000)')
    .option('--limit <n>', 'pages listed per check in the table (default: 10; --json lists all)')
    .option('--json', 'print one JSON document with every page of every check')
    .option('--csv <file>', 'also write every page of every check to a CSV file: check, url, evidence (- for standard output)')
    .action(async (options: AuditCliOptions) => {
      if (options.db === undefined) throw new OptionError('--db', 'give the store to audit: --db FILE.sqlite or --db postgres://...');
      const checks = auditChecksOption(options.check);
      const settings = {
        maxDepthOk: integerOption('--max-depth-ok', options.maxDepthOk, 3, 0),
        slowMs: integerOption('--slow-ms', options.slowMs, 1000, 0),
        nearBits: integerOption('--near-bits', options.nearBits, 7, 0),
        nearPairs: integerOption('--near-pairs', options.nearPairs, DEFAULT_NEAR_PAIRS, 1),
        ...(checks === undefined ? {} : { checks }),
      };
      if (settings.nearBits > 16) throw new OptionError('--near-bits', `expected at most 16 bits of 64, got ${settings.nearBits}`);
      const limit = integerOption('--limit', options.limit, 10, 1);
      const report = await withStore(options.db, (store) => auditStore(store, settings));
      if (options.csv !== undefined) {
        const rows = report.checks.flatMap((check) => check.pages.map((finding) => [check.id, finding.url, evidence(finding, true)]));
        const text = stringify(rows, { header: true, columns: ['check', 'url', 'evidence'] });
        if (options.csv === '-') {
          process.stdout.write(text);
          return;
        }
        try {
          writeFileSync(options.csv, text);
        } catch (error) {
          throw new FileNotFoundError(options.csv, `cannot write the CSV file (--csv): ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
        }
      }
      if (options.json === true) {
        printJson(report);
        return;
      }
      print(`audit of ${report.store}: ${count(report.pages)} pages, ${count(report.links)} links, in ${seconds(report.seconds)}`);
      for (const check of report.checks) {
        const head = check.unavailable !== undefined ? `not checked: ${check.unavailable}` : `${count(check.count)} page${check.count === 1 ? '' : 's'}`;
        print(`\n${check.id}: ${head}  (${check.title})`);
        if (check.note !== undefined) print(`  note: ${check.note}`);
        for (const finding of check.pages.slice(0, limit)) {
          const detail = evidence(finding);
          print(`  ${safeLabel(finding.url)}${detail === '' ? '' : `  ${detail}`}`);
        }
        if (check.pages.length > limit) print(`  ... and ${count(check.pages.length - limit)} more (--limit, --json)`);
      }
    });
}
