/** Formatting for the CLI's human-readable output and its JSON documents. */

/** stdout, one JSON document. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function print(text = ''): void {
  process.stdout.write(`${text}\n`);
}

/** 3128710 -> "3,128,710". */
/** What a graph's nodes are called in a report: pages, or hosts and domains at those levels (--level). */
export function nodeUnit(level: string | undefined): string {
  return level === 'host' ? 'hosts' : level === 'domain' ? 'domains' : 'pages';
}

export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** A share as a percentage with one decimal: 0.2671 -> "26.7%". */
export function percent(part: number, whole: number): string {
  return whole === 0 ? '0%' : `${((100 * part) / whole).toFixed(1)}%`;
}

export function seconds(s: number): string {
  return s < 10 ? `${s.toFixed(3)} s` : `${s.toFixed(1)} s`;
}

export function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

/** Scores are probabilities that span many orders of magnitude: six significant digits. */
export function score(x: number): string {
  return x === 0 ? '0' : x.toPrecision(6);
}

/** Terminal control characters in crawled labels would rewrite the user's screen. */
export function safeLabel(label: string, max = 100): string {
  // eslint-disable-next-line no-control-regex
  const clean = label.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
  return clean.length > max ? `${clean.slice(0, max - 3)}...` : clean;
}

/** Aligned columns; numbers (right-aligned) are the columns listed in `right`. */
export function table(rows: string[][], right: number[] = []): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows
    .map((row) =>
      row
        .map((cell, i) => {
          if (i === row.length - 1 && !right.includes(i)) return cell;
          return right.includes(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!);
        })
        .join('  '),
    )
    .join('\n');
}

/** Pages per number of clicks, with the cumulative share of all `pages`. */
export function levelsTable(histogram: readonly number[], pages: number): string {
  let cumulative = 0;
  const rows = histogram.map((atLevel, level) => {
    cumulative += atLevel;
    return [String(level), count(atLevel), percent(cumulative, pages)];
  });
  return table([['clicks', 'pages', 'cumulative'], ...rows], [0, 1, 2]);
}
