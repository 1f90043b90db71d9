import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { linksSeenPageRank } from '../../src/analysis/links-seen-pagerank.js';
import { maxAbsDifference } from '../helpers.js';
import { densePageRank } from '../reference.js';

/** CSR of the fetched pages' links. */
function graphOf(lists: number[][], fetched: number[]): { known: number; offsets: Uint32Array; targets: Int32Array; fetched: Uint8Array } {
  const offsets = new Uint32Array(lists.length + 1);
  lists.forEach((l, u) => (offsets[u + 1] = offsets[u]! + l.length));
  return { known: lists.length, offsets, targets: Int32Array.from(lists.flat()), fetched: Uint8Array.from(fetched) };
}

describe('PageRank with the unseen links of unfetched pages guessed from the links seen', () => {
  it('equals a dense solve where an unfetched page links to each page weighted by its in-links from fetched pages', () => {
    // Fetched: 0 -> 1, 2, 3; 1 -> 0, 2; 4 dangling. Unfetched: 2, 3, 5.
    // In-links from fetched pages: 0: 1, 1: 1, 2: 2, 3: 1 (5 links seen).
    const lists = [[1, 2, 3], [0, 2], [], [], [], []];
    const result = linksSeenPageRank(graphOf(lists, [1, 1, 0, 0, 1, 0]), 0.85, 1e-14);
    const edges: Array<[number, number]> = [];
    const weights: number[] = [];
    lists.forEach((targets, u) => targets.forEach((v) => (edges.push([u, v]), weights.push(1))));
    for (const u of [2, 3, 5]) for (const [v, w] of [[0, 1], [1, 1], [2, 2], [3, 1]] as const) (edges.push([u, v]), weights.push(w));
    const expected = densePageRank(6, edges, { weights });
    assert.ok(maxAbsDifference(result.scores, expected) < 1e-12, `${result.scores} vs ${expected}`);
    // The guess moves mass to page 2 (linked from both fetched pages), above page 3 (from one).
    assert.ok(result.scores[2]! > result.scores[3]!);
  });

  it('is the PageRank of the graph once every page is fetched, and uniform spreading before any link is seen', () => {
    const lists = [[1, 2], [2], [0], [2], []];
    const edges = lists.flatMap((t, u) => t.map((v) => [u, v] as [number, number]));
    const all = linksSeenPageRank(graphOf(lists, [1, 1, 1, 1, 1]), 0.85, 1e-14);
    assert.ok(maxAbsDifference(all.scores, densePageRank(5, edges)) < 1e-12);
    const none = linksSeenPageRank(graphOf([[], [], []], [0, 0, 0]), 0.85, 1e-14);
    assert.ok(maxAbsDifference(none.scores, [1 / 3, 1 / 3, 1 / 3]) < 1e-15);
  });
});
