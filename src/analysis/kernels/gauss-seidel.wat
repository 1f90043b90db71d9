;; Gauss-Seidel sweeps of one thread's range of a large strongly connected
;; component (src/analysis/pagerank-scc.ts: sweepRange, sweepRangeMeasuringInflow),
;; as WebAssembly: the same operations in the same order, so the same bits, without
;; the bounds check V8 puts on every typed-array access (1.8x fewer ns per link on
;; cnr-2000, whose vector fits in cache; measured 2026-11-25).
;;
;; Every array is in the one shared memory the caller allocated (kernel-memory.ts);
;; pointers are byte offsets into it. For k in [a, b), j = order[k]:
;;   sum    = sum of z[inSources[q]] over q in [inOffsets[j], inOffsets[j+1])
;;   value  = (uniform ? uniformValue : teleport[j]) + c * sum
;;   change += |value - y[j]|; y[j] = value; z[j] = value * share[j]
;;   mass += value; retained += internalShare[j] * value
;; and `measure` also sums into inflow the z[u] of sources u outside the component.
;; out[0..3] = change, mass, retained, inflow.
(module
  (import "env" "memory" (memory 1 65536 shared))

  (func $sweep (export "sweep")
    (param $order i32) (param $inOffsets i32) (param $inSources i32) (param $share i32)
    (param $internalShare i32) (param $teleport i32) (param $y i32) (param $z i32)
    (param $component i32) (param $out i32)
    (param $a i32) (param $b i32) (param $c f64) (param $uniformValue f64) (param $uniform i32)
    (param $componentId i32) (param $measure i32)
    (local $k i32) (local $j i32) (local $q i32) (local $end i32) (local $u i32)
    (local $sum f64) (local $passed f64) (local $value f64) (local $base f64)
    (local $change f64) (local $mass f64) (local $retained f64) (local $inflow f64)
    (local $at i32)
    (local.set $k (local.get $a))
    (block $pagesDone
      (loop $pages
        (br_if $pagesDone (i32.ge_u (local.get $k) (local.get $b)))
        (local.set $j (i32.load (i32.add (local.get $order) (i32.shl (local.get $k) (i32.const 2)))))
        (local.set $at (i32.add (local.get $inOffsets) (i32.shl (local.get $j) (i32.const 2))))
        (local.set $q (i32.load (local.get $at)))
        (local.set $end (i32.load offset=4 (local.get $at)))
        (local.set $sum (f64.const 0))
        (if (local.get $measure)
          (then
            (block $measuredDone
              (loop $measured
                (br_if $measuredDone (i32.ge_u (local.get $q) (local.get $end)))
                (local.set $u (i32.load (i32.add (local.get $inSources) (i32.shl (local.get $q) (i32.const 2)))))
                (local.set $passed (f64.load (i32.add (local.get $z) (i32.shl (local.get $u) (i32.const 3)))))
                (local.set $sum (f64.add (local.get $sum) (local.get $passed)))
                (if (i32.ne
                      (i32.load (i32.add (local.get $component) (i32.shl (local.get $u) (i32.const 2))))
                      (local.get $componentId))
                  (then (local.set $inflow (f64.add (local.get $inflow) (local.get $passed)))))
                (local.set $q (i32.add (local.get $q) (i32.const 1)))
                (br $measured))))
          (else
            (block $linksDone
              (loop $links
                (br_if $linksDone (i32.ge_u (local.get $q) (local.get $end)))
                (local.set $sum
                  (f64.add (local.get $sum)
                    (f64.load (i32.add (local.get $z)
                      (i32.shl (i32.load (i32.add (local.get $inSources) (i32.shl (local.get $q) (i32.const 2))))
                               (i32.const 3))))))
                (local.set $q (i32.add (local.get $q) (i32.const 1)))
                (br $links)))))
        (local.set $base
          (if (result f64) (local.get $uniform)
            (then (local.get $uniformValue))
            (else (f64.load (i32.add (local.get $teleport) (i32.shl (local.get $j) (i32.const 3)))))))
        (local.set $value (f64.add (local.get $base) (f64.mul (local.get $c) (local.get $sum))))
        (local.set $at (i32.shl (local.get $j) (i32.const 3)))
        (local.set $change
          (f64.add (local.get $change)
            (f64.abs (f64.sub (local.get $value) (f64.load (i32.add (local.get $y) (local.get $at)))))))
        (f64.store (i32.add (local.get $y) (local.get $at)) (local.get $value))
        (f64.store (i32.add (local.get $z) (local.get $at))
          (f64.mul (local.get $value) (f64.load (i32.add (local.get $share) (local.get $at)))))
        (local.set $mass (f64.add (local.get $mass) (local.get $value)))
        (local.set $retained
          (f64.add (local.get $retained)
            (f64.mul (f64.load (i32.add (local.get $internalShare) (local.get $at))) (local.get $value))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $pages)))
    (f64.store (local.get $out) (local.get $change))
    (f64.store offset=8 (local.get $out) (local.get $mass))
    (f64.store offset=16 (local.get $out) (local.get $retained))
    (f64.store offset=24 (local.get $out) (local.get $inflow)))
;; After a sweep (pagerank-scc.ts, sweepLargeComponent), for k in [a, b), j = order[k]:
  ;; y[j] *= scale, z[j] *= scale (rescale = 1; the mass balance); then with extrapolate = 1,
  ;; y[j] += (y[j] - previous[j]) * factor and z[j] = y[j] * share[j]; previous[j] = y[j]
  ;; (keep = 1: the next sweep's start); other[j] = z[j] (copy = 1: the hand-off of this
  ;; thread's range to another thread's view of the vector).
  (func $handOff (export "handOff")
    (param $order i32) (param $y i32) (param $z i32) (param $other i32)
    (param $a i32) (param $b i32) (param $scale f64) (param $rescale i32) (param $copy i32)
    (param $previous i32) (param $share i32) (param $factor f64) (param $extrapolate i32) (param $keep i32)
    (local $k i32) (local $at i32) (local $value f64)
    (local.set $k (local.get $a))
    (block $done
      (loop $pages
        (br_if $done (i32.ge_u (local.get $k) (local.get $b)))
        (local.set $at
          (i32.shl (i32.load (i32.add (local.get $order) (i32.shl (local.get $k) (i32.const 2)))) (i32.const 3)))
        (if (local.get $rescale)
          (then
            (f64.store (i32.add (local.get $y) (local.get $at))
              (f64.mul (f64.load (i32.add (local.get $y) (local.get $at))) (local.get $scale)))
            (f64.store (i32.add (local.get $z) (local.get $at))
              (f64.mul (f64.load (i32.add (local.get $z) (local.get $at))) (local.get $scale)))))
        (if (local.get $extrapolate)
          (then
            (local.set $value (f64.load (i32.add (local.get $y) (local.get $at))))
            (local.set $value
              (f64.add (local.get $value)
                (f64.mul
                  (f64.sub (local.get $value) (f64.load (i32.add (local.get $previous) (local.get $at))))
                  (local.get $factor))))
            (f64.store (i32.add (local.get $y) (local.get $at)) (local.get $value))
            (f64.store (i32.add (local.get $z) (local.get $at))
              (f64.mul (local.get $value) (f64.load (i32.add (local.get $share) (local.get $at)))))))
        (if (local.get $keep)
          (then
            (f64.store (i32.add (local.get $previous) (local.get $at))
              (f64.load (i32.add (local.get $y) (local.get $at))))))
        (if (local.get $copy)
          (then
            (f64.store (i32.add (local.get $other) (local.get $at))
              (f64.load (i32.add (local.get $z) (local.get $at))))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $pages))))

  ;; The check's first pass (pagerank-scc.ts, googleStepThread) over pages [a, b):
  ;; out[0] = sum of y[v], out[1] = sum of y[v] over dangling pages (share[v] = 0).
  (func $massAndDangling (export "massAndDangling")
    (param $y i32) (param $share i32) (param $out i32) (param $a i32) (param $b i32)
    (local $v i32) (local $at i32) (local $value f64) (local $mass f64) (local $dangling f64)
    (local.set $v (local.get $a))
    (block $done
      (loop $pages
        (br_if $done (i32.ge_u (local.get $v) (local.get $b)))
        (local.set $at (i32.shl (local.get $v) (i32.const 3)))
        (local.set $value (f64.load (i32.add (local.get $y) (local.get $at))))
        (local.set $mass (f64.add (local.get $mass) (local.get $value)))
        (if (f64.eq (f64.load (i32.add (local.get $share) (local.get $at))) (f64.const 0))
          (then (local.set $dangling (f64.add (local.get $dangling) (local.get $value)))))
        (local.set $v (i32.add (local.get $v) (i32.const 1)))
        (br $pages)))
    (f64.store (local.get $out) (local.get $mass))
    (f64.store offset=8 (local.get $out) (local.get $dangling)))

  ;; The check's pull over pages [a, b): stepped[v] = cScale * (sum of z[u] over v's in-links)
  ;; + jump * (uniform ? uniformValue : teleport[v]); out[0] = sum of |stepped[v] - y[v] * scale|.
  (func $googlePull (export "googlePull")
    (param $inOffsets i32) (param $inSources i32) (param $z i32) (param $y i32) (param $teleport i32)
    (param $stepped i32) (param $out i32) (param $a i32) (param $b i32)
    (param $cScale f64) (param $jump f64) (param $scale f64) (param $uniformValue f64) (param $uniform i32)
    (local $v i32) (local $q i32) (local $end i32) (local $at i32)
    (local $sum f64) (local $value f64) (local $residual f64)
    (local.set $v (local.get $a))
    (local.set $q (i32.load (i32.add (local.get $inOffsets) (i32.shl (local.get $a) (i32.const 2)))))
    (block $done
      (loop $pages
        (br_if $done (i32.ge_u (local.get $v) (local.get $b)))
        (local.set $end (i32.load offset=4 (i32.add (local.get $inOffsets) (i32.shl (local.get $v) (i32.const 2)))))
        (local.set $sum (f64.const 0))
        (block $linksDone
          (loop $links
            (br_if $linksDone (i32.ge_u (local.get $q) (local.get $end)))
            (local.set $sum
              (f64.add (local.get $sum)
                (f64.load (i32.add (local.get $z)
                  (i32.shl (i32.load (i32.add (local.get $inSources) (i32.shl (local.get $q) (i32.const 2))))
                           (i32.const 3))))))
            (local.set $q (i32.add (local.get $q) (i32.const 1)))
            (br $links)))
        (local.set $at (i32.shl (local.get $v) (i32.const 3)))
        (local.set $value
          (f64.add (f64.mul (local.get $cScale) (local.get $sum))
            (f64.mul (local.get $jump)
              (if (result f64) (local.get $uniform)
                (then (local.get $uniformValue))
                (else (f64.load (i32.add (local.get $teleport) (local.get $at))))))))
        (f64.store (i32.add (local.get $stepped) (local.get $at)) (local.get $value))
        (local.set $residual
          (f64.add (local.get $residual)
            (f64.abs (f64.sub (local.get $value)
              (f64.mul (f64.load (i32.add (local.get $y) (local.get $at))) (local.get $scale))))))
        (local.set $v (i32.add (local.get $v) (i32.const 1)))
        (br $pages)))
    (f64.store (local.get $out) (local.get $residual)))
;; Components of a single page, a run of them at positions [a, b) in topological order
  ;; (pagerank-scc.ts: each exact in one pull, its sources final): j = order[k],
  ;; y[j] = (uniform ? uniformValue : teleport[j]) + c * (sum of z over j's in-links),
  ;; z[j] = y[j] * share[j]. Returns the links pulled.
  (func $singles (export "singles")
    (param $order i32) (param $inOffsets i32) (param $inSources i32) (param $share i32)
    (param $teleport i32) (param $y i32) (param $z i32)
    (param $a i32) (param $b i32) (param $c f64) (param $uniformValue f64) (param $uniform i32)
    (result i32)
    (local $k i32) (local $j i32) (local $q i32) (local $end i32) (local $at i32) (local $links i32)
    (local $sum f64) (local $value f64)
    (local.set $k (local.get $a))
    (block $done
      (loop $pages
        (br_if $done (i32.ge_u (local.get $k) (local.get $b)))
        (local.set $j (i32.load (i32.add (local.get $order) (i32.shl (local.get $k) (i32.const 2)))))
        (local.set $at (i32.add (local.get $inOffsets) (i32.shl (local.get $j) (i32.const 2))))
        (local.set $q (i32.load (local.get $at)))
        (local.set $end (i32.load offset=4 (local.get $at)))
        (local.set $links (i32.add (local.get $links) (i32.sub (local.get $end) (local.get $q))))
        (local.set $sum (f64.const 0))
        (block $linksDone
          (loop $links
            (br_if $linksDone (i32.ge_u (local.get $q) (local.get $end)))
            (local.set $sum
              (f64.add (local.get $sum)
                (f64.load (i32.add (local.get $z)
                  (i32.shl (i32.load (i32.add (local.get $inSources) (i32.shl (local.get $q) (i32.const 2))))
                           (i32.const 3))))))
            (local.set $q (i32.add (local.get $q) (i32.const 1)))
            (br $links)))
        (local.set $at (i32.shl (local.get $j) (i32.const 3)))
        (local.set $value
          (f64.add
            (if (result f64) (local.get $uniform)
              (then (local.get $uniformValue))
              (else (f64.load (i32.add (local.get $teleport) (local.get $at)))))
            (f64.mul (local.get $c) (local.get $sum))))
        (f64.store (i32.add (local.get $y) (local.get $at)) (local.get $value))
        (f64.store (i32.add (local.get $z) (local.get $at))
          (f64.mul (local.get $value) (f64.load (i32.add (local.get $share) (local.get $at)))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $pages)))
    (local.get $links))

  ;; A sweep of a small component over its local list of internal in-links
  ;; (pagerank-scc.ts, solveSmallComponent): for k in [0, size), j = order[s + k]:
  ;; value = constant[k] + c * (sum of z[sources[r]] over r in [offsets[k], offsets[k+1])),
  ;; change += |value - y[j]|, y[j] = value, z[j] = value * share[j], mass += value,
  ;; retained += internalShare[j] * value. out[0..2] = change, mass, retained.
  (func $smallSweep (export "smallSweep")
    (param $order i32) (param $offsets i32) (param $sources i32) (param $constant i32)
    (param $share i32) (param $internalShare i32) (param $y i32) (param $z i32) (param $out i32)
    (param $s i32) (param $size i32) (param $c f64)
    (local $k i32) (local $j i32) (local $r i32) (local $end i32) (local $at i32)
    (local $sum f64) (local $value f64) (local $change f64) (local $mass f64) (local $retained f64)
    (block $done
      (loop $pages
        (br_if $done (i32.ge_u (local.get $k) (local.get $size)))
        (local.set $j
          (i32.load (i32.add (local.get $order) (i32.shl (i32.add (local.get $s) (local.get $k)) (i32.const 2)))))
        (local.set $at (i32.add (local.get $offsets) (i32.shl (local.get $k) (i32.const 2))))
        (local.set $r (i32.load (local.get $at)))
        (local.set $end (i32.load offset=4 (local.get $at)))
        (local.set $sum (f64.const 0))
        (block $linksDone
          (loop $links
            (br_if $linksDone (i32.ge_u (local.get $r) (local.get $end)))
            (local.set $sum
              (f64.add (local.get $sum)
                (f64.load (i32.add (local.get $z)
                  (i32.shl (i32.load (i32.add (local.get $sources) (i32.shl (local.get $r) (i32.const 2))))
                           (i32.const 3))))))
            (local.set $r (i32.add (local.get $r) (i32.const 1)))
            (br $links)))
        (local.set $value
          (f64.add (f64.load (i32.add (local.get $constant) (i32.shl (local.get $k) (i32.const 3))))
            (f64.mul (local.get $c) (local.get $sum))))
        (local.set $at (i32.shl (local.get $j) (i32.const 3)))
        (local.set $change
          (f64.add (local.get $change)
            (f64.abs (f64.sub (local.get $value) (f64.load (i32.add (local.get $y) (local.get $at)))))))
        (f64.store (i32.add (local.get $y) (local.get $at)) (local.get $value))
        (f64.store (i32.add (local.get $z) (local.get $at))
          (f64.mul (local.get $value) (f64.load (i32.add (local.get $share) (local.get $at)))))
        (local.set $mass (f64.add (local.get $mass) (local.get $value)))
        (local.set $retained
          (f64.add (local.get $retained)
            (f64.mul (f64.load (i32.add (local.get $internalShare) (local.get $at))) (local.get $value))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $pages)))
    (f64.store (local.get $out) (local.get $change))
    (f64.store offset=8 (local.get $out) (local.get $mass))
    (f64.store offset=16 (local.get $out) (local.get $retained)))
)
