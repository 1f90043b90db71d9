/**
 * Horizontal bars with whiskers (Monte Carlo's scores ± their error), drawn as SVG. Labels are
 * URLs from the crawl: they go in as SVG text nodes (and <title> tooltips), never as markup.
 */
import { svg } from '../dom.js';

export interface ErrorBar {
  label: string;
  value: number;
  error: number;
}

export function errorBars(container: HTMLElement, bars: readonly ErrorBar[]): void {
  const row = 20;
  const labelWidth = 300;
  const width = Math.max(480, container.clientWidth || 640);
  const plotWidth = width - labelWidth - 20;
  const height = bars.length * row + 24;
  const max = Math.max(...bars.map((b) => b.value + b.error), Number.MIN_VALUE);
  const x = (v: number): number => labelWidth + (Math.max(0, v) / max) * plotWidth;
  const chart = svg('svg', { class: 'error-bars', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': 'scores with error bars' });
  bars.forEach((b, i) => {
    const y = i * row + 4;
    const short = b.label.length > 46 ? `…${b.label.slice(-45)}` : b.label;
    chart.append(
      svg('text', { x: labelWidth - 6, y: y + 13, 'text-anchor': 'end', 'font-size': 11, fill: '#475467' }, short, svg('title', undefined, b.label)),
      svg('rect', { x: labelWidth, y: y + 3, width: Math.max(1, x(b.value) - labelWidth), height: row - 8, fill: '#90b4e0' }, svg('title', undefined, `${b.label}: ${b.value} ± ${b.error}`)),
      svg('line', { x1: x(b.value - b.error), x2: x(b.value + b.error), y1: y + row / 2 - 1, y2: y + row / 2 - 1, stroke: '#1d2330', 'stroke-width': 1.2 }),
      svg('line', { x1: x(b.value - b.error), x2: x(b.value - b.error), y1: y + 5, y2: y + row - 7, stroke: '#1d2330' }),
      svg('line', { x1: x(b.value + b.error), x2: x(b.value + b.error), y1: y + 5, y2: y + row - 7, stroke: '#1d2330' }),
    );
  });
  chart.append(svg('text', { x: labelWidth, y: height - 4, 'font-size': 11, fill: '#667085' }, '0'), svg('text', { x: width - 20, y: height - 4, 'text-anchor': 'end', 'font-size': 11, fill: '#667085' }, max.toExponential(2)));
  container.replaceChildren(chart);
}
