/**
 * Seeded random directed graphs with a prescribed in-degree distribution, the
 * synthetic webs of the OPIC paper's experiments (Abiteboul, Preda, Cobena,
 * Section 6): every page draws its in-degree, power-law P(I = k) ~ k^-2.1 or
 * Poisson, and that many distinct pages are drawn uniformly to link to it.
 * Out-degrees are then binomial. A share of pages can be made dangling (they
 * link nowhere), as a quarter of real web pages are.
 */
import { OptionError } from '../errors.js';
import { type BuiltGraph, buildFromEdges } from '../graph/builder.js';
import { EdgeBuffer } from '../graph/edge-buffer.js';
import { IdentityLabels } from '../graph/labels.js';
import { Random } from '../util/random.js';

export interface GeneratorOptions {
  nodes: number;
  /** Share of pages with no out-links, in [0, 1): 0. */
  danglingShare?: number;
  seed?: number;
}

export interface PowerLawOptions extends GeneratorOptions {
  /** The exponent of P(I = k) ~ k^-exponent: 2.1 (the web's, as in the OPIC paper). */
  exponent?: number;
  /** Smallest in-degree drawn: 1. */
  minInDegree?: number;
  /** Largest in-degree drawn: the number of pages that can link. */
  maxInDegree?: number;
}

export interface PoissonOptions extends GeneratorOptions {
  meanInDegree: number;
}

/** A graph whose in-degrees follow a truncated discrete power law. */
export function powerLawGraph(options: PowerLawOptions): BuiltGraph {
  const exponent = options.exponent ?? 2.1;
  if (!(exponent > 1)) throw new OptionError('exponent', `must be above 1, got ${exponent}`);
  const { nodes } = checkCommon(options);
  const minDegree = options.minInDegree ?? 1;
  const maxDegree = Math.min(options.maxInDegree ?? nodes - 1, nodes - 1);
  if (!(Number.isInteger(minDegree) && minDegree >= 0 && minDegree <= maxDegree)) {
    throw new OptionError('min-in-degree', `must be an integer in 0..${maxDegree}, got ${minDegree}`);
  }
  // Cumulative weights k^-exponent for k = minDegree..maxDegree (k = 0 has weight 0 unless it is the only one).
  const span = maxDegree - minDegree + 1;
  const cumulative = new Float64Array(span);
  let total = 0;
  for (let i = 0; i < span; i++) {
    const k = minDegree + i;
    total += k === 0 ? 0 : k ** -exponent;
    cumulative[i] = total;
  }
  return generate(options, (random) => {
    if (total === 0) return 0;
    const u = random.next() * total;
    let lo = 0;
    let hi = span - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cumulative[mid]! > u) hi = mid;
      else lo = mid + 1;
    }
    return minDegree + lo;
  });
}

/** A graph whose in-degrees are Poisson with the given mean. */
export function poissonGraph(options: PoissonOptions): BuiltGraph {
  const mean = options.meanInDegree;
  if (!(mean >= 0 && mean <= 500)) throw new OptionError('mean-in-degree', `must be in [0, 500], got ${mean}`);
  const zero = Math.exp(-mean);
  return generate(options, (random) => {
    // Inversion: walk the cumulative distribution from k = 0.
    const u = random.next();
    let k = 0;
    let p = zero;
    let cumulative = p;
    while (u >= cumulative && k < 10_000) {
      k++;
      p *= mean / k;
      cumulative += p;
    }
    return k;
  });
}

function checkCommon(options: GeneratorOptions): { nodes: number; danglingShare: number } {
  const nodes = options.nodes;
  if (!(Number.isInteger(nodes) && nodes >= 2 && nodes <= 0x7fffffff)) {
    throw new OptionError('pages', `must be an integer of at least 2, got ${nodes}`);
  }
  const danglingShare = options.danglingShare ?? 0;
  if (!(danglingShare >= 0 && danglingShare < 1)) {
    throw new OptionError('dangling-share', `must be in [0, 1), got ${danglingShare}`);
  }
  return { nodes, danglingShare };
}

/**
 * For every page, draws its in-degree and then that many distinct linking
 * pages (Floyd's sampling without replacement) among the non-dangling pages.
 */
function generate(options: GeneratorOptions, drawInDegree: (random: Random) => number): BuiltGraph {
  const { nodes, danglingShare } = checkCommon(options);
  const random = new Random(options.seed ?? 1);
  // The pages that have out-links: all but a random danglingShare of them.
  const linking: number[] = [];
  for (let v = 0; v < nodes; v++) if (random.next() >= danglingShare) linking.push(v);
  if (linking.length === 0) linking.push(0);
  const pool = Int32Array.from(linking);
  const positionInPool = new Int32Array(nodes).fill(-1);
  pool.forEach((v, i) => {
    positionInPool[v] = i;
  });
  const edges = new EdgeBuffer();
  const chosen = new Set<number>();
  for (let target = 0; target < nodes; target++) {
    const self = positionInPool[target]!;
    // Candidates: pool indices without the target itself.
    const candidates = self >= 0 ? pool.length - 1 : pool.length;
    const degree = Math.min(drawInDegree(random), candidates);
    chosen.clear();
    for (let j = candidates - degree; j < candidates; j++) {
      const t = random.nextInt(j + 1);
      chosen.add(chosen.has(t) ? j : t);
    }
    for (const index of chosen) {
      const position = self >= 0 && index >= self ? index + 1 : index;
      edges.push(pool[position]!, target);
    }
  }
  return buildFromEdges(nodes, edges, new IdentityLabels(nodes));
}
