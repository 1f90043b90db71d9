/**
 * wga as a library: graphs on typed arrays, readers for web graph files, and
 * pure analysis functions `(graph, options) -> result`. See the README's
 * "Library API" section.
 */
export { Graph } from './graph/graph.js';
export { type Labels, IdentityLabels, IntegerLabels, TextLabels, AttachedLabels } from './graph/labels.js';
export { EdgeBuffer } from './graph/edge-buffer.js';
export { EdgeCollector } from './graph/edge-collector.js';
export { type BuildOptions, type BuildReport, type BuiltGraph, buildFromEdges, buildFromRows } from './graph/builder.js';

export { type EdgeListOptions, type Separator, EdgeListParser, parseEdgeList, readEdgeList } from './formats/edgelist.js';
export { type BvProperties, bvFiles, decodeBvGraph, parseProperties, readWebGraph } from './formats/webgraph-bv.js';
export { type GraphLevel, GRAPH_LEVELS, type HostGraph, domainOfHost, groupNodes, hostGraph, hostOfUrl, reverseHost, siteGraph } from './graph/hosts.js';
export { findCommonCrawlFiles, readCommonCrawl } from './formats/commoncrawl.js';
export { rankPositions as ranksTablePositions, writeRanksTable } from './formats/ranks-table.js';
export { jackknife } from './analysis/jackknife.js';
export {
  type CompactLists,
  CompactListsWriter,
  compactBytes,
  compactFromGraph,
  compactOutListsFromGraph,
  encodeInLists,
  encodeLists,
  listBytes,
  listOf,
  listStart,
  transposeCompact,
  transposeDegrees,
} from './graph/compact.js';
export { compactPageRank, compactLumpedPageRank, compactOutDegrees } from './analysis/pagerank-compact.js';
export { compactLevels, compactScc } from './analysis/compact-search.js';
export { CompactFile, CompactFileWriter, readCompactAsGraph } from './formats/compact-file.js';
export { convertToCompact } from './formats/compact-convert.js';
export { generateHostGraph, hostNames } from './experiments/host-graph.js';
export { FrontCodedLabels, FrontCodedLabelsBuilder } from './graph/front-coded-labels.js';
export { EXPORT_FORMATS, type ExportFormat, type ExportInput, type ExportReport, exportGraph } from './app/export.js';
export { type BvRows, type BvWriteOptions, type BvWriteReport, BvEncoder, writeWebGraph } from './formats/webgraph-bv-writer.js';
export { ADJACENCY_MAGIC, AdjacencyWriter, readAdjacencyFile } from './formats/adjacency-binary.js';
export { type LabelFileReport, readLabelFile } from './formats/label-file.js';
export { type ScoreFormat, readScores, writeScores } from './formats/scores.js';
export { type GraphFormat, type LoadOptions, type LoadedGraph, detectFormat, loadGraph } from './formats/load.js';

export {
  type PageRankOptions,
  type PageRankResult,
  type PageRankSolver,
  PAGERANK_DEFAULTS,
  PAGERANK_SOLVERS,
  pagerank,
} from './analysis/pagerank.js';
export {
  type MonteCarloOptions,
  type MonteCarloResult,
  MONTE_CARLO_DEFAULTS,
  monteCarloPageRank,
} from './analysis/montecarlo.js';
export { type GraphChange, type UpdateReport, MonteCarloWalks, diffGraphs } from './analysis/montecarlo-incremental.js';
export { type RestrictedPageRankResult, restrictedPageRank } from './analysis/restricted.js';
export { type BowTieResult, type BowTiePartName, BOW_TIE_PARTS, BowTiePart, bowTie } from './analysis/bowtie.js';
export { type RelativeError, averageRanks, kendallTau, meanRelativeError, spearman, topOverlap } from './analysis/compare.js';
export { type Subgraph, SubsetLabels, inducedSubgraph } from './graph/subgraph.js';
export { defaultThreads } from './parallel/pool.js';
export { OPIC_STRATEGIES, Opic, type OpicOptions, type OpicStrategy } from './analysis/opic.js';
export {
  TRAFFIC_DEFAULTS,
  TRAFFIC_SWEEPS,
  type TrafficOptions,
  type TrafficResult,
  type TrafficSweep,
  trafficRank,
} from './analysis/traffic.js';
export {
  AGGREGATION_METHODS,
  type AggregationMethod,
  aggregateRanks,
  averageRankPosition,
  rankPositions,
} from './analysis/aggregate.js';
export { AdaptiveOpic, type WindowPolicy } from './analysis/adaptive-opic.js';
export { CORENESS_MODES, type CorenessMode, type DistanceCentralities, type HitsResult, coreness, distanceCentralities, hits } from './analysis/centrality.js';
export { type DistanceStatistics, type HyperBallOptions, type HyperBallResult, distanceStatistics, exactNeighbourhood, hyperBall } from './analysis/hyperball.js';
export {
  type Observation,
  type OpicExperimentOptions,
  type OpicExperimentResult,
  runOpicExperiments,
} from './experiments/opic-experiments.js';
export { writeOpicReport } from './experiments/opic-report.js';
export { ChangeProcess, DynamicGraph } from './experiments/dynamic-graph.js';
export { type ChartOptions, type Series, lineChart, seriesCsv } from './experiments/svg-plot.js';
export {
  type SccResult,
  componentOf,
  componentSizeDistribution,
  reachable,
  stronglyConnectedComponents,
} from './analysis/scc.js';
export { componentsOfLargeGraph, stronglyConnectedComponentsAroundPivot } from './analysis/scc-pivot.js';
export { type LevelsOptions, type LevelsResult, levels } from './analysis/levels.js';
export {
  type DegreeDistribution,
  type DegreeSummary,
  countDangling,
  danglingNodes,
  degreeDistribution,
  degreeSummary,
  inDegrees,
  outDegrees,
} from './analysis/degrees.js';
export { topK } from './analysis/top.js';

export { type PoissonOptions, type PowerLawOptions, poissonGraph, powerLawGraph } from './experiments/generators.js';
export { Random } from './util/random.js';
export {
  ExitCode,
  FileNotFoundError,
  InputFormatError,
  OptionError,
  UnknownNodeError,
  WgaError,
} from './errors.js';

// Stores and the crawler (see the README's "Stores" and "Crawling").
export { openStore } from './store/open.js';
export type { CrawlBatch, PageRecord, LinkRecord, RunPages, RunRecord, RunScores, Store, StoreCounts, StoredGraph } from './store/store.js';
export { Crawler, type CrawlCounters, type CrawlOptions, type CrawlProgress, type CrawlReport, type StopReason } from './crawl/crawler.js';
export { type CrawlSettings, DEFAULT_SETTINGS, completeSettings } from './crawl/settings.js';
export { type CrawlStrategy, CRAWL_STRATEGIES } from './crawl/frontier.js';
export { type ResolvedUrl, resolveUrl, urlKey } from './crawl/url.js';
export { Website } from './experiments/website.js';
export { serveWebsite, type ServedWebsite } from './experiments/website-server.js';
