/**
 * The crawl's memory budget (--memory, crawl/memory-watch.ts): which reading passes which budget,
 * the watch calling once, the option's parsing, and a crawl stopped by its budget that resumes to
 * the same store as a crawl never stopped.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { settingsFromOptions } from '../../src/app/crawl.js';
import { bytesOption } from '../../src/app/values.js';
import { Crawler } from '../../src/crawl/crawler.js';
import { HEAP_SHARE, memoryOverBudget, watchMemory } from '../../src/crawl/memory-watch.js';
import { completeSettings, MIN_MEMORY_BYTES } from '../../src/crawl/settings.js';
import { OptionError } from '../../src/errors.js';
import { Website } from '../../src/experiments/website.js';
import { serveWebsite } from '../../src/experiments/website-server.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { temporaryDirectory } from '../helpers.js';
import { assertMatchesModel, modelCrawl, runCli, snapshot } from './crawl-fixtures.js';

const dir = temporaryDirectory();
after(() => dir.cleanup());
const MB = 2 ** 20;

describe('the memory budget', () => {
  it('names the budget a reading passes: resident memory first, then V8 heap near its limit', () => {
    const limit = 4096 * MB;
    assert.equal(memoryOverBudget({ rss: 999 * MB, heapUsed: 100 * MB }, 1000 * MB, limit), null);
    const rss = memoryOverBudget({ rss: 1000 * MB, heapUsed: 100 * MB }, 1000 * MB, limit);
    assert.match(rss ?? '', /resident memory \(1,000 MB\) reached --memory 1,000 MB/);
    assert.match(rss ?? '', /--resume continues/);
    assert.equal(memoryOverBudget({ rss: 10 * MB, heapUsed: Math.floor(HEAP_SHARE * limit) - 1 }, 1000 * MB, limit), null);
    const heap = memoryOverBudget({ rss: 10 * MB, heapUsed: Math.ceil(HEAP_SHARE * limit) }, 1000 * MB, limit);
    assert.match(heap ?? '', /JavaScript heap \(3,686 MB\) neared V8's limit \(4,096 MB\)/);
    assert.match(heap ?? '', /--max-old-space-size/);
  });

  it('calls once, at the first reading past the budget', async () => {
    const readings = [100, 200, 300, 400, 500].map((m) => ({ rss: m * MB, heapUsed: 0 }));
    let read = 0;
    const calls: string[] = [];
    const timer = watchMemory(250 * MB, (why) => calls.push(why), 2, () => readings[Math.min(read++, readings.length - 1)]!);
    // Bounded wait: until every reading was taken and a few more.
    for (let guard = 0; guard < 500 && read < readings.length + 3; guard++) await new Promise((resolve) => setTimeout(resolve, 2));
    clearInterval(timer);
    assert.equal(calls.length, 1);
    assert.match(calls[0]!, /resident memory \(300 MB\)/);
  });

  it('reads sizes as users write them, and refuses the rest naming --memory', () => {
    assert.equal(bytesOption('--memory', '6G', MIN_MEMORY_BYTES), 6 * 2 ** 30);
    assert.equal(bytesOption('--memory', '6GB', MIN_MEMORY_BYTES), 6 * 2 ** 30);
    assert.equal(bytesOption('--memory', '1.5gb', MIN_MEMORY_BYTES), 1.5 * 2 ** 30);
    assert.equal(bytesOption('--memory', '800MB', MIN_MEMORY_BYTES), 800 * MB);
    assert.equal(bytesOption('--memory', '200000000', MIN_MEMORY_BYTES), 200_000_000);
    for (const bad of ['lots', '', '-1GB', '12 parsecs', '64MB']) {
      assert.throws(() => bytesOption('--memory', bad, MIN_MEMORY_BYTES), (e: unknown) => e instanceof OptionError && /--memory/.test(e.message) && /at least 128MB/.test(e.message), bad);
    }
    assert.equal(settingsFromOptions({ memory: '2GB' }).memoryBytes, 2 * 2 ** 30);
    assert.equal(settingsFromOptions({}).memoryBytes, undefined, 'not given: the default (3/4 of the machine) is read when a session starts');
  });

  it('the CLI refuses a bad --memory in one line, exit 2', async () => {
    const result = await runCli(['crawl', 'http://127.0.0.1:9/', '--db', join(dir.path, 'refused.db'), '--memory', '12 parsecs']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^wga: --memory: expected a size of at least 128MB \(e\.g\. 800MB, 6GB\), got '12 parsecs'/);
    assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
  });

  it('a crawl past its budget stops after a checkpoint, and --resume ends as a crawl never stopped', async () => {
    const site = new Website({ pages: 120, seed: 11 });
    const server = await serveWebsite(site);
    const db = join(dir.path, 'budget.db');
    // 300 MB held by the test's own process: its resident memory is past a 128 MB budget at the first reading.
    let ballast: Buffer | null = Buffer.alloc(300 * MB, 1);
    try {
      // 40 ms between requests to the one host: the crawl lasts well past the first reading (1 s).
      const settings = completeSettings({ seeds: [`${server.origin}/`], allowIp: ['127.0.0.1/32'], fences: ['/calendar/'], delayMs: 40, memoryBytes: MIN_MEMORY_BYTES });
      const notices: string[] = [];
      let store = SqliteStore.open(db);
      const first = await Crawler.run(store, settings, { onNotice: (m) => notices.push(m) }).finally(() => store.close());
      assert.equal(first.stoppedBy, 'memory');
      assert.ok(ballast.length > 0);
      assert.equal(notices.filter((n) => /reached --memory 128 MB/.test(n)).length, 1, notices.join('\n'));
      assert.ok(first.frontier > 0, `stopped with pages left (${first.fetched} fetched)`);
      ballast = null;
      store = SqliteStore.open(db);
      const resumed = await Crawler.run(store, { ...settings, memoryBytes: null }, { resume: true }).finally(() => store.close());
      assert.equal(resumed.stoppedBy, 'done');
      store = SqliteStore.open(db);
      try {
        assertMatchesModel(await snapshot(store), modelCrawl(site, { seed: `${server.origin}/`, fences: [/\/calendar\//] }));
      } finally {
        await store.close();
      }
    } finally {
      ballast = null;
      await server.close();
    }
  });
});
