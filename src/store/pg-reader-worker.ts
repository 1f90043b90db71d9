/**
 * A PostgreSQL store's reader thread, the twin of sqlite-reader-worker.ts: a crawl's pages in
 * ranges of ids, packed alike, or the out-lists of its links (a COPY of a range of sources, parsed
 * here), a batch for each 'more' the store sends, on a connection of its own. At 10^6 pages the
 * store's thread spent 3 s on the pages' rows and 2 s on the links' COPY text; a resume of 10^7
 * pages and 10^8 links would spend about 50 s there before its first request.
 */
import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';
import { pgConfig } from './pg-config.js';
import { copyOutListRange } from './pg-copy.js';
import { errorReply, type FromReader, packPageRows, READER_PAGE_COLUMNS, type ReaderData, type ToReader, transferOf } from './reader-protocol.js';

// BIGINT ids and fetch sequence numbers as numbers, as the store reads them (postgres.ts).
pg.types.setTypeParser(20, (value) => Number(value));

const port = parentPort!;
const { path, batchSize, index, readers, read } = workerData as ReaderData;

let client: pg.Client | null = null;
let lastId = 0;
let batch = index;
let ended = false;

async function open(): Promise<pg.Client> {
  const opened = new pg.Client(pgConfig(path));
  // A broken connection fails the query under way; the event alone must not end the thread.
  opened.on('error', () => undefined);
  await opened.connect();
  const { rows } = await opened.query<{ max: string | number | null }>('SELECT max(id) AS max FROM pages');
  lastId = Number(rows[0]?.max ?? 0);
  client = opened;
  return opened;
}

async function nextBatch(): Promise<FromReader> {
  const db = client ?? (await open());
  const from = batch * batchSize;
  if (from >= lastId) return { type: 'end' };
  batch += readers;
  const to = from + batchSize;
  if (read.what === 'links') return { type: 'links', links: await copyOutListRange(db, read.kinds, from, to) };
  const { rows } = await db.query<unknown[]>({ text: `SELECT ${READER_PAGE_COLUMNS} FROM pages WHERE id > $1 AND id <= $2 ORDER BY id`, values: [from, to], rowMode: 'array' });
  return { type: 'pages', pages: packPageRows(rows) };
}

// One batch at a time, in the order asked.
let queue = Promise.resolve();
port.on('message', (message: ToReader) => {
  if (message.type !== 'more') return;
  queue = queue.then(async () => {
    if (ended) return;
    try {
      const reply = await nextBatch();
      if (reply.type === 'end') {
        ended = true;
        await client?.end().catch(() => undefined);
      }
      port.postMessage(reply, transferOf(reply));
    } catch (error) {
      ended = true;
      port.postMessage(errorReply(error));
      await client?.end().catch(() => undefined);
    }
  });
});
