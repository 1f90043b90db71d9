/**
 * A writer process for the concurrency test: opens the SQLite store given on
 * the command line and adds pages (its own and shared ones) and links in
 * small transactions, interleaving with the other writers.
 */
import { SqliteStore } from '../../src/store/sqlite.js';

const [path, name, countText] = process.argv.slice(2) as [string, string, string];
const count = Number(countText);
const store = SqliteStore.open(path);
for (let start = 0; start < count; start += 50) {
  const urls: string[] = [];
  for (let i = start; i < Math.min(count, start + 50); i++) urls.push(`http://${name}.example/${i}`, `http://shared.example/${i}`);
  const ids = await store.addPages(urls, urls);
  const links = [];
  for (let k = 0; k + 1 < ids.length; k += 2) links.push({ source: ids[k]!, target: ids[k + 1]!, kind: 'anchor' as const, nofollow: false });
  await store.addLinks(links);
}
await store.close();
