/** A vertical bar chart as SVG (levels from roots): one bar per category, its count above it. */
import { svg } from '../dom.js';

export function barChart(container: HTMLElement, labels: readonly string[], values: readonly number[], xTitle: string): void {
  const width = Math.max(320, container.clientWidth || 560);
  const height = 220;
  const left = 8;
  const bottom = 36;
  const top = 18;
  const max = Math.max(1, ...values);
  const step = (width - left * 2) / Math.max(1, values.length);
  const chart = svg('svg', { class: 'bar-chart', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': xTitle });
  values.forEach((v, i) => {
    const h = ((height - bottom - top) * v) / max;
    const x = left + i * step;
    chart.append(
      svg('rect', { class: 'bar', x: x + step * 0.12, y: height - bottom - h, width: step * 0.76, height: Math.max(v > 0 ? 1 : 0, h) }, svg('title', undefined, `${labels[i]}: ${v}`)),
      svg('text', { x: x + step / 2, y: height - bottom + 14, 'text-anchor': 'middle' }, labels[i] ?? ''),
    );
    if (step > 22) chart.append(svg('text', { x: x + step / 2, y: height - bottom - h - 4, 'text-anchor': 'middle' }, v.toLocaleString('en-US')));
  });
  chart.append(svg('text', { x: width / 2, y: height - 6, 'text-anchor': 'middle' }, xTitle));
  container.replaceChildren(chart);
}
