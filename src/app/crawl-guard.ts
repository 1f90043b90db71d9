/**
 * The crawl lock as every command that writes sees it: `reset`, `import`, `import-warc`,
 * `runs --delete` and the GUI's data actions refuse a store a crawl is writing (its lock held by a
 * process that is alive: on this machine, its pid; elsewhere, a checkpoint in the last minute; or an
 * instance of a shared crawl that checkpointed in the last minute), naming it. A lock left by a crawl
 * whose process is gone is refused too, unless `force`: the crawl it belonged to resumes from the
 * store as it is then.
 */
import { ExitCode, WgaError } from '../errors.js';
import { LOCK_STALE_MS, lockHolderAlive } from '../store/crawl-lock.js';
import { CRAWL_STATE, type CrawlLock, type Store } from '../store/store.js';


/** A store being crawled refused to a command that writes (HTTP: 409). */
export class CrawlRunningError extends WgaError {
  constructor(message: string) {
    super(message, ExitCode.usage);
  }
}


function since(lock: { startedAt?: number; heartbeat: number }): string {
  return lock.startedAt === undefined ? `last seen ${new Date(lock.heartbeat).toISOString()}` : `started ${new Date(lock.startedAt).toISOString()}`;
}

/** Throws CrawlRunningError when a crawl writes `store` (or left its lock, without `force`); `what` names the command. */
export async function refuseWhileCrawling(store: Store, what: string, options: { force?: boolean } = {}): Promise<void> {
  const text = (await store.crawlState())[CRAWL_STATE.lock];
  if (text !== undefined) {
    const lock = JSON.parse(text) as CrawlLock;
    if (lockHolderAlive(lock)) {
      throw new CrawlRunningError(`${store.location}: a crawl is writing this store (pid ${lock.pid} on ${lock.hostname}, ${since(lock)}): stop it before ${what}`);
    }
    if (options.force !== true) {
      throw new CrawlRunningError(
        `${store.location}: the lock of a crawl whose process is gone (pid ${lock.pid} on ${lock.hostname}, ${since(lock)}) is still in the store: give --force to ${what} anyway, or resume the crawl`,
      );
    }
  }
  for (const instance of await store.liveSharedInstances(LOCK_STALE_MS)) {
    throw new CrawlRunningError(
      `${store.location}: an instance of a shared crawl is writing this store (pid ${instance.pid} on ${instance.hostname}, started ${new Date(instance.startedAt).toISOString()}): stop it before ${what}`,
    );
  }
}
