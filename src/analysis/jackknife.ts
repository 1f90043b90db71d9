/**
 * The jackknife over independent runs of a randomised estimator, as HyperANF reports its distance
 * statistics (Boldi, Rosa, Vigna, "HyperANF", WWW 2011, Section 5): the neighbourhood functions
 * of k runs with independent hash functions are averaged, and a statistic f of the average gets
 * the leave-one-out estimate of its bias and standard error.
 */

export interface JackknifeEstimate {
  /** f of the average of all runs, corrected by the jackknife's bias estimate: k f(all) - (k - 1) mean_i f(without i). */
  estimate: number;
  /** sqrt((k - 1) / k * sum_i (f(without i) - mean)^2). */
  standardError: number;
}

/** Pads the runs' sequences to one length by repeating their last value (N(t) stays at N(inf) once every counter stopped). */
export function padRuns(runs: readonly (readonly number[])[]): number[][] {
  const length = Math.max(...runs.map((r) => r.length));
  return runs.map((r) => Array.from({ length }, (_, t) => r[Math.min(t, r.length - 1)] ?? 0));
}

/** The element-wise mean of the runs, leaving run `skip` out (-1: none). */
export function meanOfRuns(runs: readonly (readonly number[])[], skip = -1): number[] {
  const length = runs[0]?.length ?? 0;
  const mean = new Array<number>(length).fill(0);
  let k = 0;
  runs.forEach((run, i) => {
    if (i === skip) return;
    k++;
    for (let t = 0; t < length; t++) mean[t]! += run[t]!;
  });
  return mean.map((x) => x / k);
}

/** The jackknife estimate of `statistic` of the mean of at least two padded runs. */
export function jackknife(runs: readonly (readonly number[])[], statistic: (mean: number[]) => number): JackknifeEstimate {
  const k = runs.length;
  if (k < 2) throw new RangeError('the jackknife needs at least two runs');
  const all = statistic(meanOfRuns(runs));
  const leaveOneOut = runs.map((_, i) => statistic(meanOfRuns(runs, i)));
  const mean = leaveOneOut.reduce((s, x) => s + x, 0) / k;
  const variance = ((k - 1) / k) * leaveOneOut.reduce((s, x) => s + (x - mean) ** 2, 0);
  return { estimate: k * all - (k - 1) * mean, standardError: Math.sqrt(variance) };
}
