/**
 * A graph that changes while it is crawled, for the OPIC paper's
 * experiments (Section 4.2): the change rate is "the number of pages that
 * have their in-degree significantly modified (i.e. divided by two or
 * multiplied by two) during the time of crawling N pages".
 */
import { buildFromRows } from '../graph/builder.js';
import { allocateCsr } from '../graph/csr.js';
import type { Graph } from '../graph/graph.js';
import { IdentityLabels } from '../graph/labels.js';
import { Random } from '../util/random.js';

export class DynamicGraph {
  private readonly out: number[][];
  private readonly into: number[][];
  private links = 0;

  constructor(graph: Graph) {
    const n = graph.nodeCount;
    this.out = Array.from({ length: n }, (_, v) => Array.from(graph.successors(v)));
    this.into = Array.from({ length: n }, (_, v) => Array.from(graph.predecessors(v)));
    this.links = graph.edgeCount;
  }

  get nodeCount(): number {
    return this.out.length;
  }

  get edgeCount(): number {
    return this.links;
  }

  successors(v: number): readonly number[] {
    return this.out[v]!;
  }

  inDegree(v: number): number {
    return this.into[v]!.length;
  }

  /** Adds as many new in-links to page j as it has (at least one), from random pages. */
  doubleInDegree(j: number, random: Random): number {
    const wanted = Math.max(1, this.into[j]!.length);
    const present = new Set(this.into[j]);
    let added = 0;
    for (let attempt = 0; added < wanted && attempt < 20 * wanted; attempt++) {
      const i = random.nextInt(this.nodeCount);
      if (i === j || present.has(i)) continue;
      present.add(i);
      this.out[i]!.push(j);
      this.into[j]!.push(i);
      added++;
    }
    this.links += added;
    return added;
  }

  /** Removes half of page j's in-links (rounded down), chosen at random. */
  halveInDegree(j: number, random: Random): number {
    const sources = this.into[j]!;
    const remove = Math.floor(sources.length / 2);
    for (let k = 0; k < remove; k++) {
      const at = random.nextInt(sources.length);
      const i = sources[at]!;
      sources[at] = sources[sources.length - 1]!;
      sources.pop();
      const list = this.out[i]!;
      const position = list.indexOf(j);
      list[position] = list[list.length - 1]!;
      list.pop();
    }
    this.links -= remove;
    return remove;
  }

  /** One change of the paper's change process: a random page's in-degree halved or doubled. */
  change(random: Random): void {
    const j = random.nextInt(this.nodeCount);
    if (random.nextInt(2) === 0) this.doubleInDegree(j, random);
    else this.halveInDegree(j, random);
  }

  /** The current graph as an immutable CSR graph (ids = labels). */
  snapshot(): Graph {
    const n = this.nodeCount;
    const rows = allocateCsr(n, this.links, false);
    let k = 0;
    for (let v = 0; v < n; v++) {
      rows.offsets[v] = k;
      for (const w of this.out[v]!) rows.targets[k++] = w;
    }
    rows.offsets[n] = k;
    return buildFromRows(n, rows, new IdentityLabels(n), { selfLoopsRemoved: true }).graph;
  }
}

/**
 * Spreads `rate * pagesPerCrawl` changes evenly over a crawl of
 * `pagesPerCrawl` reads: call `afterRead()` after every read.
 */
export class ChangeProcess {
  private owed = 0;
  private readonly random: Random;

  constructor(
    private readonly graph: DynamicGraph,
    /** Share of pages changed per crawl of N pages, e.g. 0.01 for 1%. */
    private readonly rate: number,
    seed: number,
  ) {
    this.random = new Random(seed);
  }

  afterRead(): void {
    this.owed += this.rate;
    while (this.owed >= 1) {
      this.graph.change(this.random);
      this.owed -= 1;
    }
  }
}
