/**
 * The JSON API over one compact graph file (`wga serve --graph G.wgc`, docs/http-api.md "A graph
 * file"): what the file holds, the best pages of each ranking `rank --save` kept beside it, one
 * page's neighbours and scores, and the distance distribution `distances --save` kept. Every answer
 * reads the file in place (a few reads per request): the plain form is never built, so a graph of
 * 10^9 links is served in the memory of a small one. Rankings and distances are computed by the
 * CLI (they take minutes to hours at that size), not by a request.
 */
import { Hono } from 'hono';
import { COMPACT_RANK_METHODS, compactInfo, compactPage, compactSavedDistances, compactTop } from '../app/compact-graph.js';
import { choiceOption } from '../app/values.js';
import { FileNotFoundError, OptionError } from '../errors.js';
import { guard, type GuardContext, serveGui } from './guard.js';
import { HttpError } from './http-errors.js';
import { integer, query, required } from './parameters.js';
import type { StaticFiles } from './static-files.js';

export interface GraphServerContext extends GuardContext {
  /** The compact graph file served. */
  graph: string;
  version: string;
  files: StaticFiles;
}

/** The neighbours of a page listed per request (its degrees give the full counts). */
const MAX_NEIGHBOURS = 10_000;

export function buildGraphRoutes(server: GraphServerContext): Hono {
  const app = new Hono();
  guard(app, server);

  app.get('/api/info', (c) => c.json({ mode: 'graph', version: server.version, ...compactInfo(server.graph) }));

  app.get('/api/top', (c) => {
    const method = choiceOption('method', query(c, 'method'), COMPACT_RANK_METHODS, 'pagerank');
    const limit = integer(c, 'limit', 100, 1, 1000);
    const offset = integer(c, 'offset', 0, 0);
    try {
      return c.json(compactTop(server.graph, limit, method, { offset, option: 'limit', clamp: true }));
    } catch (error) {
      // A ranking not kept beside the graph: the message says which command keeps it.
      if (error instanceof FileNotFoundError) throw new HttpError(404, 'not-found', error.message, 'method');
      throw error;
    }
  });

  app.get('/api/page', (c) => {
    const name = required(c, 'name');
    const limit = integer(c, 'limit', 100, 0, MAX_NEIGHBOURS);
    try {
      return c.json(compactPage(server.graph, name, limit, 'name'));
    } catch (error) {
      if (error instanceof OptionError && error.option === 'name') throw new HttpError(404, 'not-found', error.message, 'name');
      throw error;
    }
  });

  app.get('/api/distances', (c) => {
    const saved = compactSavedDistances(server.graph);
    if (saved === null) throw new HttpError(404, 'not-found', 'no distance distribution saved beside this graph: run `wga distances GRAPH.wgc --save`, then reload');
    return c.json(saved);
  });

  app.all('/api/*', () => {
    throw new HttpError(404, 'not-found', 'no such API endpoint on a graph file (it answers /api/info, /api/top, /api/page, /api/distances; the rest needs a store: wga serve --db)');
  });

  serveGui(app, server.files);
  return app;
}
