/**
 * The crawl benchmark's bare loop: the least a crawler of one site can do,
 * the ceiling the crawl benchmark compares wga with. WORKERS loops share
 * one keep-alive undici pool; each takes the next URL of a FIFO queue,
 * GETs it, streams a 2xx HTML body through htmlparser2 (entities decoded, as
 * wga does), resolves every <a>/<area> href with the WHATWG URL parser
 * against the page (or its <base href>), drops the fragment, and queues the
 * same-origin URLs not seen before (an in-memory Set of strings). A redirect's
 * Location is queued the same way. No storage, no ranking, no politeness, no
 * retries, no robots.txt.
 *
 *   node dist/bench/crawl/bare.js ORIGIN/ [--concurrency 16] [--max-pages N] [--max-time SECONDS] [--progress]
 *
 * Prints one JSON line: {fetched, failed, other, requests, known, frontier, seconds, stoppedBy}.
 */
import { TextDecoder } from 'node:util';
import { Parser } from 'htmlparser2';
import { Agent, request } from 'undici';

interface Options {
  seed: string;
  concurrency: number;
  maxPages: number;
  maxTimeMs: number;
  /** Report "N fetched, frontier F" on stderr every second, as wga's progress does. */
  progress: boolean;
}

function parse(argv: string[]): Options {
  const options: Options = { seed: '', concurrency: 16, maxPages: Number.POSITIVE_INFINITY, maxTimeMs: Number.POSITIVE_INFINITY, progress: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = (): number => {
      const v = Number(argv[++i]);
      if (!(v > 0)) throw new Error(`${arg} needs a positive number`);
      return v;
    };
    if (arg === '--concurrency') options.concurrency = value();
    else if (arg === '--max-pages') options.maxPages = value();
    else if (arg === '--max-time') options.maxTimeMs = 1000 * value();
    else if (arg === '--progress') options.progress = true;
    else if (options.seed === '') options.seed = arg;
    else throw new Error(`unknown argument ${arg}`);
  }
  if (options.seed === '') throw new Error('a seed URL is needed');
  return options;
}

async function crawl(options: Options): Promise<Record<string, unknown>> {
  const started = performance.now();
  const seed = new URL(options.seed);
  seed.hash = '';
  const origin = seed.origin;
  const dispatcher = new Agent({ connections: options.concurrency, keepAliveTimeout: 30_000, pipelining: 1 });
  const seen = new Set<string>([seed.href]);
  const queue: string[] = [seed.href];
  let head = 0;
  let fetched = 0;
  let failed = 0;
  let other = 0;
  let requests = 0;
  let inFlight = 0;
  let stoppedBy = 'done';
  // Workers with nothing to do wait here until a page in flight ends (it may queue new URLs).
  let wake: Array<() => void> = [];
  const notify = (): void => {
    const waiting = wake;
    wake = [];
    for (const resolve of waiting) resolve();
  };

  const discover = (href: string, base: URL): void => {
    let url: URL;
    try {
      url = new URL(href, base);
    } catch {
      return;
    }
    if (url.origin !== origin) return;
    url.hash = '';
    const key = url.href;
    if (seen.has(key)) return;
    seen.add(key);
    queue.push(key);
  };

  const fetchPage = async (href: string): Promise<void> => {
    requests++;
    const { statusCode, headers, body } = await request(href, { dispatcher, method: 'GET', headers: { 'user-agent': 'wga-bench-bare/1' } });
    const type = String(headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (statusCode >= 300 && statusCode < 400 && typeof headers.location === 'string') {
      await body.dump();
      discover(headers.location, new URL(href));
      return;
    }
    if (statusCode < 200 || statusCode >= 300) {
      await body.dump();
      failed++;
      return;
    }
    if (type !== 'text/html' && type !== 'application/xhtml+xml') {
      await body.dump();
      other++;
      return;
    }
    let base = new URL(href);
    const parser = new Parser(
      {
        onopentag: (name, attributes) => {
          if ((name === 'a' || name === 'area') && attributes.href !== undefined) discover(attributes.href, base);
          else if (name === 'base' && attributes.href !== undefined) {
            try {
              base = new URL(attributes.href, href);
            } catch {
              // An unusable <base> is ignored, as browsers do.
            }
          }
        },
      },
      { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
    );
    const decoder = new TextDecoder('utf-8');
    for await (const chunk of body) parser.write(decoder.decode(chunk as Buffer, { stream: true }));
    parser.write(decoder.decode());
    parser.end();
    fetched++;
  };

  let begun = 0;
  const deadline = started + options.maxTimeMs;
  const worker = async (): Promise<void> => {
    for (;;) {
      if (begun >= options.maxPages) {
        stoppedBy = 'max-pages';
        return;
      }
      if (performance.now() >= deadline) {
        stoppedBy = 'max-time';
        return;
      }
      if (head < queue.length) {
        const href = queue[head]!;
        queue[head++] = '';
        // Compact the consumed part now and then, so the queue does not keep every URL ever queued.
        if (head > 65_536 && head * 2 > queue.length) {
          queue.splice(0, head);
          head = 0;
        }
        begun++;
        inFlight++;
        try {
          await fetchPage(href);
        } catch {
          failed++;
        } finally {
          inFlight--;
          notify();
        }
      } else if (inFlight === 0) {
        notify();
        return;
      } else await new Promise<void>((resolve) => wake.push(resolve));
    }
  };
  const reporter = options.progress ? setInterval(() => process.stderr.write(`${fetched} fetched, frontier ${queue.length - head}\n`), 1000) : undefined;
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  if (reporter !== undefined) clearInterval(reporter);
  await dispatcher.close();
  const seconds = (performance.now() - started) / 1000;
  return { fetched, failed, other, requests, known: seen.size, frontier: queue.length - head, seconds, stoppedBy };
}

crawl(parse(process.argv.slice(2)))
  .then((result) => {
    process.stdout.write(`${JSON.stringify(result)}\n`);
  })
  .catch((error: unknown) => {
    process.stderr.write(`bare: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
