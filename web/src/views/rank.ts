/**
 * Rank: run PageRank (power iteration, Gauss-Seidel, Monte Carlo; personalised; restricted to the
 * levels around roots), OPIC, TrafficRank or HOTness as a server job, watching its residual per
 * iteration on a log scale while it runs; then its top pages (with Monte Carlo's error bars). Below:
 * the stored runs, two of which can be compared (Kendall tau, Spearman, top-k overlap) or deleted.
 */
import { api } from '../api.js';
import { errorBars } from '../charts/error-bars.js';
import { lineChart, type LineChart } from '../charts/line.js';
import { confirmAction } from '../confirm.js';
import { formatCount, formatScore, h, notice, pageLink, replace, table } from '../dom.js';
import { listen } from '../events.js';
import { checkField, type Field, group, linesField, numberField, readFields, selectField } from '../form.js';
import type { CompareResult, Job, ProgressEvent, RankResult, RunInfo, RunList, RunTop } from '../types.js';

const METHODS: Array<[string, string]> = [
  ['pagerank', 'PageRank'],
  ['montecarlo', 'PageRank by Monte Carlo walks'],
  ['opic', 'OPIC (off-line)'],
  ['traffic', 'TrafficRank'],
  ['hotness', 'HOTness'],
  ['harmonic', 'Harmonic centrality'],
  ['closeness', 'Closeness'],
  ['lin', 'Lin’s closeness'],
  ['hits', 'HITS'],
  ['coreness', 'Coreness (k-cores)'],
];

function rankFields() {
  const method = selectField({ name: 'method', label: 'Method', options: METHODS, value: 'pagerank' });
  const common = [
    numberField({ name: 'damping', label: 'Damping', min: 0, max: 1, placeholder: '0.85' }),
    numberField({ name: 'top', label: 'Top pages shown', min: 1, step: 1, value: 20 }),
    selectField({
      name: 'links',
      label: 'Links',
      optional: true,
      options: [
        ['-nofollow', 'without nofollow links'],
        ['-nofollow,-ugc,-sponsored', 'without nofollow, ugc and sponsored links'],
        ['anchor', 'anchors only'],
        ['anchor,redirect', 'anchors and redirects'],
        ['all', 'every kind (canonical, alternate, sitemap too)'],
      ],
      help: 'default: the web graph’s links (anchors, areas, frames, refreshes, redirects)',
    }),
  ];
  const pagerank = [
    selectField({ name: 'solver', label: 'Solver', options: [['auto', 'auto'], ['power', 'power iteration'], ['gauss-seidel', 'Gauss-Seidel']], value: 'auto' }),
    numberField({ name: 'tolerance', label: 'Tolerance', min: 0, placeholder: '1e-10' }),
    numberField({ name: 'maxIterations', label: 'Max iterations', min: 1, step: 1, placeholder: '1000' }),
  ];
  const montecarlo = [numberField({ name: 'walks', label: 'Walks per page', min: 1, step: 1, placeholder: '1' }), numberField({ name: 'seed', label: 'Random seed', min: 0, step: 1, placeholder: '1' })];
  const personal = [
    linesField({ name: 'teleport', label: 'Personalised: teleport to', help: 'URLs; empty: every page' }),
    linesField({ name: 'root', label: 'Restricted: roots', help: 'rank only pages within max level clicks of these' }),
    numberField({ name: 'maxLevel', label: 'Max level', min: 0, step: 1, placeholder: '3' }),
  ];
  const opic = [
    selectField({ name: 'strategy', label: 'Page selection', optional: true, options: [['greedy', 'greedy'], ['random', 'random'], ['cycle', 'cycle']] }),
    numberField({ name: 'reads', label: 'Reads', min: 1, step: 1, help: 'default: 10 per page' }),
    linesField({ name: 'focus', label: 'Focus regex' }),
    numberField({ name: 'focusShare', label: 'Focus share', min: 0, max: 1 }),
    numberField({ name: 'discoveryShare', label: 'Discovery share', min: 0, max: 1 }),
  ];
  const traffic = [
    numberField({ name: 'alpha', label: 'Alpha (real-link share)', min: 0, max: 1, placeholder: '0.85' }),
    selectField({ name: 'sweep', label: 'Sweep', optional: true, options: [['anderson', 'Anderson'], ['gauss-seidel', 'Gauss-Seidel'], ['jacobi', 'Jacobi']] }),
  ];
  const distance = [
    checkField({ name: 'exact', label: 'Exact', help: 'one breadth-first search per page (small graphs); else HyperBall' }),
    numberField({ name: 'log2m', label: 'HyperBall log2m', min: 4, max: 16, step: 1, placeholder: '8', help: 'error about 1.04 / 2^(log2m/2)' }),
  ];
  const hits = [checkField({ name: 'hubs', label: 'Hubs', help: 'rank by hub scores instead of authorities' })];
  const core = [selectField({ name: 'mode', label: 'Degree', optional: true, options: [['all', 'in + out (undirected)'], ['in', 'in-links'], ['out', 'out-links']] })];
  const save = checkField({ name: 'save', label: 'Keep as a stored run', checked: true });
  return { method, common, pagerank, montecarlo, personal, opic, traffic, distance, hits, core, save };
}

export async function rankView(root: HTMLElement): Promise<() => void> {
  const f = rankFields();
  const groups = {
    pagerank: group('Power iteration / Gauss-Seidel', f.pagerank, true),
    montecarlo: group('Monte Carlo', f.montecarlo, true),
    personal: group('Personalised and restricted', f.personal),
    opic: group('OPIC', f.opic, true),
    traffic: group('TrafficRank / HOTness', f.traffic, true),
    distance: group('Harmonic centrality / closeness', f.distance, true),
    hits: group('HITS', f.hits, true),
    core: group('Coreness', f.core, true),
  };
  const run = h('button', { type: 'submit', name: 'run' }, 'Run');
  const cancel = h('button', { type: 'button', class: 'secondary', name: 'cancel', disabled: true }, 'Cancel');
  const message = h('div');
  const form = h(
    'form',
    { class: 'panel', novalidate: true },
    h('h2', undefined, 'Ranking'),
    f.method.element,
    group('Common', f.common, true),
    ...Object.values(groups),
    f.save.element,
    h('div', { class: 'actions' }, run, cancel),
    message,
  );
  const methodSelect = f.method.element.querySelector('select')!;
  const showGroups = (): void => {
    const m = methodSelect.value;
    groups.pagerank.classList.toggle('hidden', m !== 'pagerank');
    groups.montecarlo.classList.toggle('hidden', m !== 'montecarlo');
    groups.personal.classList.toggle('hidden', m !== 'pagerank' && m !== 'montecarlo');
    groups.opic.classList.toggle('hidden', m !== 'opic');
    groups.traffic.classList.toggle('hidden', m !== 'traffic' && m !== 'hotness');
    groups.distance.classList.toggle('hidden', m !== 'harmonic' && m !== 'closeness' && m !== 'lin');
    groups.hits.classList.toggle('hidden', m !== 'hits');
    groups.core.classList.toggle('hidden', m !== 'coreness');
  };
  methodSelect.addEventListener('change', showGroups);
  showGroups();

  const progressLine = h('div', { class: 'progress-line', 'data-rank-progress': '' });
  // What the curve shows depends on the method (its progress events' residual).
  const caption = h('small', { class: 'muted' });
  const CAPTIONS: Record<string, string> = {
    harmonic: 'HyperBall: counters that changed per iteration, log scale; it stops when none does (exact: no curve).',
    closeness: 'HyperBall: counters that changed per iteration, log scale; it stops when none does (exact: no curve).',
    lin: 'HyperBall: counters that changed per iteration, log scale; it stops when none does (exact: no curve).',
    hits: 'HITS: L1 change of the authorities and hubs per iteration, log scale.',
    coreness: 'Coreness: one pass, no curve.',
  };
  const setCaption = (): void => {
    caption.textContent = CAPTIONS[methodSelect.value] ?? 'Residual per iteration, log scale (power iteration: ‖πG − π‖₁ of each step).';
  };
  methodSelect.addEventListener('change', setCaption);
  setCaption();
  const bar = h('progress', { max: 1, value: 0, class: 'hidden' });
  const curveBox = h('div', { class: 'convergence' });
  const resultBox = h('div', { 'data-rank-result': '' });
  const runsBox = h('div');
  const compareBox = h('div');
  root.append(
    h('h1', undefined, 'Rank'),
    h(
      'div',
      { class: 'grid two' },
      form,
      h(
        'div',
        { class: 'stack' },
        h('div', { class: 'panel' }, h('h2', undefined, 'Convergence'), progressLine, bar, curveBox, caption),
        resultBox,
      ),
    ),
    h('div', { class: 'panel' }, h('h2', undefined, 'Stored runs'), runsBox, compareBox),
  );

  let chart: LineChart | null = null;
  let closeJob: (() => void) | null = null;
  let jobId: string | null = null;
  const iterations: number[] = [];
  const residuals: number[] = [];

  const plot = (): void => {
    chart ??= lineChart(curveBox, { height: 220, series: [{ label: 'residual', color: '#c05621' }], xLabel: 'iteration', yLabel: 'residual', yLog: true, yFormat: (v) => (Number.isInteger(Math.log10(v)) ? `1e${Math.log10(v)}` : v.toExponential(1)) });
    chart.set([iterations.slice(), residuals.slice()]);
    curveBox.dataset.points = String(iterations.length);
  };
  const addResidual = (iteration: number, residual: number): void => {
    if (!(residual > 0) || !Number.isFinite(residual)) return;
    const last = iterations.length - 1;
    if (last >= 0 && iteration < iterations[last]!) return;
    // The same iteration again replaces its point (Gauss-Seidel's last sweep, then its measured residual).
    if (last >= 0 && iteration === iterations[last]) {
      residuals[last] = residual;
      return;
    }
    iterations.push(iteration);
    residuals.push(residual);
  };
  const onProgress = (p: ProgressEvent): void => {
    progressLine.textContent = p.message;
    if (p.done !== undefined && p.total !== undefined && p.total > 0) {
      bar.classList.remove('hidden');
      bar.value = p.done / p.total;
    }
    if (p.data?.iteration !== undefined && p.data.residual !== undefined) {
      addResidual(p.data.iteration, p.data.residual);
      plot();
    }
  };
  const onEnd = (job: Job<RankResult>): void => {
    closeJob?.();
    closeJob = null;
    jobId = null;
    run.disabled = false;
    cancel.disabled = true;
    bar.classList.add('hidden');
    for (const [i, r] of job.residuals) addResidual(i, r);
    if (iterations.length > 0) plot();
    else if (job.result?.montecarlo) replace(curveBox, h('p', { class: 'muted' }, 'Monte Carlo has no iterations to plot: its precision is the standard deviation of each score, shown as error bars with the result.'));
    if (job.state === 'done' && job.result !== null) {
      progressLine.textContent = `Done in ${(((job.finishedAt ?? job.startedAt) - job.startedAt) / 1000).toFixed(2)} s.`;
      showResult(resultBox, job.result);
      void loadRuns();
      window.dispatchEvent(new Event('wga:data-changed'));
    } else if (job.error !== null) {
      progressLine.textContent = '';
      replace(message, notice('error', job.error.message));
    } else progressLine.textContent = `The job was ${job.state}.`;
  };
  const watch = (job: Job<RankResult>): void => {
    jobId = job.id;
    run.disabled = true;
    cancel.disabled = false;
    closeJob = listen(`/api/jobs/${encodeURIComponent(job.id)}/events`, {
      progress: (data) => onProgress(data as ProgressEvent),
      end: (data) => onEnd(data as Job<RankResult>),
      job: (data) => {
        const j = data as Job<RankResult>;
        if (j.state !== 'running') onEnd(j);
      },
    });
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    replace(message);
    replace(resultBox);
    iterations.length = 0;
    residuals.length = 0;
    chart?.destroy();
    chart = null;
    replace(curveBox);
    progressLine.textContent = 'Starting…';
    const body = readFields([f.method, ...f.common, f.save]);
    const m = String(body.method);
    const extra =
      m === 'pagerank'
        ? [...f.pagerank, ...f.personal]
        : m === 'montecarlo'
          ? [...f.montecarlo, ...f.personal]
          : m === 'opic'
            ? f.opic
            : m === 'hits'
              ? f.hits
              : m === 'coreness'
                ? f.core
                : m === 'traffic' || m === 'hotness'
                  ? f.traffic
                  : m === 'harmonic' || m === 'closeness' || m === 'lin'
                    ? f.distance
                    : [];
    Object.assign(body, readFields(extra as Field[]));
    if (Array.isArray(body.focus)) body.focus = (body.focus as string[])[0];
    api
      .post<{ job: Job<RankResult> }>('/api/rank', body)
      .then(({ job }) => (job.state === 'running' ? watch(job) : onEnd(job)))
      .catch((error: unknown) => {
        progressLine.textContent = '';
        replace(message, notice('error', error instanceof Error ? error.message : String(error)));
      });
  });
  cancel.addEventListener('click', () => {
    if (jobId !== null) void api.delete(`/api/jobs/${encodeURIComponent(jobId)}`).catch(() => undefined);
  });

  const loadRuns = async (): Promise<void> => {
    try {
      const list = await api.get<RunList>('/api/runs');
      showRuns(runsBox, compareBox, list.runs, loadRuns);
    } catch (error) {
      replace(runsBox, notice('error', error instanceof Error ? error.message : String(error)));
    }
  };
  await loadRuns();
  // A job of this server still running (e.g. the page was reloaded): watch it again.
  try {
    const { jobs } = await api.get<{ jobs: Job<RankResult>[] }>('/api/jobs');
    const running = jobs.find((j) => j.kind === 'rank' && j.state === 'running');
    if (running !== undefined) {
      for (const [i, r] of running.residuals) addResidual(i, r);
      if (iterations.length > 0) plot();
      watch(running);
    }
  } catch {
    // No job list: nothing to resume watching.
  }
  return () => {
    closeJob?.();
    chart?.destroy();
  };
}

function showResult(box: HTMLElement, r: RankResult): void {
  const mc = r.montecarlo ?? null;
  const facts: Array<[string, string]> = [
    ['method', `${r.method} (${r.solver})`],
    ['pages, links', `${formatCount(r.nodes)}, ${formatCount(r.edges)}`],
    [mc !== null ? 'walks per page' : 'iterations', String(r.iterations)],
    [mc !== null ? 'largest relative error (top)' : r.opic ? 'error factor 1/G' : 'residual', formatScore(r.residual)],
  ];
  if (mc === null && r.converged !== undefined && r.converged !== null) facts.push(['converged', r.converged ? 'yes' : 'no']);
  if (r.restricted) facts.push(['restricted to', `${formatCount(r.restricted.nodes)} pages within ${r.restricted.maxLevel ?? '∞'} clicks`]);
  if (r.run !== null) facts.push(['stored as run', String(r.run)]);
  const headers = mc !== null ? ['#', 'score', '± std. dev.', 'rel. error', 'page'] : ['#', 'score', 'page'];
  const rows = r.top.map((t) =>
    mc !== null
      ? [String(t.rank), formatScore(t.score), formatScore(t.stdDev ?? 0), `${((t.relativeError ?? 0) * 100).toFixed(1)} %`, pageLink(t.label)]
      : [String(t.rank), formatScore(t.score), pageLink(t.label)],
  );
  const barsBox = h('div');
  replace(
    box,
    h(
      'div',
      { class: 'panel' },
      h('h2', undefined, 'Result'),
      h('dl', { class: 'facts' }, ...facts.flatMap(([k, v]) => [h('dt', undefined, k), h('dd', { 'data-fact': k }, v)])),
      h('h3', undefined, 'Top pages'),
      table(headers, rows, mc !== null ? [0, 1, 2, 3] : [0, 1]),
      mc !== null ? h('h3', undefined, 'Scores with ±2 standard deviations') : null,
      barsBox,
    ),
  );
  if (mc !== null) errorBars(barsBox, r.top.slice(0, 20).map((t) => ({ label: t.label, value: t.score, error: 2 * (t.stdDev ?? 0) })));
}

function runLabel(r: RunInfo): string {
  return `#${r.id} ${r.method}`;
}

function showRuns(box: HTMLElement, compareBox: HTMLElement, runs: RunInfo[], reload: () => Promise<void>): void {
  if (runs.length === 0) {
    replace(box, h('p', { class: 'muted' }, 'No stored runs yet: run a ranking above, or crawl (the crawl stores its OPIC estimates).'));
    replace(compareBox);
    return;
  }
  const topBox = h('div');
  const rows = runs.map((r) => {
    const view = h('button', { type: 'button', class: 'secondary', 'data-run-view': r.id }, 'Top');
    const exportLink = h('a', { class: 'button-link', download: `run-${r.id}-${r.method}.tsv`, 'data-run-export': r.id }, 'Export TSV');
    exportLink.href = `/api/runs/${r.id}/scores`;
    const del = h('button', { type: 'button', class: 'danger', 'data-run-delete': r.id }, 'Delete');
    view.addEventListener('click', () => {
      void api
        .get<RunTop>(`/api/runs/${r.id}`, { top: 20 })
        .then((t) =>
          replace(topBox, h('h3', undefined, `Top pages of run ${runLabel(r)}`), table(['#', 'score', 'page'], t.top.map((p) => [String(p.rank), formatScore(p.score), pageLink(p.url)]), [0, 1])),
        )
        .catch((error: unknown) => replace(topBox, notice('error', String(error instanceof Error ? error.message : error))));
    });
    del.addEventListener('click', () => {
      void confirmAction(`Delete run ${r.id}?`, `The ${r.method} scores of ${formatCount(r.pages)} pages stored as run ${r.id} will be deleted. This cannot be undone.`, 'Delete run').then(async (yes) => {
        if (!yes) return;
        try {
          await api.delete(`/api/runs/${r.id}`);
          window.dispatchEvent(new Event('wga:data-changed'));
          await reload();
        } catch (error) {
          replace(topBox, notice('error', error instanceof Error ? error.message : String(error)));
        }
      });
    });
    return [
      String(r.id),
      r.method,
      new Date(r.startedAt).toLocaleString(),
      formatCount(r.pages),
      r.iterations === null ? '–' : String(r.iterations),
      r.residual === null ? '–' : formatScore(r.residual),
      h('span', { class: 'row' }, view, exportLink, del),
    ];
  });
  replace(box, table(['run', 'method', 'started', 'pages', 'iterations', 'residual', ''], rows, [0, 3, 4, 5]), topBox);

  const choose = (name: string, index: number): HTMLSelectElement => {
    const select = h('select', { name });
    runs.forEach((r, i) => select.appendChild(h('option', { value: r.id, selected: i === index }, runLabel(r))));
    return select;
  };
  const a = choose('a', Math.min(1, runs.length - 1));
  const b = choose('b', 0);
  const go = h('button', { type: 'button', name: 'compare' }, 'Compare');
  const out = h('div', { 'data-compare-result': '' });
  go.addEventListener('click', () => {
    void api
      .get<CompareResult>('/api/compare', { a: a.value, b: b.value })
      .then((c) => {
        const rows: Array<[string, string]> = [
          ['pages compared', formatCount(c.pages)],
          ['Kendall tau', c.kendallTau.toFixed(4)],
          ['Spearman', c.spearman.toFixed(4)],
          ...Object.entries(c.topOverlap).map(([k, v]): [string, string] => [`top-${k} overlap`, `${(v * 100).toFixed(1)} %`]),
        ];
        if (c.meanRelativeError !== undefined) rows.push(['mean relative error (all / top 10 %)', `${c.meanRelativeError.all.toFixed(2)} % / ${c.meanRelativeError.top10Percent.toFixed(2)} %`]);
        replace(out, table(['', c.reference + ' vs ' + c.other], rows, [1]));
      })
      .catch((error: unknown) => replace(out, notice('error', error instanceof Error ? error.message : String(error))));
  });
  replace(compareBox, h('h3', undefined, 'Compare two runs'), h('div', { class: 'row' }, 'reference', a, 'other', b, go), out);
}
