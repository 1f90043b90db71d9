/**
 * The k best pages of a score vector, highest score first; equal scores are
 * ordered by increasing id so results are reproducible.
 */
export function topK(scores: ArrayLike<number>, k: number): Int32Array {
  return topKBy(scores.length, (v) => scores[v]!, k);
}

/**
 * The same over n pages whose scores `scoreOf` computes (no vector of them is built). Each page's
 * score is asked for once: the heap keeps its members' scores beside them (the live PageRank's
 * worker calls this over every known page at each update, and asking twice per comparison was a
 * tenth of its time in crawl profiles).
 */
export function topKBy(n: number, scoreOf: (v: number) => number, k: number): Int32Array {
  const size = Math.max(0, Math.min(k, n));
  if (size === 0) return new Int32Array(0);
  // "page a of score sa before page b of score sb" in the final order.
  const better = (sa: number, a: number, sb: number, b: number): boolean => sa > sb || (sa === sb && a < b);
  if (size * 4 >= n) {
    const scores = new Float64Array(n);
    for (let v = 0; v < n; v++) scores[v] = scoreOf(v);
    const all = Array.from({ length: n }, (_, i) => i);
    all.sort((a, b) => (better(scores[a]!, a, scores[b]!, b) ? -1 : better(scores[b]!, b, scores[a]!, a) ? 1 : 0));
    return Int32Array.from(all.slice(0, size));
  }
  // A heap of the best `size` seen so far, whose root is the worst of them.
  const heap = new Int32Array(size);
  const heapScores = new Float64Array(size);
  let filled = 0;
  const swap = (i: number, j: number): void => {
    const t = heap[i]!;
    heap[i] = heap[j]!;
    heap[j] = t;
    const ts = heapScores[i]!;
    heapScores[i] = heapScores[j]!;
    heapScores[j] = ts;
  };
  const before = (i: number, j: number): boolean => better(heapScores[i]!, heap[i]!, heapScores[j]!, heap[j]!);
  const siftDown = (start: number): void => {
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= filled) return;
      const right = left + 1;
      let worst = left;
      if (right < filled && before(left, right)) worst = right;
      if (!before(i, worst)) return;
      swap(i, worst);
      i = worst;
    }
  };
  for (let v = 0; v < n; v++) {
    const score = scoreOf(v);
    if (filled < size) {
      let i = filled++;
      heap[i] = v;
      heapScores[i] = score;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!before(parent, i)) break;
        swap(i, parent);
        i = parent;
      }
    } else if (better(score, v, heapScores[0]!, heap[0]!)) {
      heap[0] = v;
      heapScores[0] = score;
      siftDown(0);
    }
  }
  const order = Array.from({ length: filled }, (_, i) => i);
  order.sort((a, b) => (before(a, b) ? -1 : 1));
  return Int32Array.from(order, (i) => heap[i]!);
}
