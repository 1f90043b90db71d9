import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { FileNotFoundError, InputFormatError } from '../../src/errors.js';
import { EdgeListParser, parseEdgeList, readEdgeList } from '../../src/formats/edgelist.js';
import type { Graph } from '../../src/graph/graph.js';
import { Random } from '../../src/util/random.js';
import { temporaryDirectory } from '../helpers.js';

function edgesOf(graph: Graph): string[] {
  const result: string[] = [];
  for (let v = 0; v < graph.nodeCount; v++) {
    for (const w of graph.successors(v)) result.push(`${graph.labels.label(v)}>${graph.labels.label(w)}`);
  }
  return result.sort();
}

function labelsOf(graph: Graph): string[] {
  return Array.from({ length: graph.nodeCount }, (_, i) => graph.labels.label(i));
}

function expectFormatError(run: () => unknown, line: number | undefined, pattern: RegExp): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof InputFormatError, `expected InputFormatError, got ${String(error)}`);
    assert.equal(error.line, line);
    assert.match(error.message, pattern);
    return true;
  });
}

describe('edge lists', () => {
  it('reads tab-, comma- and space-separated lists to the same graph', () => {
    const expected = ['1>2', '1>3', '3>1'];
    for (const text of ['1\t2\n1\t3\n3\t1\n', '1,2\n1, 3\n3 ,1\n', '1 2\n1   3\n  3 \t 1  \n']) {
      assert.deepEqual(edgesOf(parseEdgeList(text).graph), expected, JSON.stringify(text));
    }
  });

  it('skips comments, blank lines and CRLF endings; reads a last line without newline', () => {
    const text = '# a comment\r\n% another\r\n\r\n1 2\r\n   \r\n2 3\r\n# 9 9\r\n3 1';
    const { graph } = parseEdgeList(text);
    assert.deepEqual(edgesOf(graph), ['1>2', '2>3', '3>1']);
    assert.deepEqual(labelsOf(graph), ['1', '2', '3']);
  });

  it('recognises a header line before numeric lines (hollins "start end")', () => {
    const { graph } = parseEdgeList('start end\n1 2\n2 1\n');
    assert.deepEqual(labelsOf(graph), ['1', '2']);
    assert.equal(graph.edgeCount, 2);
  });

  it('keeps a first line of text labels when the next lines are text too', () => {
    const { graph } = parseEdgeList('a b\nb c\n');
    assert.deepEqual(labelsOf(graph), ['a', 'b', 'c']);
    assert.equal(graph.edgeCount, 2);
  });

  it('honours --header and --no-header', () => {
    assert.deepEqual(labelsOf(parseEdgeList('source target\nx y\n', 'f', { header: true }).graph), ['x', 'y']);
    assert.deepEqual(labelsOf(parseEdgeList('from to\n1 2\n', 'f', { header: false }).graph), ['from', 'to', '1', '2']);
  });

  it('keeps URLs and other text labels as written, in order of first appearance', () => {
    const text = 'http://a.example/ http://b.example/x?y=1,2\nhttp://b.example/x?y=1,2 http://a.example/\n';
    const { graph } = parseEdgeList(text);
    assert.deepEqual(labelsOf(graph), ['http://a.example/', 'http://b.example/x?y=1,2']);
    assert.equal(graph.edgeCount, 2);
  });

  it('switches from numbers to text mid-file without merging 7 and 007', () => {
    const { graph } = parseEdgeList('7 8\n8 7\n007 7\n');
    assert.deepEqual(labelsOf(graph), ['7', '8', '007']);
    assert.deepEqual(edgesOf(graph), ['007>7', '7>8', '8>7']);
  });

  it('reads ids beyond 2^31 as text labels', () => {
    const { graph } = parseEdgeList('1 4294967296\n4294967296 1\n');
    assert.deepEqual(labelsOf(graph), ['1', '4294967296']);
  });

  it('parses the same graph whatever the chunk boundaries (inline and general paths agree)', () => {
    const random = new Random(11);
    const lines: string[] = ['# generated', 'from to'];
    for (let i = 0; i < 3000; i++) {
      const a = random.nextInt(500);
      const b = random.nextInt(500);
      const form = random.nextInt(6);
      if (form === 0) lines.push(`${a}\t${b}`);
      else if (form === 1) lines.push(`${a}  ${b} `);
      else if (form === 2) lines.push(`${a} ${b}\r`);
      else if (form === 3) lines.push(`% comment ${a}`);
      else lines.push(`${a} ${b}`);
    }
    const text = `${lines.join('\n')}\n`;
    const whole = parseEdgeList(text, 'whole');
    const bytes = Buffer.from(text);
    for (const chunkSize of [1, 2, 7, 64, 1000]) {
      const parser = new EdgeListParser('chunks');
      for (let i = 0; i < bytes.length; i += chunkSize) parser.write(bytes.subarray(i, i + chunkSize));
      const chunked = parser.end();
      assert.deepEqual(edgesOf(chunked.graph), edgesOf(whole.graph), `chunk size ${chunkSize}`);
      assert.deepEqual(chunked.report, whole.report);
    }
    assert.equal(whole.graph.labels.label(0), '0');
  });

  it('reads weights from a third column and adds up parallel links', () => {
    const { graph } = parseEdgeList('a b 2.5\na b 1\nb a 4\n', 'w', { weighted: true });
    assert.deepEqual(Array.from(graph.outWeights!), [3.5, 4]);
  });

  it('reads a weighted file with a header', () => {
    const { graph } = parseEdgeList('from to weight\n1 2 0.5\n', 'w', { weighted: true });
    assert.deepEqual(Array.from(graph.outWeights!), [0.5]);
  });

  describe('bad input', () => {
    it('rejects an empty file and a file of comments', () => {
      expectFormatError(() => parseEdgeList('', 'empty.txt'), undefined, /^empty\.txt: no links found/);
      expectFormatError(() => parseEdgeList('# only\n% comments\n\n', 'c.txt'), undefined, /no links found/);
    });

    it('names the file and line of a line with one column', () => {
      expectFormatError(() => parseEdgeList('1 2\n3 4\n5\n6 7\n', 'g.txt'), 3, /^g\.txt:3: expected two columns \(from, to\), found 1: '5'/);
      expectFormatError(() => parseEdgeList('1,2\n3,\n', 'g.csv'), 2, /^g\.csv:2: expected two columns/);
    });

    it('rejects text where numeric ids are required', () => {
      expectFormatError(
        () => parseEdgeList('1 2\n2 x3\n', 'n.txt', { ids: 'numeric' }),
        2,
        /^n\.txt:2: expected a non-negative integer node id, found 'x3'/,
      );
      expectFormatError(() => parseEdgeList('a b\nc d\n', 'n.txt', { ids: 'numeric' }), 1, /found 'a'/);
    });

    it('rejects a missing or non-positive weight', () => {
      expectFormatError(() => parseEdgeList('1 2 1\n2 3\n', 'w.txt', { weighted: true }), 2, /third column/);
      expectFormatError(() => parseEdgeList('1 2 1\n2 3 -1\n', 'w.txt', { weighted: true }), 2, /positive number.*'-1'/);
      expectFormatError(() => parseEdgeList('1 2 1\n2 3 abc\n', 'w.txt', { weighted: true }), 2, /'abc'/);
    });
  });
});

describe('edge-list files', () => {
  it('reads .gz transparently, whatever the file name', async () => {
    const dir = temporaryDirectory();
    try {
      const text = '# comment\n0\t1\n1\t2\n2\t0\n';
      writeFileSync(join(dir.path, 'g.tsv'), text);
      writeFileSync(join(dir.path, 'g.tsv.gz'), gzipSync(text));
      writeFileSync(join(dir.path, 'compressed.txt'), gzipSync(text));
      const plain = await readEdgeList(join(dir.path, 'g.tsv'));
      for (const name of ['g.tsv.gz', 'compressed.txt']) {
        const zipped = await readEdgeList(join(dir.path, name));
        assert.deepEqual(edgesOf(zipped.graph), edgesOf(plain.graph));
      }
      assert.deepEqual(edgesOf(plain.graph), ['0>1', '1>2', '2>0']);
    } finally {
      dir.cleanup();
    }
  });

  it('reports a truncated .gz with the file and the line reached', async () => {
    const dir = temporaryDirectory();
    try {
      const lines: string[] = [];
      for (let i = 0; i < 200_000; i++) lines.push(`${i}\t${(i * 7919) % 200_000}`);
      const zipped = gzipSync(lines.join('\n'));
      const path = join(dir.path, 'cut.tsv.gz');
      writeFileSync(path, zipped.subarray(0, Math.floor(zipped.length / 2)));
      await assert.rejects(readEdgeList(path), (error: unknown) => {
        assert.ok(error instanceof InputFormatError);
        assert.match(error.message, /cut\.tsv\.gz:\d+: truncated or corrupt gzip data/);
        assert.ok(error.line !== undefined && error.line > 1000, `line ${error.line}`);
        return true;
      });
    } finally {
      dir.cleanup();
    }
  });

  it('names the path of a missing file', async () => {
    await assert.rejects(readEdgeList('/nonexistent/graph.tsv'), (error: unknown) => {
      assert.ok(error instanceof FileNotFoundError);
      assert.equal(error.message, '/nonexistent/graph.tsv: no such file');
      return true;
    });
  });
});
