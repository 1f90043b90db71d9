/**
 * The k best pages of a score vector, highest score first; equal scores are
 * ordered by increasing id so results are reproducible.
 */
export function topK(scores: ArrayLike<number>, k: number): Int32Array {
  return topKBy(scores.length, (v) => scores[v]!, k);
}

/** The same over n pages whose scores `scoreOf` computes (no vector of them is built). */
export function topKBy(n: number, scoreOf: (v: number) => number, k: number): Int32Array {
  const size = Math.max(0, Math.min(k, n));
  if (size === 0) return new Int32Array(0);
  // "a before b" in the final order.
  const better = (a: number, b: number): boolean => {
    const sa = scoreOf(a);
    const sb = scoreOf(b);
    return sa > sb || (sa === sb && a < b);
  };
  if (size * 4 >= n) {
    const all = Array.from({ length: n }, (_, i) => i);
    all.sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0));
    return Int32Array.from(all.slice(0, size));
  }
  // A heap of the best `size` seen so far, whose root is the worst of them.
  const heap = new Int32Array(size);
  let filled = 0;
  const siftDown = (start: number): void => {
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= filled) return;
      const right = left + 1;
      let worst = left;
      if (right < filled && better(heap[left]!, heap[right]!)) worst = right;
      if (!better(heap[i]!, heap[worst]!)) return;
      const t = heap[i]!;
      heap[i] = heap[worst]!;
      heap[worst] = t;
      i = worst;
    }
  };
  for (let v = 0; v < n; v++) {
    if (filled < size) {
      let i = filled++;
      heap[i] = v;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!better(heap[parent]!, heap[i]!)) break;
        const t = heap[i]!;
        heap[i] = heap[parent]!;
        heap[parent] = t;
        i = parent;
      }
    } else if (better(v, heap[0]!)) {
      heap[0] = v;
      siftDown(0);
    }
  }
  const result = Array.from(heap);
  result.sort((a, b) => (better(a, b) ? -1 : 1));
  return Int32Array.from(result);
}
