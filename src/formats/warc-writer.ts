/**
 * WARC/1.1 output (ISO 28500:2017) as Heritrix and Browsertrix write it: a
 * warcinfo record opening each file, then for every exchange a `response`
 * record (the HTTP status line, headers and body as received, still
 * content-coded) and a `request` record tied to it by WARC-Concurrent-To;
 * every record its own gzip member, so a reader can seek to any of them;
 * WARC-Block-Digest (the whole block) and, on responses, WARC-Payload-Digest
 * (the body), both SHA-1 in base 32. A file is written as NAME.warc.gz.open
 * and renamed NAME.warc.gz when closed (Heritrix's convention: an .open file
 * is one a crawl was still writing); the next is started once a file passes
 * the size limit. The body is kept de-chunked, so Transfer-Encoding is left
 * out of the recorded headers; a body cut at the size cap or by a timeout is
 * marked WARC-Truncated.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { WgaError, ExitCode } from '../errors.js';
import type { ExchangeRecorder, HttpExchange } from '../crawl/fetcher.js';
import type { CrawlSettings } from '../crawl/settings.js';
import { hostname } from 'node:os';
import { sha1Label } from '../util/digest.js';

const CRLF = '\r\n';

export interface WarcWriterOptions {
  /** File names start with this (letters, digits, '-', '_' and '.'). */
  prefix: string;
  /** A file is closed and the next one started once it is this large, bytes. */
  maxBytes: number;
  /** The warcinfo record's fields (software, operator, ...). */
  info: Record<string, string>;
}

/** WARC-Date: UTC with milliseconds (WARC 1.1 allows fractions of a second). */
function warcDate(date: Date): string {
  return date.toISOString();
}

function recordId(): string {
  return `<urn:uuid:${randomUUID()}>`;
}

/** One record: its header fields (Content-Length added) and block, as bytes. */
function record(fields: Array<[string, string]>, block: Buffer): Buffer {
  const head = ['WARC/1.1', ...fields.map(([name, value]) => `${name}: ${value}`), `Content-Length: ${block.length}`, '', ''].join(CRLF);
  return Buffer.concat([Buffer.from(head, 'utf8'), block, Buffer.from(CRLF + CRLF, 'latin1')]);
}

/** HTTP header lines as bytes: latin1, as they travel (values are what the HTTP parser accepted). */
function httpHead(firstLine: string, headers: ReadonlyArray<[string, string]>): Buffer {
  return Buffer.from([firstLine, ...headers.map(([name, value]) => `${name}: ${value}`), '', ''].join(CRLF), 'latin1');
}

export class WarcWriter implements ExchangeRecorder {
  private fd: number | null = null;
  private path = '';
  private written = 0;
  private serial = 0;
  private warcinfoId = '';
  /** Files finished (renamed), and the one being written. */
  readonly files: string[] = [];
  records = 0;

  private constructor(
    private readonly directory: string,
    private readonly options: WarcWriterOptions,
  ) {}

  /** A writer into `directory` (created if missing); the first file opens with the first record. */
  static open(directory: string, options: WarcWriterOptions): WarcWriter {
    try {
      mkdirSync(directory, { recursive: true });
    } catch (error) {
      throw new WgaError(`--warc ${directory}: cannot create the directory (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, ExitCode.usage);
    }
    return new WarcWriter(directory, { ...options, prefix: options.prefix.replace(/[^A-Za-z0-9._-]/g, '_') });
  }

  record(exchange: HttpExchange): void {
    this.ensureFile();
    const date = warcDate(exchange.date);
    const responseId = recordId();
    const payload = Buffer.concat(exchange.body);
    const head = httpHead(`HTTP/1.1 ${exchange.status} ${exchange.statusText}`.trimEnd(), exchange.responseHeaders);
    const responseBlock = Buffer.concat([head, payload]);
    const url = new URL(exchange.url);
    const requestBlock = httpHead(`GET ${url.pathname}${url.search} HTTP/1.1`, exchange.requestHeaders);
    const response = record(
      [
        ['WARC-Type', 'response'],
        ['WARC-Record-ID', responseId],
        ['WARC-Date', date],
        ['WARC-Target-URI', exchange.url],
        ['WARC-Warcinfo-ID', this.warcinfoId],
        ['Content-Type', 'application/http;msgtype=response'],
        ['WARC-Payload-Digest', sha1Label(payload)],
        ['WARC-Block-Digest', sha1Label(responseBlock)],
        ...(exchange.truncated === null ? [] : ([['WARC-Truncated', exchange.truncated]] as Array<[string, string]>)),
      ],
      responseBlock,
    );
    const request = record(
      [
        ['WARC-Type', 'request'],
        ['WARC-Record-ID', recordId()],
        ['WARC-Date', date],
        ['WARC-Target-URI', exchange.url],
        ['WARC-Warcinfo-ID', this.warcinfoId],
        ['WARC-Concurrent-To', responseId],
        ['Content-Type', 'application/http;msgtype=request'],
        ['WARC-Block-Digest', sha1Label(requestBlock)],
      ],
      requestBlock,
    );
    this.append(response);
    this.append(request);
    this.records += 2;
    if (this.written >= this.options.maxBytes) this.closeFile();
  }

  /** Closes the file being written (renamed without .open). */
  close(): void {
    this.closeFile();
  }

  private ensureFile(): void {
    if (this.fd !== null) return;
    const stamp = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
    // A name no other writer holds: created exclusively, the next serial when one already has it
    // (another writer of the same prefix in the same second).
    let name = '';
    for (let attempt = 0; this.fd === null; attempt++) {
      name = `${this.options.prefix}-${stamp}-${String(this.serial++).padStart(5, '0')}.warc.gz`;
      this.path = join(this.directory, name);
      try {
        if (existsSync(this.path)) continue;
        this.fd = openSync(`${this.path}.open`, 'wx');
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EEXIST' && attempt < 1000) continue;
        throw new WgaError(`--warc: cannot create ${this.path}.open (${code ?? (error as Error).message})`, ExitCode.input);
      }
    }
    this.written = 0;
    this.warcinfoId = recordId();
    const fields = Object.entries({ ...this.options.info, format: 'WARC File Format 1.1', conformsTo: 'https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/' });
    const block = Buffer.from(fields.map(([name, value]) => `${name}: ${value}`).join(CRLF) + CRLF, 'utf8');
    this.append(
      record(
        [
          ['WARC-Type', 'warcinfo'],
          ['WARC-Record-ID', this.warcinfoId],
          ['WARC-Date', warcDate(new Date())],
          ['WARC-Filename', name],
          ['Content-Type', 'application/warc-fields'],
        ],
        block,
      ),
    );
    this.records++;
  }

  private append(bytes: Buffer): void {
    const member = gzipSync(bytes);
    let at = 0;
    while (at < member.length) at += writeSync(this.fd!, member, at);
    this.written += member.length;
  }

  private closeFile(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
    renameSync(`${this.path}.open`, this.path);
    this.files.push(this.path);
  }
}

/** The WARC writer a crawl's settings ask for (--warc DIR), or null; `who` names the crawler in the file names. */
/** Writers opened by this process: a part of their files' names. */
let writersOpened = 0;

export function openWarc(settings: CrawlSettings, who: string): WarcWriter | null {
  if (settings.warcDir === null) return null;
  return WarcWriter.open(settings.warcDir, {
    // Several writers may share a process (the instances of a shared crawl in one test) and a directory.
    prefix: `${who}-${hostname()}-${process.pid}-${writersOpened++}`,
    maxBytes: settings.warcMaxBytes,
    info: { software: `wga (web-graph-analyzer); ${settings.userAgent}`, hostname: hostname(), isPartOf: settings.seeds[0] ?? '', robots: 'obey' },
  });
}
