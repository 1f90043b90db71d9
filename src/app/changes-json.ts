/**
 * The document of `wga changes --json` and GET /api/changes, declared once for the server and
 * the GUI (web/src/types.ts): this module imports nothing, so the GUI's bundle takes its types alone.
 */
export interface ChangesJson {
  store: string;
  /** The window: [since, until), ISO times (until null: up to now). */
  since: string;
  until: string | null;
  visits: number;
  notModified: number;
  counts: { new: number; gone: number; changed: number; unchanged: number; linksAdded: number; linksRemoved: number };
  new: Array<{ url: string; status: number | null }>;
  gone: Array<{ url: string; status: number | null; error: string | null; before: number | null }>;
  changed: Array<{ url: string; linksAdded: number; linksRemoved: number }>;
  linksAdded: Array<{ source: string; target: string; kind: string; at: string }>;
  linksRemoved: Array<{ source: string; target: string; kind: string; at: string }>;
  /** Pages with the highest estimated change rate over their whole history (at least two visits). */
  rates: Array<{ url: string; visits: number; changes: number; perDay: number }>;
}
