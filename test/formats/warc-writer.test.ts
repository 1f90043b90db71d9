/**
 * WARC files of several writers in one directory: two writers of the same prefix opening their files
 * in the same second (the instances of a shared crawl in one process did) each get a file of their
 * own, and every record lands in exactly one file.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { WarcWriter } from '../../src/formats/warc-writer.js';
import type { HttpExchange } from '../../src/crawl/fetcher.js';
import { temporaryDirectory } from '../helpers.js';

function exchange(url: string): HttpExchange {
  return {
    url,
    date: new Date(),
    requestHeaders: [['Host', 'example.org']],
    status: 200,
    statusText: 'OK',
    responseHeaders: [['Content-Type', 'text/html']],
    body: [Buffer.from(`<p>${url}</p>`)],
    truncated: null,
  };
}

describe('WARC writer', () => {
  it('gives writers of one prefix in one directory files of their own', () => {
    const tmp = temporaryDirectory();
    try {
      const options = { prefix: 'wga-shared-host-1', maxBytes: 1 << 20, info: { software: 'test' } };
      const writers = [WarcWriter.open(tmp.path, options), WarcWriter.open(tmp.path, options), WarcWriter.open(tmp.path, options)];
      writers.forEach((w, i) => w.record(exchange(`http://example.org/${i}`)));
      for (const w of writers) w.close();
      const files = readdirSync(tmp.path).sort();
      assert.equal(files.length, 3, files.join(', '));
      assert.ok(files.every((f) => /^wga-shared-host-1-\d{14}-\d{5}\.warc\.gz$/.test(f)), files.join(', '));
      // Each URL in exactly one file.
      const texts = files.map((f) => gunzipSync(readFileSync(join(tmp.path, f))).toString('latin1'));
      for (let i = 0; i < 3; i++) assert.equal(texts.filter((t) => t.includes(`WARC-Target-URI: http://example.org/${i}\r\n`)).length, 1);
    } finally {
      tmp.cleanup();
    }
  });
});
