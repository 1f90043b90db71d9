import type { Command } from 'commander';
import { EXPORT_FORMATS, type ExportFormat, exportGraph } from '../../app/export.js';
import { FileNotFoundError, OptionError } from '../../errors.js';
import { GRAPH_FORMATS } from '../../formats/load.js';
import { writeFileSync } from 'node:fs';
import { stringify } from 'csv-stringify/sync';
import { PAGE_TABLE_COLUMNS, loadPagesTable, queryPagesTable } from '../../app/pages-table.js';
import { withStore } from '../../app/graph-source.js';
import { GRAPH_LEVELS } from '../../graph/hosts.js';
import { LINK_KINDS } from '../../store/store.js';
import { linkFilterOption } from '../../app/values.js';
import { loadFromOptions } from '../graph-input.js';
import { count, megabytes, print, printJson, seconds, table } from '../output.js';
import { Progress } from '../progress.js';
import { choiceOption, integerOption } from '../values.js';

interface ExportOptions {
  labelsPartial?: boolean;
  db?: string;
  format?: string;
  out?: string;
  scores?: string[];
  links?: string;
  gexfVersion?: string;
  inputFormat?: string;
  labels?: string;
  separator?: string;
  weighted?: boolean;
  undirected?: boolean;
  windowSize?: string;
  maxRefCount?: string;
  json?: boolean;
  quiet?: boolean;
  hosts?: boolean;
  level?: string;
  reversedNames?: boolean;
}

export function registerExport(program: Command): void {
  program
    .command('export')
    .description('write a graph file or a store as GEXF, GraphML, Parquet, WebGraph BV or a TSV edge list, with page attributes and scores')
    .argument('[graph]', 'graph file (edge list or WebGraph basename); or give --db')
    .option('--db <store>', 'export a store (SQLite file or postgres:// URL): pages with their columns, typed links')
    .option('--format <format>', `output format: ${EXPORT_FORMATS.join(', ')}; csv: the pages table of a store (--db)`)
    .option('--out <path>', 'output file (gexf, graphml, tsv), basename (bv) or directory (parquet)')
    .option('--scores <name...>', "score columns: a stored run's method or run:ID, a score file, or pagerank, scc, indegree, outdegree")
    .option('--links <kinds>', `store link kinds to export, comma-separated: ${LINK_KINDS.join(', ')}, graph or all; -KIND or -nofollow, -ugc, -sponsored leave some out (default: all)`)
    .option('--level <level>', 'export the page graph, the host graph (pages collapsed into their URL hosts) or the domain graph (into their pay-level domains), links weighted by page-link counts: page, host or domain (default: page, or the nodes of the file)')
    .option('--reversed-names', "with --level host or domain: name them in Common Crawl's reversed notation (com.example.www)")
    .option('--hosts', 'the same as --level host')
    .option('--gexf-version <v>', 'GEXF version: 1.3 or 1.2draft (for NetworkX) (default: 1.3)')
    .option('--window-size <w>', 'bv: how many previous lists a list may copy from (default: 7)')
    .option('--max-ref-count <r>', 'bv: longest chain of references (default: 3)')
    .option('--input-format <format>', `graph file format: auto, ${GRAPH_FORMATS.join(', ')} (default: auto)`)
    .option('--labels <file>', "label file with 'id url' lines for the graph file (one for every page)")
    .option('--labels-partial', 'the label file may leave pages without a label: they keep their ids')
    .option('--separator <sep>', 'edge-list column separator: auto, tab, comma, space (default: auto)')
    .option('--weighted', 'the third edge-list column is a link weight')
    .option('--undirected', 'each edge-list line is an undirected edge')
    .option('--json', 'print the report as JSON')
    .option('-q, --quiet', 'no progress messages on stderr')
    .action(async (path: string | undefined, options: ExportOptions) => {
      if (options.format === undefined) throw new OptionError('--format', `missing: one of ${EXPORT_FORMATS.join(', ')}, csv`);
      if (options.format === 'csv') {
        // The pages table of a store (the GUI's Pages view, docs/audit.md): one row per page.
        if (options.db === undefined || path !== undefined) throw new OptionError('--format', 'csv exports the pages table of a store: give --db STORE and no graph file');
        if (options.out === undefined) throw new OptionError('--out', 'missing: where to write');
        const out = options.out;
        const rows = await withStore(options.db, async (store) => queryPagesTable(await loadPagesTable(store), { sort: 'url', descending: false, filters: {}, offset: 0, limit: Number.MAX_SAFE_INTEGER }).rows);
        try {
          writeFileSync(out, stringify(rows, { header: true, columns: [...PAGE_TABLE_COLUMNS] }));
        } catch (error) {
          throw new FileNotFoundError(out, `cannot write the CSV file (--out): ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
        }
        if (options.json === true) printJson({ source: options.db, format: 'csv', out, pages: rows.length });
        else if (options.quiet !== true) print(`exported the pages table of ${options.db} (${rows.length.toLocaleString('en-US')} pages) as csv to ${out}`);
        return;
      }
      const format = choiceOption('--format', options.format, EXPORT_FORMATS, 'gexf' as ExportFormat);
      if (options.out === undefined) throw new OptionError('--out', 'missing: where to write');
      if ((path === undefined) === (options.db === undefined)) throw new OptionError('graph', 'give either a graph file or --db STORE');
      if (options.links !== undefined && options.db === undefined) throw new OptionError('--links', "chooses the kinds of a store's links: it needs --db");
      const links = options.links === undefined ? undefined : linkFilterOption('--links', options.links, LINK_KINDS);
      const graph =
        path === undefined
          ? undefined
          : await loadFromOptions(path, {
              ...(options.inputFormat === undefined ? {} : { format: options.inputFormat }),
              ...(options.labels === undefined ? {} : { labels: options.labels }),
              ...(options.labelsPartial === true ? { labelsPartial: true } : {}),
              ...(options.separator === undefined ? {} : { separator: options.separator }),
              weighted: options.weighted === true,
              undirected: options.undirected === true,
              quiet: options.quiet === true,
            });
      const progress = new Progress(options.quiet !== true);
      const report = await exportGraph(
        {
          ...(graph === undefined ? { db: options.db! } : { graph }),
          format,
          out: options.out,
          ...(options.scores === undefined ? {} : { scores: options.scores }),
          ...(links === undefined ? {} : { links }),
          hosts: options.hosts === true,
          ...(options.level === undefined ? {} : { level: choiceOption('--level', options.level, GRAPH_LEVELS, 'page') }),
          ...(options.reversedNames === true ? { reversedNames: true } : {}),
          gexfVersion: choiceOption('--gexf-version', options.gexfVersion, ['1.3', '1.2draft'] as const, '1.3'),
          bv: {
            windowSize: integerOption('--window-size', options.windowSize, 7, 0),
            maxRefCount: integerOption('--max-ref-count', options.maxRefCount, 3, 0),
          },
        },
        { onProgress: (event) => progress.update(() => event.message) },
      ).finally(() => progress.done());
      if (options.json === true) {
        printJson(report);
        return;
      }
      print(
        table([
          ['exported', `${report.source} as ${report.format}`],
          ['pages', count(report.pages)],
          ['links', count(report.links)],
          ['attributes', report.attributes.join(', ')],
          ...report.files.map((f) => ['file', `${f.path} (${megabytes(f.bytes)})`]),
          ...(report.bitsPerLink === undefined ? [] : [['bits per link', report.bitsPerLink.toFixed(3)]]),
          ...(report.grouped === undefined
            ? []
            : [[`${report.grouped.level} graph`, `${count(report.grouped.pageLinks)} links read, ${count(report.grouped.selfLinksDropped)} inside one ${report.grouped.level} dropped`]]),
          ['time', seconds(report.seconds)],
        ]),
      );
    });
}
