/**
 * Balancing the partitions of a shared crawl between its instances: what
 * an instance asks for and what it lets go at a checkpoint (pure decisions;
 * shared-crawl-db.ts reads the census and applies them).
 *
 * The Web Graph Analyzer paper (Section 4.3) has an instance that runs out
 * of pages wait until the others "free a number of their new pages" for it.
 * Waiting until an instance has nothing left is late: its requests are
 * already idle while the others still have work, and the crawl ends when
 * the instance with the most work is done. So besides the idle instance
 * ('waiting'), two states ask for work before it runs out:
 * - short of hosts: fewer hosts with waiting pages than it needs to keep its
 *   requests busy (politeness lets each host take one request per delay);
 *   an instance with hosts to spare lets the spare go;
 * - low on work: far fewer waiting pages than the instances' mean, so it
 *   will run out first; an instance with far more lets go partitions worth
 *   about its excess.
 * A giver always keeps half again the hosts it needs itself: a partition
 * moved from an instance that needs all its hosts adds nothing (each host is
 * limited by politeness, whoever holds it).
 */

/** Below this share of the instances' mean of waiting pages an instance is low on work. */
export const LOW_WORK = 0.6;
/** Above this share of the mean an instance gives partitions to instances low on work. */
export const HIGH_WORK = 1.2;
/** A giver keeps this many times the hosts it needs. */
export const KEEP_HOSTS = 1.5;

export type InstanceState = 'waiting' | 'short' | 'working';

/** One instance's view of itself at a checkpoint. */
export interface BalanceSelf {
  state: InstanceState;
  /** Partitions it keeps (those let go in this checkpoint left out). */
  keep: readonly number[];
  /** Waiting pages by partition (partitions with none absent). */
  workByPartition: ReadonlyMap<number, number>;
  /** Hosts with waiting pages by partition. */
  hostsByPartition: ReadonlyMap<number, number>;
  neededHosts: number;
  waitingPages: number;
}

/** The other live instances, as their last checkpoint left them. */
export interface BalanceOther {
  state: string;
  waitingPages: number;
}

export interface BalanceCensus {
  partitions: number;
  /** Partitions nobody holds (or whose lease expired) that have waiting pages. */
  freeWithWork: number;
  others: readonly BalanceOther[];
}

export interface BalanceDecision {
  /** Partitions to take (the most waiting pages first), at most. */
  want: number;
  /** Partitions to start letting go (no new fetches; let go once quiet). */
  letGo: number[];
  /** Whether this instance counts as low on work (it then takes free partitions with work). */
  low: boolean;
  /** Partitions / live instances, rounded up: below it an instance may take partitions without work too. */
  fair: number;
}

export function balance(self: BalanceSelf, census: BalanceCensus): BalanceDecision {
  const { others } = census;
  const waiters = others.filter((r) => r.state === 'waiting').length;
  const shorts = others.filter((r) => r.state === 'short').length;
  const meanWaiting = (self.waitingPages + others.reduce((sum, r) => sum + r.waitingPages, 0)) / (others.length + 1);
  const isLow = (waiting: number): boolean => waiting < LOW_WORK * meanWaiting;
  const lows = others.filter((r) => r.state === 'working' && isLow(r.waitingPages)).length;
  const low = self.state === 'working' && isLow(self.waitingPages);
  const fair = Math.ceil(census.partitions / (others.length + 1));
  let want = fair - self.keep.length;
  if (self.state !== 'working' || low) {
    // An instance with nothing (or too little) to do takes its part of the free partitions with work, whatever its share.
    want = Math.max(want, Math.ceil(census.freeWithWork / (1 + waiters + shorts + lows)));
  }
  const letGo: number[] = [];
  const workOf = (p: number): number => self.workByPartition.get(p) ?? 0;
  const hostsOf = (p: number): number => self.hostsByPartition.get(p) ?? 0;
  if (waiters > 0 && self.state !== 'waiting') {
    // Idle instances (the paper's case): partitions with work are split with them (this one keeps at
    // least one); beyond its fair share it lets idle ones go first, so that work is not handed over for nothing.
    const withWork = self.keep.filter((p) => workOf(p) > 0).sort((a, b) => workOf(b) - workOf(a));
    const surplus = Math.max(0, self.keep.length - fair);
    const idle = self.keep.filter((p) => workOf(p) === 0);
    let fromWork = withWork.length >= 2 ? Math.floor((withWork.length * waiters) / (waiters + 1)) : 0;
    const fromIdle = Math.min(idle.length, Math.max(0, surplus - fromWork));
    fromWork = Math.max(fromWork, Math.min(surplus - fromIdle, withWork.length - 1));
    letGo.push(...withWork.slice(withWork.length - fromWork), ...idle.slice(0, fromIdle));
  } else if (shorts > 0 && self.state === 'working') {
    // Keep the partitions with the most hosts until KEEP_HOSTS times the hosts needed; the rest is
    // spare, of which the short instances' part (as the idle ones') is let go.
    const withHosts = self.keep.filter((p) => hostsOf(p) > 0).sort((a, b) => hostsOf(b) - hostsOf(a) || a - b);
    let kept = 0;
    let k = 0;
    while (k < withHosts.length && kept < KEEP_HOSTS * self.neededHosts) kept += hostsOf(withHosts[k++]!);
    const spare = withHosts.slice(k);
    const give = Math.min(spare.length, Math.floor((withHosts.length * shorts) / (shorts + 1)));
    letGo.push(...spare.slice(spare.length - give));
  } else if (lows > 0 && self.state === 'working' && !low && self.waitingPages > HIGH_WORK * meanWaiting) {
    // Partitions with work worth about the excess over the mean, the smallest first (to come close
    // to it), keeping KEEP_HOSTS times the hosts needed and at least one partition with work.
    const withWork = self.keep.filter((p) => workOf(p) > 0).sort((a, b) => workOf(a) - workOf(b) || a - b);
    let hostsLeft = withWork.reduce((sum, p) => sum + hostsOf(p), 0);
    let excess = self.waitingPages - meanWaiting;
    for (const p of withWork) {
      if (letGo.length >= withWork.length - 1) break;
      if (workOf(p) > excess || hostsLeft - hostsOf(p) < KEEP_HOSTS * self.neededHosts) continue;
      letGo.push(p);
      excess -= workOf(p);
      hostsLeft -= hostsOf(p);
    }
  }
  return { want, letGo, low, fair };
}
