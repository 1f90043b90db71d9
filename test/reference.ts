/**
 * Independent reference computations for the tests. Nothing here imports the
 * code under test: graphs are plain edge arrays, PageRank is solved either
 * exactly (dense Gaussian elimination) or by a naive edge-by-edge iteration.
 */

export type Edge = readonly [number, number];

/** Distinct non-loop edges of an edge list, in first-appearance order. */
export function simpleEdges(edges: readonly Edge[]): Edge[] {
  const seen = new Set<string>();
  const result: Edge[] = [];
  for (const [a, b] of edges) {
    if (a === b) continue;
    const key = `${a},${b}`;
    if (seen.has(key)) continue;
    seen.add(key);
    result.push([a, b]);
  }
  return result;
}

/**
 * PageRank solved exactly: pi (I - c P) = (1 - c) v with P's dangling rows
 * replaced by the dangling distribution d (weights w_ij on the links, 1 by
 * default). Dense Gaussian elimination with partial pivoting, for n up to a
 * few hundred.
 */
export function densePageRank(
  n: number,
  edges: readonly Edge[],
  options: { damping?: number; teleport?: number[]; dangling?: number[]; weights?: number[] } = {},
): number[] {
  const c = options.damping ?? 0.85;
  const v = normalised(options.teleport ?? new Array<number>(n).fill(1));
  const d = options.dangling === undefined ? v : normalised(options.dangling);
  const P: number[][] = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  const outWeight = new Array<number>(n).fill(0);
  edges.forEach(([a, b], i) => {
    const w = options.weights?.[i] ?? 1;
    P[a]![b]! += w;
    outWeight[a]! += w;
  });
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) P[i]![j] = outWeight[i]! > 0 ? P[i]![j]! / outWeight[i]! : d[j]!;
  }
  // Solve A x = b with A = (I - c P)^T, b = (1 - c) v.
  const A: number[][] = Array.from({ length: n }, (_, i) =>
    Array.from({ length: n }, (_, j) => (i === j ? 1 : 0) - c * P[j]![i]!),
  );
  const b = v.map((x) => (1 - c) * x);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(A[r]![col]!) > Math.abs(A[pivot]![col]!)) pivot = r;
    [A[col], A[pivot]] = [A[pivot]!, A[col]!];
    [b[col], b[pivot]] = [b[pivot]!, b[col]!];
    for (let r = col + 1; r < n; r++) {
      const f = A[r]![col]! / A[col]![col]!;
      if (f === 0) continue;
      for (let k = col; k < n; k++) A[r]![k]! -= f * A[col]![k]!;
      b[r]! -= f * b[col]!;
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = b[r]!;
    for (let k = r + 1; k < n; k++) s -= A[r]![k]! * x[k]!;
    x[r] = s / A[r]![r]!;
  }
  return normalised(x);
}

/**
 * Naive PageRank for large graphs: push along an edge array, dangling mass
 * and teleport uniform, until the L1 change is below `tolerance`.
 */
export function edgeListPageRank(
  n: number,
  sources: Int32Array,
  targets: Int32Array,
  damping = 0.85,
  tolerance = 1e-14,
): Float64Array {
  const outDegree = new Float64Array(n);
  for (let e = 0; e < sources.length; e++) outDegree[sources[e]!]!++;
  let x = new Float64Array(n).fill(1 / n);
  let next = new Float64Array(n);
  for (let iteration = 0; iteration < 1000; iteration++) {
    next.fill(0);
    let dangling = 0;
    for (let u = 0; u < n; u++) if (outDegree[u] === 0) dangling += x[u]!;
    for (let e = 0; e < sources.length; e++) {
      const u = sources[e]!;
      next[targets[e]!]! += x[u]! / outDegree[u]!;
    }
    let change = 0;
    for (let v = 0; v < n; v++) {
      next[v] = damping * next[v]! + (damping * dangling + 1 - damping) / n;
      change += Math.abs(next[v]! - x[v]!);
    }
    [x, next] = [next, x];
    if (change < tolerance) break;
  }
  return x;
}

function normalised(values: number[]): number[] {
  const total = values.reduce((s, x) => s + x, 0);
  return values.map((x) => x / total);
}

/**
 * Expected visits of Algorithm 2's walks (m from every page, stop with
 * probability 1 - c or at a dangling page): x = m 1 + c Q^T x, solved by
 * fixed-point iteration.
 */
export function expectedVisits(n: number, edges: readonly Edge[], damping: number, walksPerPage: number): number[] {
  const outDegree = new Array<number>(n).fill(0);
  for (const [a] of edges) outDegree[a]!++;
  let x = new Array<number>(n).fill(walksPerPage);
  for (let iteration = 0; iteration < 10_000; iteration++) {
    const next = new Array<number>(n).fill(walksPerPage);
    for (const [a, b] of edges) next[b]! += (damping * x[a]!) / outDegree[a]!;
    const change = next.reduce((s, v, i) => s + Math.abs(v - x[i]!), 0);
    x = next;
    if (change < 1e-12) break;
  }
  return x;
}

/** Two-sample Kolmogorov-Smirnov statistic D. */
export function kolmogorovSmirnov(a: readonly number[], b: readonly number[]): number {
  const sa = [...a].sort((x, y) => x - y);
  const sb = [...b].sort((x, y) => x - y);
  let i = 0;
  let j = 0;
  let d = 0;
  while (i < sa.length && j < sb.length) {
    const v = Math.min(sa[i]!, sb[j]!);
    while (i < sa.length && sa[i] === v) i++;
    while (j < sb.length && sb[j] === v) j++;
    d = Math.max(d, Math.abs(i / sa.length - j / sb.length));
  }
  return d;
}

/**
 * Maximum-entropy flow by infeasible-start Newton's method on the primal
 * (Boyd and Vandenberghe, Convex Optimization, 10.3): minimise
 * sum p ln(p / q) subject to A p = b, p > 0, for a small dense problem.
 * Independent of iterative scaling: it never uses the closed form.
 */
export function maximumEntropyFlow(prior: number[], constraints: number[][], rhs: number[]): number[] {
  const m = prior.length;
  const k = constraints.length;
  let p = new Array<number>(m).fill(1 / m);
  const residual = (x: number[], w: number[]): number[] => {
    const dual = x.map((v, e) => Math.log(v / prior[e]!) + 1 + constraints.reduce((s, row, r) => s + row[e]! * w[r]!, 0));
    const primal = constraints.map((row, r) => row.reduce((s, a, e) => s + a * x[e]!, 0) - rhs[r]!);
    return [...dual, ...primal];
  };
  let w = new Array<number>(k).fill(0);
  for (let iteration = 0; iteration < 200; iteration++) {
    const r = residual(p, w);
    const norm = Math.hypot(...r);
    if (norm < 1e-13) break;
    // KKT system [diag(1/p) A^T; A 0] [dp; dw] = -r, solved densely.
    const size = m + k;
    const K = Array.from({ length: size }, () => new Array<number>(size + 1).fill(0));
    for (let e = 0; e < m; e++) K[e]![e] = 1 / p[e]!;
    constraints.forEach((row, c) =>
      row.forEach((a, e) => {
        K[e]![m + c] = a;
        K[m + c]![e] = a;
      }),
    );
    for (let i = 0; i < size; i++) K[i]![size] = -r[i]!;
    for (let col = 0; col < size; col++) {
      let pivot = col;
      for (let i = col + 1; i < size; i++) if (Math.abs(K[i]![col]!) > Math.abs(K[pivot]![col]!)) pivot = i;
      [K[col], K[pivot]] = [K[pivot]!, K[col]!];
      if (Math.abs(K[col]![col]!) < 1e-300) continue;
      for (let i = 0; i < size; i++) {
        if (i === col) continue;
        const f = K[i]![col]! / K[col]![col]!;
        if (f === 0) continue;
        for (let j = col; j <= size; j++) K[i]![j]! -= f * K[col]![j]!;
      }
    }
    const delta = K.map((row, i) => (Math.abs(row[i]!) < 1e-300 ? 0 : row[size]! / row[i]!));
    let step = 1;
    while (p.some((v, e) => v + step * delta[e]! <= 0)) step /= 2;
    for (;;) {
      const nextP = p.map((v, e) => v + step * delta[e]!);
      const nextW = w.map((v, c) => v + step * delta[m + c]!);
      if (Math.hypot(...residual(nextP, nextW)) <= (1 - 0.01 * step) * norm || step < 1e-12) {
        p = nextP;
        w = nextW;
        break;
      }
      step /= 2;
    }
  }
  return p;
}
