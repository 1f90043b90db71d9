/** A fetch's deadline as undici's signal (crawl/fetch-deadline.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FetchDeadline } from '../../src/crawl/fetch-deadline.js';

const later = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('FetchDeadline', () => {
  it('calls its abort listeners once the time is up, with an AbortError as the reason', async () => {
    const deadline = new FetchDeadline(20);
    const calls: string[] = [];
    const removed = (): void => void calls.push('removed');
    deadline.addEventListener('abort', () => calls.push('first'));
    deadline.addEventListener('abort', removed);
    deadline.addEventListener('other', () => calls.push('other'));
    deadline.removeEventListener('abort', removed);
    assert.equal(deadline.aborted, false);
    await later(60);
    assert.equal(deadline.aborted, true);
    assert.deepEqual(calls, ['first']);
    assert.ok(deadline.reason instanceof DOMException);
    assert.equal(deadline.reason.name, 'AbortError');
    deadline.clear();
  });

  it('aborts nothing once cleared', async () => {
    const deadline = new FetchDeadline(20);
    let called = false;
    deadline.addEventListener('abort', () => {
      called = true;
    });
    deadline.clear();
    await later(60);
    assert.equal(deadline.aborted, false);
    assert.equal(called, false);
    assert.equal(deadline.reason, undefined);
  });
});
