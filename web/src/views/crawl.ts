/**
 * Crawl: the crawl's configuration (every `wga crawl` option a user sets) on the left; start, stop,
 * resume; the live state on the right, streamed by the server (`/api/crawl/events`, at least every
 * second) for a crawl of this server or of another process on the same store.
 */
import { api } from '../api.js';
import { formatCount, formatScore, h, notice, pageLink, replace, routeLink, table } from '../dom.js';
import { listen } from '../events.js';
import { checkField, type Field, foldedGroup, group, linesField, numberField, readFields, selectField, textField } from '../form.js';
import type { CrawlStatus } from '../types.js';
import { lineChart, type LineChart } from '../charts/line.js';

const RENDER_MODES: Array<[string, string]> = [
  ['auto', 'auto'],
  ['always', 'always'],
  ['never', 'never'],
];

const STRATEGIES: Array<[string, string]> = [
  ['greedy', 'greedy: most OPIC cash first'],
  ['bfs', 'bfs: breadth first'],
  ['dfs', 'dfs: depth first'],
  ['random', 'random'],
  ['buffer', 'buffer of new pages'],
  ['pagerank', 'pagerank: highest live PageRank first'],
];

function crawlFields(): Record<string, Field[]> {
  return {
    seeds: [linesField({ name: 'seeds', label: 'Seeds', rows: 3, placeholder: 'https://www.example.org/', help: 'URLs to start from, one per line' })],
    scope: [
      linesField({ name: 'filter', label: 'Filter (regexes)', help: 'a URL must match one of these to be fetched' }),
      linesField({ name: 'fence', label: 'Fence (regexes)', help: 'a URL matching any of these is never fetched' }),
      textField({ name: 'extensions', label: 'Extensions', placeholder: "html,php or 'any'", help: 'default: all but images, media, archives…' }),
      selectField({ name: 'hosts', label: 'Hosts', optional: true, options: [['seeds', "the seeds' hosts"], ['domain', 'their domains'], ['any', 'any host']] }),
    ],
    addresses: [
      linesField({ name: 'allowIp', label: 'Allow IP ranges', placeholder: '127.0.0.1/32', help: 'only these (also allows private and loopback)' }),
      linesField({ name: 'denyIp', label: 'Deny IP ranges' }),
      textField({ name: 'ipCountry', label: 'IP-to-country table', placeholder: '/path/on/the/server.txt' }),
      linesField({ name: 'country', label: 'Only countries', placeholder: 'FR' }),
      linesField({ name: 'denyCountry', label: 'Deny countries' }),
    ],
    limits: [
      numberField({ name: 'maxPages', label: 'Max pages', min: 0, step: 1 }),
      numberField({ name: 'maxDepth', label: 'Max depth', min: 0, step: 1, help: 'clicks from a seed' }),
      numberField({ name: 'maxTime', label: 'Max time (s)', min: 0 }),
    ],
    politeness: [
      numberField({ name: 'delay', label: 'Delay per host (ms)', min: 0, placeholder: '1000' }),
      numberField({ name: 'perHost', label: 'Connections per host', min: 1, step: 1, placeholder: '1' }),
      numberField({ name: 'concurrency', label: 'Concurrency', min: 1, step: 1, placeholder: '8' }),
      numberField({ name: 'retries', label: 'Retries', min: 0, step: 1, placeholder: '2' }),
      numberField({ name: 'retryDelay', label: 'First retry after (ms)', min: 0, placeholder: '1000' }),
      numberField({ name: 'timeout', label: 'Timeout per page (s)', min: 0, placeholder: '60' }),
      numberField({ name: 'maxBody', label: 'Largest page (bytes)', min: 1, step: 1, placeholder: '10485760' }),
      numberField({ name: 'maxRedirects', label: 'Longest redirect chain', min: 0, step: 1, placeholder: '10' }),
      textField({ name: 'userAgent', label: 'User-Agent' }),
    ],
    strategy: [
      selectField({ name: 'strategy', label: 'Strategy', optional: true, options: STRATEGIES }),
      numberField({ name: 'bufferSize', label: 'Buffer size', min: 1, step: 1, placeholder: '100' }),
      numberField({ name: 'damping', label: 'OPIC damping', min: 0, max: 1, placeholder: '0.85' }),
      numberField({ name: 'window', label: 'Adaptive window (passes)', min: 0, placeholder: '4' }),
      linesField({ name: 'focus', label: 'Focus (regexes)', help: 'pages that get a share of the virtual page’s cash' }),
      numberField({ name: 'focusShare', label: 'Focus share', min: 0, max: 1, placeholder: '0.5' }),
      numberField({ name: 'discoveryShare', label: 'Discovery share', min: 0, max: 1, placeholder: '0' }),
      checkField({ name: 'refresh', label: 'Refresh', help: 'read fetched pages again' }),
      checkField({ name: 'recrawl', label: 'Re-crawl once', help: 'with resume: read every fetched page once more (unchanged ones cost a 304), then stop; see Changes' }),
      checkField({ name: 'sitemaps', label: 'Sitemaps', checked: true, help: 'robots.txt’s Sitemap lines, else /sitemap.xml' }),
      checkField({ name: 'compression', label: 'Ask for compression', checked: true, help: 'gzip, deflate, br' }),
      checkField({ name: 'respectNofollow', label: 'Respect nofollow', help: 'find no new page through rel=nofollow links' }),
      selectField({ name: 'render', label: 'Render in Chromium', optional: true, options: RENDER_MODES, help: 'to find the links scripts write; auto (default): pages whose HTML looks built by scripts; always: every HTML page' }),
      numberField({ name: 'renderConcurrency', label: 'Pages rendered at once', min: 1, max: 64, step: 1, placeholder: 'one per core' }),
      numberField({ name: 'renderTimeout', label: 'Render time per page (s)', min: 0.1, placeholder: '15' }),
      checkField({ name: 'live', label: 'Live PageRank', checked: true, help: 'the PageRank of the pages known so far, updated while crawling' }),
      numberField({ name: 'liveInterval', label: 'Live PageRank every (ms)', min: 10, step: 1, placeholder: '1000' }),
      numberField({ name: 'liveShare', label: 'Live PageRank share of a core', min: 0.01, max: 1, step: 0.01, placeholder: '1' }),
    ],
  };
}

const COUNTERS: Array<[string, string, (s: CrawlStatus) => string]> = [
  ['pages/s', 'pagesPerSecond', (s) => s.pagesPerSecond.toFixed(1)],
  ['fetched', 'fetched', (s) => formatCount(s.counters?.fetched ?? 0)],
  ['failed', 'failed', (s) => formatCount(s.counters?.failed ?? 0)],
  ['frontier', 'frontier', (s) => formatCount(s.counters?.frontier ?? 0)],
  ['known', 'known', (s) => formatCount(s.counters?.known ?? 0)],
  ['excluded', 'excluded', (s) => formatCount(s.counters?.excluded ?? 0)],
  ['redirects', 'redirects', (s) => formatCount(s.counters?.redirects ?? 0)],
  ['errors (retries)', 'retries', (s) => formatCount(s.counters?.retries ?? 0)],
  ['in flight', 'inFlight', (s) => formatCount(s.counters?.inFlight ?? 0)],
  ['hosts', 'hosts', (s) => formatCount(s.counters?.hosts ?? 0)],
  ['rendered', 'rendered', (s) => formatCount(s.counters?.rendered ?? 0)],
  ['links only rendering found', 'renderedLinks', (s) => formatCount(s.counters?.renderedLinks ?? 0)],
  ['OPIC clock G', 'opicTime', (s) => (s.opic === null ? '–' : s.opic.time.toPrecision(4))],
  ['error factor 1/G', 'errorFactor', (s) => (s.opic === null ? '–' : s.opic.errorFactor.toPrecision(3))],
];

export async function crawlView(root: HTMLElement): Promise<() => void> {
  const fields = crawlFields();
  const all = Object.values(fields).flat();
  const message = h('div');
  const start = h('button', { type: 'submit', name: 'start' }, 'Start crawl');
  const resume = h('button', { type: 'button', name: 'resume', class: 'secondary', title: 'continue the crawl in the store; options given here change its settings' }, 'Resume');
  const stop = h('button', { type: 'button', name: 'stop', class: 'danger', disabled: true }, 'Stop');
  const form = h(
    'form',
    { class: 'panel crawl-form', novalidate: true },
    h('h2', undefined, 'Crawl'),
    group('Seeds', fields.seeds!),
    h('div', { class: 'actions' }, start, resume, stop),
    message,
    // A first crawl needs a URL and Start; the options wait in a panel closed by default (opened when one holds a value).
    h(
      'details',
      { class: 'group options', 'data-group': 'Options' },
      h('summary', undefined, 'Options: scope, limits, politeness, order, addresses'),
      group('Scope', fields.scope!),
      group('Limits', fields.limits!, true),
      group('Politeness', fields.politeness!, true),
      foldedGroup('Order and importance', fields.strategy!, true),
      foldedGroup('Addresses and countries', fields.addresses!),
    ),
  );

  const counters = new Map<string, HTMLElement>();
  const counterBox = h('div', { class: 'counters' });
  for (const [name, key] of COUNTERS) {
    const value = h('div', { class: 'value', 'data-counter': key }, '–');
    counters.set(key, value);
    counterBox.appendChild(h('div', { class: 'counter' }, value, h('div', { class: 'name' }, name)));
  }
  const state = h('div', { class: 'progress-line', 'data-crawl-state': '' }, 'No crawl running.');
  const rateBox = h('div', { class: 'rate-chart' });
  const topBox = h('div', { class: 'top-pages' });
  const liveBox = h('div', { class: 'top-pages', 'data-live-rank': '' });
  const reportBox = h('div');
  const live = h(
    'div',
    { class: 'stack' },
    h('div', { class: 'panel' }, h('h2', undefined, 'Live'), state, counterBox),
    h('div', { class: 'panel' }, h('h2', undefined, 'Pages over time'), rateBox),
    h('div', { class: 'panel' }, h('h2', undefined, 'Most important pages (live PageRank)'), liveBox),
    h('div', { class: 'panel' }, h('h2', undefined, 'Most important pages (OPIC)'), topBox),
    reportBox,
  );
  root.append(h('h1', undefined, 'Crawl'), h('p', { class: 'muted' }, routeLink('/changes', {}, 'What changed'), ' between crawl sessions: pages new, gone and changed, links added and removed.'), h('div', { class: 'grid two' }, form, live));

  let chart: LineChart | null = null;
  let chartSeries = '';
  /** The chart of one series: pages fetched (a crawl watched) or page requests (a finished crawl's visits). */
  const chartFor = (series: 'fetched' | 'requests'): LineChart => {
    if (chart === null || chartSeries !== series) {
      chart?.destroy();
      replace(rateBox);
      chartSeries = series;
      chart = lineChart(rateBox, { height: 180, series: [{ label: series === 'fetched' ? 'fetched' : 'pages requested', color: '#2b6cb0' }], xLabel: 'seconds', yLabel: 'pages' });
    }
    return chart;
  };
  const times: number[] = [];
  const fetched: number[] = [];
  let lastKey = '';
  let lastTop = '';
  let lastLive = '';

  const render = (s: CrawlStatus): void => {
    for (const [, key, value] of COUNTERS) {
      const text = value(s);
      const box = counters.get(key)!;
      if (box.textContent !== text) box.textContent = text;
    }
    const who = s.owner === 'other' ? ' (by another process on this store)' : '';
    state.textContent = s.running
      ? `Crawling${who}: ${((s.elapsedMs ?? 0) / 1000).toFixed(0)} s, ${formatCount(s.fetches)} fetches.`
      : s.report !== null
        ? `Finished: ${s.report.stoppedBy} after ${s.report.seconds.toFixed(1)} s.`
        : 'No crawl running.';
    state.dataset.running = String(s.running);
    start.disabled = s.running;
    resume.disabled = s.running;
    stop.disabled = !(s.running && s.owner === 'server');
    // Only what changed is redrawn: a page left open on a long crawl should cost the crawl nothing.
    const topKey = JSON.stringify(s.top);
    if (topKey !== lastTop) {
      lastTop = topKey;
      replace(
      topBox,
      s.top.length === 0
        ? h('p', { class: 'muted' }, 'No pages yet.')
        : table(['#', 'importance', 'page'], s.top.map((t, i) => [String(i + 1), formatScore(t.importance), pageLink(t.url)]), [0, 1]),
      );
    }
    const live = s.live;
    const liveKey = JSON.stringify(live === null ? null : [live.pages, live.final, live.top]);
    if (liveKey !== lastLive) {
      lastLive = liveKey;
      replace(
        liveBox,
        live === null
          ? h('p', { class: 'muted' }, 'None yet: it is computed while crawling, unless Live PageRank is off.')
          : h(
              'div',
              undefined,
              h(
                'p',
                { class: 'muted', 'data-live-pages': String(live.pages) },
                live.final
                  ? `PageRank of the ${formatCount(live.pages)} pages known at the end of the last crawl (solved to 1e-10).`
                  : `PageRank of the ${formatCount(live.pages)} pages known so far (the links of the pages not fetched yet guessed from the links seen).`,
              ),
              table(['#', 'PageRank', 'page'], live.top.map((t, i) => [String(i + 1), formatScore(t.importance), pageLink(t.url)]), [0, 1]),
            ),
      );
    }
    if (s.error !== null) replace(message, notice('error', s.error.message));
    if (!s.running && s.history != null && lastKey !== `history ${s.history.startedAt} ${s.history.requests.at(-1)}` && (lastKey === '' || lastKey.startsWith('history'))) {
      // A finished crawl (run by another process, or before this page was opened): its page requests
      // over time, from the store's visits.
      lastKey = `history ${s.history.startedAt} ${s.history.requests.at(-1)}`;
      chartFor('requests').set([s.history.seconds, s.history.requests]);
    }
    if (s.startedAt !== null && s.counters !== null && s.elapsedMs !== null && (s.running || lastKey === String(s.startedAt))) {
      const key = String(s.startedAt);
      if (key !== lastKey) {
        lastKey = key;
        times.length = 0;
        fetched.length = 0;
      }
      const t = s.elapsedMs / 1000;
      if (times.length === 0 || t > times[times.length - 1]!) {
        times.push(t);
        fetched.push(s.counters.fetched);
        chartFor('fetched').set([times, fetched]);
      }
    }
    if (!s.running && s.report !== null && reportBox.dataset.shown !== String(s.report.seconds)) {
      reportBox.dataset.shown = String(s.report.seconds);
      const r = s.report;
      replace(
        reportBox,
        h(
          'div',
          { class: 'panel', 'data-report': '' },
          h('h2', undefined, 'Last crawl'),
          table(
            ['', ''],
            (
              [
                ['stopped by', 'stoppedBy', r.stoppedBy],
                ['seconds', 'seconds', r.seconds.toFixed(2)],
                ['known', 'known', formatCount(r.known)],
                ['fetched', 'fetched', formatCount(r.fetched)],
                ['failed', 'failed', formatCount(r.failed)],
                ['excluded', 'excluded', formatCount(r.excluded)],
                ['redirects', 'redirects', formatCount(r.redirects)],
                ['other', 'other', formatCount(r.other)],
                ['frontier', 'frontier', formatCount(r.frontier)],
                ['OPIC clock G', 'opicTime', r.opicTime.toPrecision(6)],
                ['runs stored', 'runs', r.runs.join(', ')],
              ] as Array<[string, string, string]>
            ).map(([name, key, value]) => [name, h('span', { 'data-report-field': key }, value)]),
            [1],
          ),
        ),
      );
    }
  };

  const send = async (path: string, body: Record<string, unknown>): Promise<void> => {
    replace(message);
    try {
      const answer = await api.post<{ crawl: CrawlStatus }>(path, body);
      render(answer.crawl);
      window.dispatchEvent(new Event('wga:data-changed'));
    } catch (error) {
      replace(message, notice('error', error instanceof Error ? error.message : String(error)));
    }
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void send('/api/crawl', readFields(all));
  });
  resume.addEventListener('click', () => void send('/api/crawl', { ...readFields(all), resume: true }));
  stop.addEventListener('click', () => void send('/api/crawl/stop', {}));

  try {
    const current = await api.get<{ crawl: CrawlStatus }>('/api/crawl');
    render(current.crawl);
    const settings = current.crawl.settings;
    if (settings !== null) prefill(all, settings);
    for (const details of form.querySelectorAll('details')) {
      if (Array.from(details.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('input[type=text], input[type=number], textarea')).some((input) => input.value !== '')) details.open = true;
    }
  } catch (error) {
    replace(message, notice('error', error instanceof Error ? error.message : String(error)));
  }
  let wasRunning = false;
  const close = listen('/api/crawl/events', {
    status: (data) => {
      const s = data as CrawlStatus;
      render(s);
      if (wasRunning && !s.running) window.dispatchEvent(new Event('wga:data-changed'));
      wasRunning = s.running;
    },
  });
  return () => {
    close();
    chart?.destroy();
  };
}

/** Fills the form with a stored crawl's settings (the names of crawl --json's `settings`). */
function prefill(fields: Field[], settings: Record<string, unknown>): void {
  const byName = new Map(fields.map((f) => [f.name, f]));
  const map: Record<string, [string, (v: unknown) => unknown]> = {
    seeds: ['seeds', (v) => v],
    filters: ['filter', (v) => v],
    fences: ['fence', (v) => v],
    extensions: ['extensions', (v) => (Array.isArray(v) ? v.join(',') : undefined)],
    hosts: ['hosts', (v) => v],
    allowIp: ['allowIp', (v) => v],
    denyIp: ['denyIp', (v) => v],
    ipCountryFile: ['ipCountry', (v) => v ?? undefined],
    countries: ['country', (v) => v],
    denyCountries: ['denyCountry', (v) => v],
    delayMs: ['delay', (v) => v],
    perHost: ['perHost', (v) => v],
    concurrency: ['concurrency', (v) => v],
    maxPages: ['maxPages', (v) => v ?? undefined],
    maxDepth: ['maxDepth', (v) => v ?? undefined],
    maxTimeMs: ['maxTime', (v) => (typeof v === 'number' ? v / 1000 : undefined)],
    strategy: ['strategy', (v) => v],
    bufferSize: ['bufferSize', (v) => v],
    refresh: ['refresh', (v) => v],
    windowPasses: ['window', (v) => v],
    focus: ['focus', (v) => v],
    focusShare: ['focusShare', (v) => v],
    discoveryShare: ['discoveryShare', (v) => v],
    damping: ['damping', (v) => v],
    retries: ['retries', (v) => v],
    retryDelayMs: ['retryDelay', (v) => v],
    maxBodyBytes: ['maxBody', (v) => v],
    maxRedirects: ['maxRedirects', (v) => v],
    userAgent: ['userAgent', (v) => v],
    pageTimeoutMs: ['timeout', (v) => (typeof v === 'number' ? v / 1000 : undefined)],
    live: ['live', (v) => v],
    liveIntervalMs: ['liveInterval', (v) => v],
    liveShare: ['liveShare', (v) => v],
    sitemaps: ['sitemaps', (v) => v],
    compression: ['compression', (v) => v],
    respectNofollow: ['respectNofollow', (v) => v],
    render: ['render', (v) => v],
    renderConcurrency: ['renderConcurrency', (v) => v ?? undefined],
    renderTimeoutMs: ['renderTimeout', (v) => (typeof v === 'number' ? v / 1000 : undefined)],
  };
  for (const [key, [name, convert]] of Object.entries(map)) {
    if (key in settings) byName.get(name)?.write(convert(settings[key]));
  }
}
