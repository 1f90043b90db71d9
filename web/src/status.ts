/** How a page's fetch status is shown: a badge and a colour shared by lists and drawings. */
import { h } from './dom.js';

export function statusClass(status: number | null): string {
  if (status === null) return 'none';
  if (status < 0) return 'err';
  return String(Math.floor(status / 100));
}

export const STATUS_COLOURS: Record<string, string> = {
  '2': '#38a169',
  '3': '#d69e2e',
  '4': '#e53e3e',
  '5': '#9b2c2c',
  err: '#9b2c2c',
  none: '#a0aec0',
};

export function statusColour(status: number | null): string {
  return STATUS_COLOURS[statusClass(status)] ?? '#a0aec0';
}

export const STATUS_LEGEND: Array<[string, string]> = [
  ['2xx fetched', STATUS_COLOURS['2']!],
  ['3xx redirect', STATUS_COLOURS['3']!],
  ['4xx/5xx failed', STATUS_COLOURS['4']!],
  ['not fetched', STATUS_COLOURS.none!],
];

export function statusBadge(status: number | null): HTMLElement {
  return h('span', { class: `status-badge status-${statusClass(status)}`, title: status === null ? 'not fetched' : `HTTP ${status}` }, status === null ? '–' : String(status));
}

export function legend(entries: ReadonlyArray<readonly [string, string]> = STATUS_LEGEND): HTMLElement {
  const box = h('div', { class: 'legend' });
  for (const [name, colour] of entries) {
    const swatch = h('span', { class: 'swatch' });
    swatch.style.background = colour;
    box.appendChild(h('span', undefined, swatch, name));
  }
  return box;
}
