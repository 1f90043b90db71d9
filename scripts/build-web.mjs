// Builds the browser GUI: bundles web/src/main.ts (and the CSS it imports) with esbuild into
// dist/web/, and copies web/index.html beside it. The server serves that folder (src/server).
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'web');
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(root, 'web', 'src', 'main.ts')],
  bundle: true,
  format: 'esm',
  target: ['chrome110', 'firefox110', 'safari16'],
  minify: true,
  sourcemap: true,
  outdir: out,
  logLevel: 'warning',
  legalComments: 'linked',
});
copyFileSync(join(root, 'web', 'index.html'), join(out, 'index.html'));
