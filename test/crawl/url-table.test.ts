import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readdirSync } from 'node:fs';
import { UrlTable } from '../../src/crawl/url-table.js';
import { Random } from '../../src/util/random.js';
import { temporaryDirectory } from '../helpers.js';

describe('the URL table', () => {
  it('gives ids in the order URLs are added, finds them by key, and returns keys and URLs', () => {
    const table = new UrlTable();
    assert.equal(table.size, 0);
    assert.equal(table.id('http://x.org/'), -1);
    assert.equal(table.add('http://x.org/', 'http://x.org/'), 0);
    assert.equal(table.add('http://x.org/a', 'http://X.org/a#top'), 1);
    assert.equal(table.add('http://x.org/b', 'http://x.org/b'), 2);
    assert.equal(table.size, 3);
    assert.deepEqual([table.id('http://x.org/'), table.id('http://x.org/a'), table.id('http://x.org/b'), table.id('http://x.org/c')], [0, 1, 2, -1]);
    assert.deepEqual([table.key(1), table.url(1)], ['http://x.org/a', 'http://X.org/a#top']);
    assert.deepEqual([table.key(2), table.url(2)], ['http://x.org/b', 'http://x.org/b']);
    // A key that is a prefix of another, or the URL stored after it, is not that key.
    assert.equal(table.id('http://x.org'), -1);
    assert.equal(table.id('http://X.org/a#top'), -1);
  });

  it('refuses a key twice and ids it does not hold', () => {
    const table = new UrlTable();
    table.add('http://x.org/', 'http://x.org/');
    assert.throws(() => table.add('http://x.org/', 'http://x.org/other'), /added twice/);
    assert.equal(table.size, 1);
    assert.throws(() => table.key(1), RangeError);
    assert.throws(() => table.url(-1), RangeError);
  });

  it('keeps any text, not only ASCII, and keys longer than its scratch buffer', () => {
    const table = new UrlTable();
    const texts = ['http://bücher.example/straße', 'http://x.org/日本語?q=€', `http://x.org/${'long/'.repeat(2000)}`, ''];
    for (const [i, text] of texts.entries()) assert.equal(table.add(text, `${text}#u`), i);
    for (const [i, text] of texts.entries()) {
      assert.equal(table.id(text), i);
      assert.deepEqual([table.key(i), table.url(i)], [text, `${text}#u`]);
    }
  });

  it('agrees with a Map on 50,000 random URLs across many small chunks and rehashes', () => {
    // 1 KiB chunks: URLs start new chunks constantly; one of 1,200 bytes gets a chunk of its own.
    const table = new UrlTable(1024);
    const reference = new Map<string, number>();
    const urls: Array<[string, string]> = [];
    const random = new Random(7);
    for (let i = 0; i < 50_000; i++) {
      const length = random.nextInt(i === 30_000 ? 1 : 40) + (i === 30_000 ? 1200 : 1);
      let path = '';
      for (let k = 0; k < length; k++) path += String.fromCharCode(97 + random.nextInt(4));
      const key = `http://h${random.nextInt(50)}.org/${path}`;
      if (reference.has(key)) {
        assert.equal(table.id(key), reference.get(key), key);
        continue;
      }
      const url = random.next() < 0.3 ? `${key}#f${i}` : key;
      reference.set(key, table.add(key, url));
      urls.push([key, url]);
    }
    assert.equal(table.size, reference.size);
    assert.ok(reference.size > 20_000, `${reference.size} distinct`);
    for (const [id, [key, url]] of urls.entries()) {
      assert.equal(table.id(key), id);
      assert.equal(table.key(id), key);
      assert.equal(table.url(id), url);
    }
    for (let i = 0; i < 1000; i++) assert.equal(table.id(`http://h${i}.org/zz${i}`), -1);
  });

  it('grows its index by half and in place: 50% to 75% full after each growth, every key found, no room copied between reservations', () => {
    const table = new UrlTable();
    const loads: number[] = [];
    let reservations = 0;
    let room = table.index.reservedBytes;
    let slots = table.index.slots;
    // 1.6 x 10^6 keys: the index passes FRESH_PAGES_BYTES, after which it grows inside reserved room.
    const keys = 1_600_000;
    for (let i = 0; i < keys; i++) {
      table.add(`http://h${i % 97}.example/item-${i}/details.html`, `http://h${i % 97}.example/item-${i}/details.html`);
      const index = table.index;
      if (index.slots !== slots) {
        assert.ok(Math.abs(index.slots / slots - 1.5) < 1e-3, `grown from ${slots} to ${index.slots} slots`);
        loads.push(index.load);
        if (index.reservedBytes !== room) reservations++;
        room = index.reservedBytes;
        slots = index.slots;
      }
      assert.ok(index.load <= 0.75);
    }
    for (const load of loads) assert.ok(load >= 0.5 && load <= 0.5 + 1e-3, `${load} full just after a growth`);
    assert.ok(table.index.reservedBytes >= 32 * 2 ** 20, `${table.index.reservedBytes} bytes reserved`);
    assert.ok(table.index.reservedBytes > 4 * table.index.slots, 'room for growths ahead');
    // Growths below the reservation size allocate an index of their own; past it, the next growths
    // happen in the room reserved (here the last one).
    assert.equal(loads.length - reservations, 1, `${reservations} allocations for ${loads.length} growths`);
    for (let i = 0; i < keys; i += 997) assert.equal(table.id(`http://h${i % 97}.example/item-${i}/details.html`), i);
    assert.equal(table.id(`http://h${keys % 97}.example/item-${keys}/details.html`), -1);
    assert.equal(table.id('http://h1.example/item-1/details.htm'), -1);
  });

  for (const capacity of [0, 50_000]) {
    it(`spills the text of pages stored elsewhere to a file, reads it back, and keeps finding every key (columns reserved for ${capacity} pages)`, () => {
      const dir = temporaryDirectory();
      try {
        const table = new UrlTable({ chunkBytes: 4096, spillDir: dir.path, capacity });
        const random = new Random(11);
        const added: Array<[string, string]> = [];
        for (let round = 0; round < 20; round++) {
          for (let i = 0; i < 1000; i++) {
            const key = `http://h${random.nextInt(30)}.example/${round}/${i}/${'x'.repeat(random.nextInt(60))}`;
            const url = i % 3 === 0 ? `${key}#f${i}` : key;
            assert.equal(table.add(key, url), added.length);
            added.push([key, url]);
          }
          // The store holds all but the last 500 pages: their text may go.
          table.spill(added.length - 500);
        }
        const { spilled, inMemory } = table.textBytes;
        assert.ok(spilled > 1_000_000, `${spilled} bytes spilled`);
        assert.ok(inMemory < 100_000, `${inMemory} bytes left in RAM`);
        // The file was unlinked as soon as it was made: nothing in the directory.
        assert.deepEqual(readdirSync(dir.path), []);
        // Every page by key, and its key and URL, spilled or not, in any order.
        for (const id of [...added.keys()].sort(() => random.next() - 0.5)) {
          const [key, url] = added[id]!;
          assert.equal(table.id(key), id);
          assert.equal(table.url(id), url);
          assert.equal(table.key(id), key);
        }
        assert.equal(table.id('http://h1.example/none'), -1);
        table.close();
      } finally {
        dir.cleanup();
      }
    });
  }

  it('reads back records whose lengths take one, two and three bytes, in blocks that straddle the spill file and RAM', () => {
    const dir = temporaryDirectory();
    try {
      const table = new UrlTable({ chunkBytes: 1 << 17, spillDir: dir.path });
      const lengths = [1, 127, 128, 129, 16_383, 16_384, 16_385, 65_000];
      const added: Array<[string, string]> = [];
      for (let i = 0; i < 200; i++) {
        const pad = 'p'.repeat(lengths[i % lengths.length]!);
        const key = `http://h.example/${i}/${pad}`;
        // Every other URL differs from its key, by a fragment as long again.
        const url = i % 2 === 0 ? key : `${key}#${'f'.repeat(lengths[(i + 3) % lengths.length]!)}`;
        assert.equal(table.add(key, url), i);
        added.push([key, url]);
        if (i % 37 === 36) table.spill(i - 20);
      }
      assert.ok(table.textBytes.spilled > 0);
      for (let id = added.length - 1; id >= 0; id -= 3) {
        assert.equal(table.url(id), added[id]![1], `url(${id})`);
        assert.equal(table.key(id), added[id]![0], `key(${id})`);
        assert.equal(table.id(added[id]![0]), id);
      }
      table.close();
    } finally {
      dir.cleanup();
    }
  });

  it('reads spilled records in id order and back, while pages are added and spilled', () => {
    const dir = temporaryDirectory();
    try {
      const table = new UrlTable({ chunkBytes: 2048, spillDir: dir.path });
      const added: string[] = [];
      const add = (n: number): void => {
        for (let i = 0; i < n; i++) {
          const key = `http://h.example/${added.length}/${'y'.repeat(added.length % 50)}`;
          assert.equal(table.add(key, key), added.length);
          added.push(key);
        }
      };
      add(1000);
      table.spill(990);
      // In id order, and back again.
      for (let id = 0; id < added.length; id++) assert.equal(table.key(id), added[id], `key(${id})`);
      for (let id = added.length - 1; id >= 0; id--) assert.equal(table.url(id), added[id], `url(${id})`);
      // The block of ids 992-1023 was not whole; more pages come, more text is spilled.
      add(45);
      table.spill(1040);
      for (let id = 950; id < added.length; id++) assert.equal(table.key(id), added[id], `key(${id}) after more pages`);
      table.close();
    } finally {
      dir.cleanup();
    }
  });

  it('keeps everything in RAM without a spill directory', () => {
    const table = new UrlTable(1024);
    for (let i = 0; i < 2000; i++) table.add(`http://x.org/${i}`, `http://x.org/${i}`);
    table.spill(2000);
    assert.equal(table.textBytes.spilled, 0);
    assert.equal(table.url(5), 'http://x.org/5');
  });
});
