/**
 * The distance distribution of `wga distances` (HyperBall's estimate, or exact): bars of the share
 * of connected pairs at each distance, and the summary line under them. Shown for a store's graph
 * and for a compact graph file's saved distribution alike.
 */
import { formatCount, h, replace } from '../dom.js';
import type { Distances } from '../types.js';
import { barChart } from './bars.js';

export function showDistances(box: HTMLElement, d: Distances): void {
  replace(box);
  if (d.distribution.length === 0) {
    box.appendChild(h('p', { class: 'muted' }, 'No page reaches another.'));
    return;
  }
  const chart = h('div');
  box.appendChild(chart);
  barChart(chart, d.distribution.map((_, t) => String(t + 1)), d.distribution.map((x) => Math.round(1000 * x) / 10), 'clicks from page to page (% of connected pairs)');
  const jack = d.jackknife;
  const average = jack === null ? d.averageDistance.toFixed(2) : `${jack.averageDistance.estimate.toFixed(2)} ± ${jack.averageDistance.standardError.toFixed(2)}`;
  const diameter = jack === null ? d.effectiveDiameter.toFixed(2) : `${jack.effectiveDiameter.estimate.toFixed(2)} ± ${jack.effectiveDiameter.standardError.toFixed(2)}`;
  box.appendChild(
    h(
      'p',
      { class: 'muted' },
      `Average distance ${average} clicks; 90% of the ${formatCount(Math.round(d.connectedPairs))} connected pairs are within ${diameter} (effective diameter). ` +
        (d.method === 'exact' ? 'Exact.' : `HyperBall, ${d.runs} run${d.runs === 1 ? '' : 's'} of 2^${d.log2m} registers per page${jack === null ? '' : ' (± one standard error, jackknife)'}.`),
    ),
  );
}
