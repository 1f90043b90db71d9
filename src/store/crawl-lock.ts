/**
 * Whether the process holding a crawl lock is still at work, as the crawler taking over a crawl
 * and every command that writes (app/crawl-guard.ts) judge it: on this machine, its pid is alive
 * (a crawl waiting for its store writes no heartbeat, yet runs); on another, it wrote a checkpoint
 * in the last LOCK_STALE_MS.
 */
import { hostname as machineName } from 'node:os';
import type { CrawlLock } from './store.js';

/** A crawl of another machine that has written nothing for this long is taken as stopped. */
export const LOCK_STALE_MS = 60_000;

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function lockHolderAlive(lock: CrawlLock, now = Date.now()): boolean {
  if (lock.hostname === machineName()) return processAlive(lock.pid);
  return now - lock.heartbeat < LOCK_STALE_MS;
}
