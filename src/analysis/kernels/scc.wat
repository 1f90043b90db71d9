;; Tarjan's strongly connected components (src/analysis/scc.ts: TarjanSearch), as
;; WebAssembly: the same search in the same order, so the same component ids, without
;; the bounds checks V8 puts on every typed-array access.
;;
;; Every array is in the memory the caller allocated (kernel-memory.ts); pointers are
;; byte offsets. index and component start at -1; stack, callPage and callEdge hold up to
;; n entries; sizes[c] receives the size of component c. Returns the number of components.
(module
  (import "env" "memory" (memory 1 65536 shared))

  (func $tarjan (export "tarjan")
    (param $outOffsets i32) (param $outTargets i32) (param $index i32) (param $low i32)
    (param $component i32) (param $stack i32) (param $callPage i32) (param $callEdge i32)
    (param $sizes i32) (param $n i32)
    (result i32)
    (local $root i32) (local $counter i32) (local $count i32) (local $stackSize i32)
    (local $depth i32) (local $v i32) (local $e i32) (local $w i32) (local $size i32)
    (local $parent i32) (local $lowV i32) (local $top i32)
    (block $rootsDone
      (loop $roots
        (br_if $rootsDone (i32.ge_u (local.get $root) (local.get $n)))
        (if (i32.eq (i32.load (i32.add (local.get $index) (i32.shl (local.get $root) (i32.const 2)))) (i32.const -1))
          (then
            ;; index[root] = low[root] = counter++; stack = [root]; call stack = [(root, first out-link)]
            (i32.store (i32.add (local.get $index) (i32.shl (local.get $root) (i32.const 2))) (local.get $counter))
            (i32.store (i32.add (local.get $low) (i32.shl (local.get $root) (i32.const 2))) (local.get $counter))
            (local.set $counter (i32.add (local.get $counter) (i32.const 1)))
            (i32.store (local.get $stack) (local.get $root))
            (local.set $stackSize (i32.const 1))
            (i32.store (local.get $callPage) (local.get $root))
            (i32.store (local.get $callEdge)
              (i32.load (i32.add (local.get $outOffsets) (i32.shl (local.get $root) (i32.const 2)))))
            (local.set $depth (i32.const 1))
            (block $searchDone
              (loop $search
                (br_if $searchDone (i32.eqz (local.get $depth)))
                (local.set $top (i32.shl (i32.sub (local.get $depth) (i32.const 1)) (i32.const 2)))
                (local.set $v (i32.load (i32.add (local.get $callPage) (local.get $top))))
                (local.set $e (i32.load (i32.add (local.get $callEdge) (local.get $top))))
                (if (i32.lt_u (local.get $e)
                      (i32.load offset=4 (i32.add (local.get $outOffsets) (i32.shl (local.get $v) (i32.const 2)))))
                  (then
                    (i32.store (i32.add (local.get $callEdge) (local.get $top)) (i32.add (local.get $e) (i32.const 1)))
                    (local.set $w (i32.load (i32.add (local.get $outTargets) (i32.shl (local.get $e) (i32.const 2)))))
                    (if (i32.eq (i32.load (i32.add (local.get $index) (i32.shl (local.get $w) (i32.const 2)))) (i32.const -1))
                      (then
                        ;; A tree link: visit w.
                        (i32.store (i32.add (local.get $index) (i32.shl (local.get $w) (i32.const 2))) (local.get $counter))
                        (i32.store (i32.add (local.get $low) (i32.shl (local.get $w) (i32.const 2))) (local.get $counter))
                        (local.set $counter (i32.add (local.get $counter) (i32.const 1)))
                        (i32.store (i32.add (local.get $stack) (i32.shl (local.get $stackSize) (i32.const 2))) (local.get $w))
                        (local.set $stackSize (i32.add (local.get $stackSize) (i32.const 1)))
                        (i32.store (i32.add (local.get $callPage) (i32.shl (local.get $depth) (i32.const 2))) (local.get $w))
                        (i32.store (i32.add (local.get $callEdge) (i32.shl (local.get $depth) (i32.const 2)))
                          (i32.load (i32.add (local.get $outOffsets) (i32.shl (local.get $w) (i32.const 2)))))
                        (local.set $depth (i32.add (local.get $depth) (i32.const 1))))
                      (else
                        ;; w still on Tarjan's stack (no component yet) with a smaller index: low[v] = index[w].
                        (if (i32.eq (i32.load (i32.add (local.get $component) (i32.shl (local.get $w) (i32.const 2)))) (i32.const -1))
                          (then
                            (if (i32.lt_s
                                  (i32.load (i32.add (local.get $index) (i32.shl (local.get $w) (i32.const 2))))
                                  (i32.load (i32.add (local.get $low) (i32.shl (local.get $v) (i32.const 2)))))
                              (then
                                (i32.store (i32.add (local.get $low) (i32.shl (local.get $v) (i32.const 2)))
                                  (i32.load (i32.add (local.get $index) (i32.shl (local.get $w) (i32.const 2)))))))))))
                    (br $search)))
                ;; v's links are done: leave it.
                (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
                (local.set $lowV (i32.load (i32.add (local.get $low) (i32.shl (local.get $v) (i32.const 2)))))
                (if (i32.eq (local.get $lowV) (i32.load (i32.add (local.get $index) (i32.shl (local.get $v) (i32.const 2)))))
                  (then
                    ;; v roots a component: pop it off Tarjan's stack.
                    (local.set $size (i32.const 0))
                    (loop $pop
                      (local.set $stackSize (i32.sub (local.get $stackSize) (i32.const 1)))
                      (local.set $w (i32.load (i32.add (local.get $stack) (i32.shl (local.get $stackSize) (i32.const 2)))))
                      (i32.store (i32.add (local.get $component) (i32.shl (local.get $w) (i32.const 2))) (local.get $count))
                      (local.set $size (i32.add (local.get $size) (i32.const 1)))
                      (br_if $pop (i32.ne (local.get $w) (local.get $v))))
                    (i32.store (i32.add (local.get $sizes) (i32.shl (local.get $count) (i32.const 2))) (local.get $size))
                    (local.set $count (i32.add (local.get $count) (i32.const 1)))))
                (if (i32.gt_u (local.get $depth) (i32.const 0))
                  (then
                    (local.set $parent
                      (i32.load (i32.add (local.get $callPage) (i32.shl (i32.sub (local.get $depth) (i32.const 1)) (i32.const 2)))))
                    (if (i32.lt_s (local.get $lowV)
                          (i32.load (i32.add (local.get $low) (i32.shl (local.get $parent) (i32.const 2)))))
                      (then
                        (i32.store (i32.add (local.get $low) (i32.shl (local.get $parent) (i32.const 2))) (local.get $lowV))))))
                (br $search)))))
        (local.set $root (i32.add (local.get $root) (i32.const 1)))
        (br $roots)))
    (local.get $count))
)
