import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ParallelTaskError, runParallel } from '../../src/parallel/pool.js';
import { poolSelfTest } from '../../src/parallel/tasks.js';

function marks(threads: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4 * threads));
}

describe('the worker pool', () => {
  it('runs a task on every thread', () => {
    const data = { marks: marks(3), fail: 'none' as const };
    runParallel('pool-self-test', data, 3, poolSelfTest);
    assert.deepEqual([...data.marks], [1, 2, 3]);
  });

  it("a worker's error while the others wait at a barrier: one line naming the task and the cause, at once", () => {
    const started = Date.now();
    assert.throws(
      () => runParallel('pool-self-test', { marks: marks(3), fail: 'throw' }, 3, poolSelfTest),
      (error: unknown) => {
        assert.ok(error instanceof ParallelTaskError);
        assert.match(error.message, /^parallel task 'pool-self-test' failed in a worker thread: failing on purpose \(at .*tasks\.js:\d+\)$/);
        return true;
      },
    );
    assert.ok(Date.now() - started < 60_000, 'not by a timeout');
    // The pool still works.
    const data = { marks: marks(3), fail: 'none' as const };
    runParallel('pool-self-test', data, 3, poolSelfTest);
    assert.deepEqual([...data.marks], [1, 2, 3]);
  });

  it('a worker thread that ends in the middle of a task (process.exit): one line, no hang, and the pool replaces it', () => {
    const started = Date.now();
    assert.throws(
      () => runParallel('pool-self-test', { marks: marks(3), fail: 'exit' }, 3, poolSelfTest),
      /^ParallelTaskError: parallel task 'pool-self-test' failed in a worker thread: a worker thread ended in the middle of the task \(exit code 7\)$/,
    );
    assert.ok(Date.now() - started < 60_000, 'not by a timeout');
    // Synchronously again, before any event could tell the pool: the ended worker is not given work.
    const data = { marks: marks(3), fail: 'none' as const };
    runParallel('pool-self-test', data, 3, poolSelfTest);
    assert.deepEqual([...data.marks], [1, 2, 3]);
  });
});
