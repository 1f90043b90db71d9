/**
 * The crawler-facing parts of OPIC (opic.ts, adaptive-opic.ts): groups switched off while their
 * host is busy, pages held while being fetched, the list of changed pages for checkpoints, and an
 * exact save and restore of the whole state. opic.test.ts covers the algorithm itself (Abiteboul,
 * Preda, Cobena, WWW 2003: Lemma 2.2, Lemma 2.3, convergence, Greedy's gain).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AdaptiveOpic } from '../../src/analysis/adaptive-opic.js';
import { Opic, type OpicGlobalState, type OpicOptions, type OpicPageState } from '../../src/analysis/opic.js';
import { ExitCode, OptionError } from '../../src/errors.js';
import { Random } from '../../src/util/random.js';

/** A small web: pages with random out-links, each on one of a few hosts (the groups). */
interface Web {
  links: number[][];
  host: number[];
  focus: boolean[];
}

function randomWeb(n: number, hosts: number, seed: number): Web {
  const random = new Random(seed);
  const links: number[][] = [];
  for (let v = 0; v < n; v++) {
    const out = [(v + 1) % n];
    const extra = random.nextInt(5) + (v % 9 === 0 ? 6 : 0);
    for (let k = 0; k < extra; k++) out.push(random.nextInt(n));
    // Some dangling pages: all their cash goes to the virtual page.
    links.push(v % 11 === 5 ? [] : out);
  }
  return {
    links,
    host: Array.from({ length: n }, () => random.nextInt(hosts)),
    focus: Array.from({ length: n }, (_, v) => v % 5 === 0),
  };
}

/**
 * A crawl of a web with OPIC, as the crawler drives it: pages become known when first linked
 * (added with their host as group), hosts are switched off and on, pages are held while being
 * fetched and read later. Page ids are given in discovery order; `idOf` maps web pages to ids.
 */
class CrawlDriver {
  readonly idOf = new Map<number, number>();
  readonly webOf: number[] = [];
  /** Pages held, in the order they were taken. */
  readonly inFlight: number[] = [];
  readonly selections: number[] = [];

  constructor(
    readonly opic: Opic,
    readonly web: Web,
  ) {}

  /** Starts a crawl from web page 0. */
  start(): void {
    this.known(0);
    this.opic.distributeInitialCash([0]);
  }

  /** Takes over the page ids of a crawl restored from a snapshot. */
  adopt(other: CrawlDriver): void {
    for (const [page, id] of other.idOf) this.idOf.set(page, id);
    this.webOf.push(...other.webOf);
    this.inFlight.push(...other.inFlight);
  }

  known(page: number): number {
    let id = this.idOf.get(page);
    if (id === undefined) {
      id = this.opic.addPage(this.web.focus[page]!, this.web.host[page]!);
      this.idOf.set(page, id);
      this.webOf.push(page);
    }
    return id;
  }

  /** One step, its choices drawn from `random` (the same draws for two drivers in the same state). */
  step(random: Random, hosts: number): void {
    const choice = random.nextInt(10);
    if (choice < 2) {
      this.opic.setGroupEnabled(random.nextInt(hosts), random.nextInt(2) === 0);
    } else if (choice < 5 || this.inFlight.length === 0) {
      // Take the greediest page out of the selection: its fetch starts.
      const page = this.opic.greediest();
      this.selections.push(page);
      if (page >= 0) {
        this.opic.hold(page);
        this.inFlight.push(page);
      }
    } else if (choice < 6) {
      // A fetch failed: the page goes back.
      this.opic.release(this.inFlight.shift()!);
    } else {
      // A fetch finished: read the page with its links, adding the pages first seen.
      const id = this.inFlight.shift()!;
      const out = this.web.links[this.webOf[id]!]!.map((page) => this.known(page));
      this.opic.read(id, out);
    }
  }
}

function snapshotPage(opic: Opic, i: number): OpicPageState {
  return JSON.parse(JSON.stringify(opic.pageState(i))) as OpicPageState;
}

function assertSameState(a: Opic, b: Opic, where: string): void {
  assert.equal(b.pages, a.pages, `${where}: pages`);
  assert.equal(b.time, a.time, `${where}: G`);
  assert.equal(b.reads, a.reads, `${where}: reads`);
  assert.equal(b.virtualHistory, a.virtualHistory, `${where}: virtual history`);
  assert.deepEqual(b.globalState(), a.globalState(), `${where}: globals`);
  for (let i = 0; i < a.pages; i++) {
    assert.equal(b.cashOf(i), a.cashOf(i), `${where}: cash of ${i}`);
    assert.equal(b.historyOf(i), a.historyOf(i), `${where}: history of ${i}`);
    assert.equal(b.readsOf(i), a.readsOf(i), `${where}: reads of ${i}`);
    assert.equal(b.lastReadTime(i), a.lastReadTime(i), `${where}: last read of ${i}`);
    assert.equal(b.isHeld(i), a.isHeld(i), `${where}: held ${i}`);
    assert.equal(b.groupOf(i), a.groupOf(i), `${where}: group of ${i}`);
    assert.deepEqual(b.pageState(i), a.pageState(i), `${where}: state of ${i}`);
  }
}

/** The pages Greedy may choose: in an enabled group, not held, and unread unless reselectRead. */
function bestSelectableCash(opic: Opic, enabled: (group: number) => boolean, reselectRead = true): number {
  let best = -Infinity;
  for (let i = 0; i < opic.pages; i++) {
    if (!enabled(opic.groupOf(i)) || opic.isHeld(i) || (!reselectRead && opic.isRead(i))) continue;
    best = Math.max(best, opic.cashOf(i));
  }
  return best;
}

describe('OPIC groups and held pages', () => {
  it('selects the greediest page among enabled groups only', () => {
    const opic = new Opic();
    // Cash 0.4, 0.3, 0.2, 0.1 on pages of groups 2, 0, 1, 0.
    const groups = [2, 0, 1, 0];
    for (const group of groups) opic.addPage(false, group);
    opic.distributeInitialCash([0, 0, 0, 0, 1, 1, 1, 2, 2, 3]);
    assert.deepEqual(
      groups.map((_, i) => opic.groupOf(i)),
      groups,
    );
    assert.equal(opic.greediest(), 0);
    assert.equal(opic.next('greedy'), 0);
    opic.setGroupEnabled(2, false);
    assert.equal(opic.greediest(), 1);
    opic.setGroupEnabled(0, false);
    assert.equal(opic.greediest(), 2);
    opic.setGroupEnabled(1, false);
    assert.equal(opic.greediest(), -1, 'every group is off');
    assert.equal(opic.next('greedy'), -1);
    // Switching off a group nobody is in, or twice, changes nothing.
    opic.setGroupEnabled(7, false);
    opic.setGroupEnabled(1, false);
    opic.setGroupEnabled(0, true);
    assert.equal(opic.greediest(), 1);
    opic.setGroupEnabled(2, true);
    assert.equal(opic.greediest(), 0);
    // Cash moving while a group is off is seen when it comes back.
    opic.setGroupEnabled(2, false);
    opic.read(1, [3]);
    assert.equal(opic.greediest(), 3, 'page 3 received 0.85 * 0.3 + 0.15 * 0.3 / 4 and leads the enabled groups');
    assert.ok(Math.abs(opic.cashOf(3) - (0.1 + 0.85 * 0.3 + (0.15 * 0.3) / 4)) < 1e-15);
    opic.setGroupEnabled(2, true);
    assert.equal(opic.greediest(), 0, 'page 0 (0.4 + 0.15 * 0.3 / 4) is back');
    assert.ok(Math.abs(opic.totalCash() - 1) < 1e-15);
  });

  it('counts the unread pages waiting per group and selects among unread pages only when asked', () => {
    const opic = new Opic();
    for (const group of [0, 0, 1, 1, 1]) opic.addPage(false, group);
    opic.distributeInitialCash([0, 1, 2, 3, 4]);
    assert.equal(opic.unreadWaiting(0), 2);
    assert.equal(opic.unreadWaiting(1), 3);
    assert.equal(opic.unreadWaiting(9), 0);
    opic.read(0, [2]);
    assert.equal(opic.unreadWaiting(0), 1, 'read pages are no longer waiting unread');
    opic.hold(3);
    assert.equal(opic.unreadWaiting(1), 2, 'held pages are not waiting');
    // Page 0 is read with no cash, page 2 has the most: after reading 2, the unread 1 and 4 lead.
    opic.read(2, [0]);
    const unread = opic.greediest(true);
    assert.ok(unread === 1 || unread === 4);
    assert.equal(opic.isRead(unread), false);
    assert.equal(opic.greediest(), 0, 'page 0 got 0.85 of page 2: the greediest of all');
    opic.setGroupEnabled(0, false);
    assert.equal(opic.greediest(true), 4);
    opic.setGroupEnabled(1, false);
    assert.equal(opic.greediest(true), -1);
  });

  it('never selects a held page, and puts it back on release or read', () => {
    const opic = Opic.withPages(4);
    opic.read(0, [1]);
    assert.equal(opic.greediest(), 1);
    opic.hold(1);
    assert.equal(opic.isHeld(1), true);
    assert.notEqual(opic.greediest(), 1);
    // A held page still receives cash.
    opic.read(2, [1]);
    assert.equal(opic.isHeld(1), true);
    assert.notEqual(opic.greediest(), 1);
    assert.ok(opic.cashOf(1) > opic.cashOf(opic.greediest()));
    const cash = opic.cashOf(1);
    opic.release(1);
    assert.equal(opic.isHeld(1), false);
    assert.equal(opic.greediest(), 1);
    assert.equal(opic.cashOf(1), cash);
    opic.release(1); // not held: nothing happens
    assert.equal(opic.greediest(), 1);
    // Reading a held page ends the hold.
    opic.hold(1);
    opic.hold(1); // twice: still one hold
    opic.read(1, [3]);
    assert.equal(opic.isHeld(1), false);
    assert.equal(opic.greediest(), 3);
    // Holding every page empties the selection.
    for (let i = 0; i < 4; i++) opic.hold(i);
    assert.equal(opic.greediest(), -1);
    opic.release(2);
    assert.equal(opic.greediest(), 2);
    assert.ok(Math.abs(opic.totalCash() - 1) < 1e-15);
  });

  it('keeps read pages out of the selection with reselectRead false, even after a release', () => {
    const opic = new Opic({ reselectRead: false });
    for (let i = 0; i < 3; i++) opic.addPage();
    opic.distributeInitialCash([0]);
    opic.hold(0);
    opic.read(0, [1]);
    assert.equal(opic.greediest(), 1);
    opic.read(1, [0]);
    assert.ok(opic.cashOf(0) > opic.cashOf(2));
    assert.equal(opic.greediest(), 2, 'page 0 has more cash but was read');
    opic.hold(0);
    opic.release(0);
    assert.equal(opic.greediest(), 2);
    opic.read(2, []);
    assert.equal(opic.greediest(), -1);
  });

  it('selects the page with the most cash among those selectable, through a random crawl', () => {
    const hosts = 5;
    const web = randomWeb(120, hosts, 21);
    for (const options of [{}, { discoveryShare: 0.3, focusShare: 0.2 }, { reselectRead: false, discoveryShare: 0.5 }] as OpicOptions[]) {
      const opic = new Opic(options);
      const driver = new CrawlDriver(opic, web);
      driver.start();
      const random = new Random(22);
      const enabled = new Set(Array.from({ length: hosts }, (_, h) => h));
      for (let step = 0; step < 1500; step++) {
        // Check the selection before the driver acts on it.
        const chosen = opic.greediest();
        const best = bestSelectableCash(opic, (g) => enabled.has(g), options.reselectRead ?? true);
        if (chosen < 0) assert.equal(best, -Infinity, `step ${step}: nothing selectable`);
        else {
          assert.ok(enabled.has(opic.groupOf(chosen)) && !opic.isHeld(chosen), `step ${step}: ${chosen} is selectable`);
          // Cash in the heap and cash computed from the pools differ by rounding only.
          assert.ok(opic.cashOf(chosen) >= best - 1e-15, `step ${step}: ${opic.cashOf(chosen)} < ${best}`);
        }
        const before = random.nextInt(1 << 30);
        const mirror = new Random(before);
        // Replay the driver's group switch in our set of enabled groups.
        if (mirror.nextInt(10) < 2) {
          const group = mirror.nextInt(hosts);
          if (mirror.nextInt(2) === 0) enabled.add(group);
          else enabled.delete(group);
        }
        driver.step(new Random(before), hosts);
      }
      assert.ok(opic.reads > 100, `${JSON.stringify(options)}: ${opic.reads} reads`);
      assert.ok(Math.abs(opic.totalCash() - 1) < 1e-12);
    }
  });
});

describe('OPIC changes and state', () => {
  it('lists the pages whose stored state changed, each once, with trackChanges', () => {
    const opic = new Opic({ trackChanges: true });
    for (let i = 0; i < 4; i++) opic.addPage();
    assert.deepEqual(opic.takeChanges().sort(), [0, 1, 2, 3]);
    assert.deepEqual(opic.takeChanges(), []);
    opic.distributeInitialCash([0, 2]);
    assert.deepEqual(opic.takeChanges().sort(), [0, 2]);
    opic.read(0, [1, 2, 1, 0]);
    assert.deepEqual(opic.takeChanges().sort(), [0, 1, 2], 'the page read and the pages credited');
    // A page without links pays the virtual page: lazy, so no other page's stored state changes.
    opic.read(1, []);
    assert.deepEqual(opic.takeChanges(), [1]);
    opic.hold(3);
    opic.release(3);
    opic.setGroupEnabled(0, false);
    assert.deepEqual(opic.takeChanges(), [], 'holds and groups are not stored state');
    // Many pages, some repeatedly touched.
    for (let i = 0; i < 100; i++) opic.addPage();
    opic.read(2, [5, 50, 103, 5]);
    opic.read(50, [2]);
    const changed = opic.takeChanges();
    assert.equal(changed.length, new Set(changed).size, 'each once');
    assert.deepEqual(
      [...changed].sort((a, b) => a - b),
      [2, ...Array.from({ length: 100 }, (_, k) => 4 + k)],
      'the new pages (5, 50 and 103 among them) and page 2, read',
    );
    opic.read(2, []);
    assert.deepEqual(opic.takeChanges(), [2]);
  });

  it('lists nothing without trackChanges', () => {
    const opic = Opic.withPages(5);
    opic.read(0, [1, 2]);
    assert.deepEqual(opic.takeChanges(), []);
    for (let i = 0; i < 40; i++) opic.addPage();
    assert.deepEqual(opic.takeChanges(), []);
  });

  it('refuses to restore globals once pages exist', () => {
    const opic = Opic.withPages(2);
    const globals = opic.globalState();
    assert.throws(
      () => opic.restoreGlobals(globals),
      (error: unknown) => error instanceof OptionError && error.option === 'state' && error.exitCode === ExitCode.usage,
    );
  });

  it('restores a crawl exactly from its checkpoints, and the restored crawl continues as the uninterrupted one', () => {
    const hosts = 6;
    const web = randomWeb(1000, hosts, 31);
    for (const options of [{}, { discoveryShare: 0.25, focusShare: 0.15 }, { reselectRead: false }] as OpicOptions[]) {
      const where = JSON.stringify(options);
      const original = new Opic({ ...options, trackChanges: true });
      const driver = new CrawlDriver(original, web);
      driver.start();
      const random = new Random(32);
      // The store a crawler keeps: pages written when takeChanges lists them, globals at each checkpoint.
      const store = new Map<number, OpicPageState>();
      let globals: OpicGlobalState | null = null;
      const checkpoint = (): void => {
        for (const i of original.takeChanges()) store.set(i, snapshotPage(original, i));
        globals = JSON.parse(JSON.stringify(original.globalState())) as OpicGlobalState;
        // What takeChanges missed would now differ from the live state.
        assert.equal(store.size, original.pages, `${where}: every page stored`);
        for (let i = 0; i < original.pages; i++) assert.deepEqual(store.get(i), original.pageState(i), `${where}: stored state of ${i}`);
      };
      for (let step = 0; step < 1200; step++) {
        driver.step(random, hosts);
        if (step % 97 === 0) checkpoint();
      }
      checkpoint();
      assert.ok(original.reads > 100 && original.pages > 20, `${where}: a real crawl (${original.reads} reads, ${original.pages} pages)`);

      const restored = new Opic({ ...options, trackChanges: true });
      restored.restoreGlobals(globals!);
      for (let i = 0; i < store.size; i++) assert.equal(restored.restorePage(store.get(i)!, web.host[driver.webOf[i]!]!), i);
      assert.deepEqual(restored.takeChanges(), [], 'restored pages are stored already');
      // Hosts switched off and fetches in flight are the crawler's, not the state's: it sets them again.
      const copy = new CrawlDriver(restored, web);
      copy.adopt(driver);
      for (const page of driver.inFlight) restored.hold(page);
      assertSameState(original, restored, `${where}: restored`);
      assert.ok(Math.abs(restored.totalCash() - 1) < 1e-12);

      // Continue both with the same draws; every group on again first (the restored crawl's start).
      for (let group = 0; group < hosts; group++) {
        original.setGroupEnabled(group, true);
        restored.setGroupEnabled(group, true);
      }
      const continueRandom = (): Random => new Random(33);
      const a = continueRandom();
      const b = continueRandom();
      const selectedBefore = driver.selections.length;
      for (let step = 0; step < 1200; step++) {
        driver.step(a, hosts);
        copy.step(b, hosts);
        assert.equal(copy.selections.at(-1), driver.selections.at(-1), `${where}: step ${step}: same selection`);
        if (step % 50 === 0) assert.ok(Math.abs(restored.totalCash() - 1) < 1e-12, `${where}: step ${step}: total cash`);
      }
      assert.ok(driver.selections.length > selectedBefore + 100);
      assertSameState(original, restored, `${where}: after continuing`);
      assert.deepEqual(restored.estimates(), original.estimates());
      assert.ok(Math.abs(original.totalCash() - 1) < 1e-12);
      assert.ok(Math.abs(restored.totalCash() - 1) < 1e-12);
      assert.deepEqual(restored.takeChanges().sort((x, y) => x - y), original.takeChanges().sort((x, y) => x - y));
    }
  });
});

describe('AdaptiveOpic state', () => {
  function crawl(adaptive: AdaptiveOpic, web: Web, reads: number, random: Random, known: Map<number, number>, webOf: number[]): void {
    const idOf = (page: number): number => {
      let id = known.get(page);
      if (id === undefined) {
        id = adaptive.addPage(web.focus[page]!, web.host[page]!);
        known.set(page, id);
        webOf.push(page);
      }
      return id;
    };
    for (let r = 0; r < reads; r++) {
      // Mostly Greedy, sometimes a random known page (a recrawl the crawler decided on).
      const page = random.nextInt(4) === 0 ? random.nextInt(adaptive.pages) : adaptive.opic.greediest();
      adaptive.read(page, web.links[webOf[page]!]!.map(idOf));
    }
  }

  it('rescales the Interpolation history with the window, keeping the rates', () => {
    const web = randomWeb(50, 3, 41);
    const adaptive = new AdaptiveOpic({ kind: 'interpolation', window: 2 });
    const known = new Map<number, number>([[0, adaptive.addPage()]]);
    adaptive.opic.distributeInitialCash([0]);
    crawl(adaptive, web, 300, new Random(42), known, [0]);
    const histories = Array.from({ length: adaptive.pages }, (_, i) => adaptive.interpolatedHistory(i));
    const rates = Array.from({ length: adaptive.pages }, (_, i) => adaptive.rate(i));
    assert.ok(histories.some((h) => h > 0));
    adaptive.setWindow(5);
    assert.deepEqual(adaptive.window, { kind: 'interpolation', window: 5 });
    for (let i = 0; i < adaptive.pages; i++) {
      assert.ok(Math.abs(adaptive.interpolatedHistory(i) - histories[i]! * 2.5) <= 1e-15 * Math.max(1, histories[i]!), `H of ${i}`);
      assert.ok(Math.abs(adaptive.rate(i) - rates[i]!) <= 1e-15 * Math.max(1, rates[i]!), `rate of ${i}`);
    }
    // Bad windows are refused naming the option, and change nothing.
    for (const bad of [0, -1, Number.NaN, Infinity]) {
      assert.throws(
        () => adaptive.setWindow(bad),
        (error: unknown) => error instanceof OptionError && error.option === 'window',
        String(bad),
      );
    }
    assert.deepEqual(adaptive.window, { kind: 'interpolation', window: 5 });
    assert.ok(Math.abs(adaptive.interpolatedHistory(0) - histories[0]! * 2.5) <= 1e-15 * Math.max(1, histories[0]!));
    // Only an Interpolation window can change.
    for (const policy of [
      { kind: 'fixed', window: 1 },
      { kind: 'variable', measures: 3 },
      { kind: 'improved-fixed', window: 1, minimumMeasures: 2 },
    ] as const) {
      const other = AdaptiveOpic.withPages(3, policy);
      assert.throws(
        () => other.setWindow(2),
        (error: unknown) => error instanceof OptionError && error.option === 'window' && error.message.includes('Interpolation'),
      );
      assert.deepEqual(other.window, policy);
    }
  });

  it('gives new pages the mean rate of the recently introduced pages as default history', () => {
    const adaptive = AdaptiveOpic.withPages(3, { kind: 'interpolation', window: 4 });
    assert.deepEqual(adaptive.recentIntroductions, []);
    const fresh = adaptive.addPage();
    assert.equal(adaptive.interpolatedHistory(fresh), 0, 'nothing read yet: no default');
    adaptive.read(0, [1]);
    adaptive.read(1, [2]);
    const rates = [...adaptive.recentIntroductions];
    assert.equal(rates.length, 2);
    assert.ok(rates.every((r) => r > 0));
    // Reading a page again does not introduce it again.
    adaptive.read(0, [1]);
    assert.deepEqual([...adaptive.recentIntroductions], rates);
    const page = adaptive.addPage();
    const mean = (rates[0]! + rates[1]!) / 2;
    assert.ok(Math.abs(adaptive.interpolatedHistory(page) - mean * 4) < 1e-15);
    assert.ok(Math.abs(adaptive.rate(page) - mean) < 1e-15);
    // The list keeps the last 64 rates.
    adaptive.recentIntroductions = Array.from({ length: 100 }, (_, k) => k);
    assert.deepEqual([...adaptive.recentIntroductions], Array.from({ length: 64 }, (_, k) => 36 + k));
    const another = adaptive.addPage();
    assert.ok(Math.abs(adaptive.interpolatedHistory(another) - ((36 + 99) / 2) * 4) < 1e-12);
    adaptive.recentIntroductions = [];
    assert.equal(adaptive.interpolatedHistory(adaptive.addPage()), 0);
  });

  it('keeps its recent introductions when they are assigned back to it', () => {
    const adaptive = AdaptiveOpic.withPages(4, { kind: 'interpolation', window: 4 });
    adaptive.read(0, [1, 2]);
    adaptive.read(1, [3]);
    const saved = [...adaptive.recentIntroductions];
    assert.equal(saved.length, 2);
    // A checkpoint restored into the same object: the setter receives its own array.
    adaptive.recentIntroductions = adaptive.recentIntroductions;
    assert.deepEqual([...adaptive.recentIntroductions], saved);
  });

  it('restores an Interpolation crawl exactly: pages, H, window and recent introductions', () => {
    const web = randomWeb(70, 4, 51);
    for (const options of [{}, { discoveryShare: 0.2 }] as OpicOptions[]) {
      const where = JSON.stringify(options);
      const original = new AdaptiveOpic({ kind: 'interpolation', window: 1 }, options);
      const known = new Map<number, number>([[0, original.addPage(web.focus[0]!, web.host[0]!)]]);
      const webOf = [0];
      original.opic.distributeInitialCash([0]);
      crawl(original, web, 400, new Random(52), known, webOf);
      // A crawler lengthens the window as it learns the G-time of a pass.
      original.setWindow(3.5);
      crawl(original, web, 100, new Random(53), known, webOf);

      const restored = new AdaptiveOpic(original.window, options);
      restored.opic.restoreGlobals(JSON.parse(JSON.stringify(original.opic.globalState())) as OpicGlobalState);
      for (let i = 0; i < original.pages; i++) {
        restored.restorePage(snapshotPage(original.opic, i), original.windowRate(i), original.opic.groupOf(i));
      }
      restored.recentIntroductions = JSON.parse(JSON.stringify(original.recentIntroductions)) as number[];
      assertSameState(original.opic, restored.opic, `${where}: restored`);
      for (let i = 0; i < original.pages; i++) assert.equal(restored.rate(i), original.rate(i), `${where}: rate of ${i}`);

      const knownCopy = new Map(known);
      const webOfCopy = [...webOf];
      crawl(original, web, 500, new Random(54), known, webOf);
      crawl(restored, web, 500, new Random(54), knownCopy, webOfCopy);
      assert.deepEqual(webOfCopy, webOf, `${where}: the same pages found in the same order`);
      assertSameState(original.opic, restored.opic, `${where}: after continuing`);
      for (let i = 0; i < original.pages; i++) {
        assert.equal(restored.windowRate(i), original.windowRate(i), `${where}: R of ${i}`);
        assert.equal(restored.interpolatedHistory(i), original.interpolatedHistory(i), `${where}: H of ${i}`);
      }
      assert.deepEqual(restored.estimates(), original.estimates());
      assert.deepEqual([...restored.recentIntroductions], [...original.recentIntroductions]);
      assert.ok(Math.abs(restored.opic.totalCash() - 1) < 1e-12);
      const sum = restored.estimates().reduce((s, x) => s + x, 0);
      assert.ok(Math.abs(sum - 1) < 1e-12);
    }
  });
});
