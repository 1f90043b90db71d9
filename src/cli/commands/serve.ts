/**
 * `wga serve --db STORE`: the web GUI and its JSON API (src/server/). Prints
 * `listening on http://HOST:PORT/` first; stops cleanly on Ctrl-C.
 */
import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { startServer } from '../../server/server.js';
import { OptionError } from '../../errors.js';
import { print } from '../output.js';
import { integerOption } from '../values.js';

interface ServeCliOptions {
  db?: string;
  graph?: string;
  host?: string;
  port?: string;
  open?: boolean;
  token?: string;
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('serve the web GUI and the JSON API for a store, or for a compact graph file (127.0.0.1 and a free port by default)')
    .option('--db <store>', 'the store: a SQLite file (created if missing) or a postgres:// URL')
    .option('--graph <file.wgc>', 'a compact graph file instead of a store: its saved rankings, pages and distance distribution, read in place')
    .option('--host <address>', 'address to listen on (default: 127.0.0.1; anything else requires the token on every request)')
    .option('--port <n>', 'port (default: a free one)')
    .option('--token <secret>', 'the secret the GUI sends with every change (default: generated; printed when --host is not loopback)')
    .option('--open', 'open the GUI in the default browser')
    .action(async (options: ServeCliOptions) => {
      if (options.db !== undefined && options.graph !== undefined) throw new OptionError('--graph', 'serves a graph file instead of a store: give --db or --graph, not both');
      if (options.db === undefined && options.graph === undefined) throw new OptionError('--db', 'missing: the store to serve (a SQLite file or a postgres:// URL), or --graph G.wgc');
      const port = integerOption('--port', options.port, 0, 0);
      if (port > 65535) throw new OptionError('--port', `expected at most 65535, got ${port}`);
      const server = await startServer({
        ...(options.db === undefined ? {} : { db: options.db }),
        ...(options.graph === undefined ? {} : { graph: options.graph }),
        ...(options.host === undefined ? {} : { host: options.host }),
        port,
        ...(options.token === undefined ? {} : { token: options.token }),
      });
      print(`listening on ${server.url}`);
      const address = server.remote ? `${server.url}?token=${server.token}` : server.url;
      if (server.remote) {
        process.stderr.write(
          `wga serve: listening beyond loopback: every request needs the token. Open ${address}\n` +
            (server.generatedToken ? `wga serve: token (generated; give --token to choose one): ${server.token}\n` : ''),
        );
      }
      process.stderr.write(`wga serve: ${server.store === null ? 'graph file' : 'store'} ${server.serving}; Ctrl-C stops\n`);
      if (options.open === true) {
        const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
        const child = spawn(opener, [address], { stdio: 'ignore', detached: true });
        child.on('error', () => process.stderr.write(`wga serve: could not start ${opener}; open ${address} yourself\n`));
        child.unref();
      }
      await new Promise<void>((resolve) => {
        const stop = (): void => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          process.stderr.write('wga serve: stopping\n');
          server.close().then(resolve, resolve);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    });
}
