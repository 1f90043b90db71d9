import { join } from 'node:path';
import { after } from 'node:test';
import { temporaryDirectory } from '../helpers.js';
import { serverSuite } from './server-suite.js';

const dir = temporaryDirectory();
after(() => dir.cleanup());
let next = 0;
serverSuite('SQLite', async () => join(dir.path, `store-${next++}.sqlite`));
