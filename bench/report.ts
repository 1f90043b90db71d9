/** What the benchmarks share to report: progress lines and medians. */

/** A progress line on stderr (stdout carries the results). */
export function progress(text: string): void {
  process.stderr.write(`${text}\n`);
}

/** The median of `values` (the mean of the two middle ones for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
