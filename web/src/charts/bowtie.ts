/**
 * The bow-tie of the web graph (Broder et al., "Graph structure in the Web", 2000): the giant
 * strongly connected core, the pages that reach it (IN), the pages it reaches (OUT), tendrils,
 * tubes from IN to OUT and disconnected pages, drawn as the familiar picture with counts.
 */
import { svg } from '../dom.js';
import type { BowTie } from '../types.js';

export function drawBowTie(container: HTMLElement, b: BowTie): void {
  const total = Object.values(b).reduce((sum, v) => sum + v, 0) || 1;
  const pct = (v: number): string => `${((100 * v) / total).toFixed(1)} %`;
  const width = 640;
  const height = 300;
  const label = (x: number, y: number, name: string, value: number, key: string): SVGTextElement =>
    svg('text', { x, y, 'text-anchor': 'middle', 'data-part': key }, svg('tspan', { x, dy: 0 }, name), svg('tspan', { x, dy: 16, class: 'count' }, value.toLocaleString('en-US')), svg('tspan', { x, dy: 15, fill: '#667085' }, pct(value)));
  const chart = svg(
    'svg',
    { class: 'bowtie', viewBox: `0 0 ${width} ${height}`, width: '100%', role: 'img', 'aria-label': 'bow-tie structure' },
    // tubes: a band under the knot from IN to OUT
    svg('path', { d: 'M 150 200 C 200 285, 440 285, 490 200', fill: 'none', stroke: '#b7c4d6', 'stroke-width': 14, 'stroke-linecap': 'round' }),
    svg('path', { d: 'M 40 60 L 230 115 L 230 185 L 40 240 Z', fill: '#bee3f8', stroke: '#63b3ed' }),
    svg('path', { d: 'M 600 60 L 410 115 L 410 185 L 600 240 Z', fill: '#c6f6d5', stroke: '#68d391' }),
    svg('ellipse', { cx: 320, cy: 150, rx: 105, ry: 62, fill: '#fed7aa', stroke: '#ed8936' }),
    // tendrils: lobes hanging off IN (reached from IN, not reaching OUT) and leading into OUT
    svg('ellipse', { cx: 150, cy: 36, rx: 92, ry: 20, fill: '#e9d8fd', stroke: '#b794f4' }),
    svg('ellipse', { cx: 490, cy: 36, rx: 92, ry: 20, fill: '#e9d8fd', stroke: '#b794f4' }),
    svg('rect', { x: 520, y: 258, width: 116, height: 34, rx: 6, fill: '#edf2f7', stroke: '#a0aec0' }),
  );
  chart.append(
    label(120, 140, 'IN', b.in, 'in'),
    label(320, 140, 'core (giant SCC)', b.core, 'core'),
    label(520, 140, 'OUT', b.out, 'out'),
    svg('text', { x: 320, y: 252, 'text-anchor': 'middle', 'data-part': 'tubes' }, `tubes ${b.tubes.toLocaleString('en-US')} (${pct(b.tubes)})`),
    svg('text', { x: 150, y: 40, 'text-anchor': 'middle', 'data-part': 'inTendrils' }, `tendrils from IN: ${b.inTendrils.toLocaleString('en-US')}`),
    svg('text', { x: 490, y: 40, 'text-anchor': 'middle', 'data-part': 'outTendrils' }, `tendrils into OUT: ${b.outTendrils.toLocaleString('en-US')}`),
    svg('text', { x: 578, y: 280, 'text-anchor': 'middle', 'data-part': 'disconnected' }, `disconnected ${b.disconnected.toLocaleString('en-US')}`),
  );
  container.replaceChildren(chart);
}
