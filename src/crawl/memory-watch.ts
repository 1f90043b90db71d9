/**
 * The crawl's memory budget (--memory): once a second the process's resident memory is read, and
 * V8's heap beside its own limit (a crawl whose JavaScript objects fill the heap would die with
 * "JavaScript heap out of memory", whatever the machine has left). The first reading past either
 * calls `reached` once, with one line saying which and by how much; the crawler then stops as
 * --max-time stops it (running fetches finish, a checkpoint is written, --resume continues).
 */
import { getHeapStatistics } from 'node:v8';

/** How close to V8's heap limit a crawl may go: beyond this, collections take most of its time. */
export const HEAP_SHARE = 0.9;

export interface MemoryReading {
  rss: number;
  heapUsed: number;
}

function readMemory(): MemoryReading {
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heapUsed };
}

/** Which budget a reading passes, as one line, or null. */
export function memoryOverBudget(reading: MemoryReading, budget: number, heapLimit: number): string | null {
  const mb = (bytes: number): string => `${Math.round(bytes / 2 ** 20).toLocaleString('en-US')} MB`;
  if (reading.rss >= budget) return `the crawl's resident memory (${mb(reading.rss)}) reached --memory ${mb(budget)}: stopping after a checkpoint (--resume continues; give it a larger --memory)`;
  if (reading.heapUsed >= HEAP_SHARE * heapLimit) {
    return `the crawl's JavaScript heap (${mb(reading.heapUsed)}) neared V8's limit (${mb(heapLimit)}): stopping after a checkpoint (--resume continues; node --max-old-space-size raises the limit)`;
  }
  return null;
}

/** Reads the memory every `everyMs` until `reached` has been called once; the timer does not keep the process alive. */
export function watchMemory(budget: number, reached: (why: string) => void, everyMs = 1000, read: () => MemoryReading = readMemory): NodeJS.Timeout {
  const heapLimit = getHeapStatistics().heap_size_limit;
  let told = false;
  const timer = setInterval(() => {
    if (told) return;
    let reading: MemoryReading;
    try {
      reading = read();
    } catch {
      // Reading /proc can fail (EMFILE when the process is out of files): the next second tries again.
      return;
    }
    const why = memoryOverBudget(reading, budget, heapLimit);
    if (why === null) return;
    told = true;
    reached(why);
  }, everyMs);
  timer.unref();
  return timer;
}
