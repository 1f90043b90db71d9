// ngraph.pagerank ships no types: the one function the benchmark calls.
declare module 'ngraph.pagerank' {
  import type { Graph } from 'ngraph.graph';
  /** Scores by node id; stops when the L1 change between iterates is below epsilon (default 0.005). */
  export default function pageRank(graph: Graph, internalJumpProbability?: number, epsilon?: number): Record<string, number>;
}
