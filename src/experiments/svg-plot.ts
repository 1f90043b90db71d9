/**
 * Line charts as standalone SVG files a person can open in any browser:
 * axes with ticks, one polyline with markers per series, and a legend.
 */

export interface Series {
  name: string;
  points: Array<[number, number]>;
}

export interface ChartOptions {
  title: string;
  xLabel: string;
  yLabel: string;
  /** Logarithmic y axis (every y must be positive). */
  logY?: boolean;
  width?: number;
  height?: number;
}

const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];
const MARKERS = ['circle', 'square', 'diamond', 'triangle'] as const;

export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** "Nice" tick values covering [lo, hi]. */
function ticks(lo: number, hi: number, count = 6): number[] {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => (hi - lo) / s <= count) ?? 10 * power;
  const result: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) result.push(Number(v.toPrecision(12)));
  return result;
}

function format(value: number): string {
  if (value === 0) return '0';
  const magnitude = Math.abs(value);
  if (magnitude >= 1e5 || magnitude < 1e-3) return value.toExponential(0);
  return String(Number(value.toPrecision(4)));
}

function marker(kind: (typeof MARKERS)[number], x: number, y: number, colour: string): string {
  const s = 3.5;
  switch (kind) {
    case 'circle':
      return `<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="${s}" fill="${colour}"/>`;
    case 'square':
      return `<rect x="${(x - s).toFixed(1)}" y="${(y - s).toFixed(1)}" width="${2 * s}" height="${2 * s}" fill="${colour}"/>`;
    case 'diamond':
      return `<polygon points="${x},${y - s - 1} ${x + s + 1},${y} ${x},${y + s + 1} ${x - s - 1},${y}" fill="${colour}"/>`;
    default:
      return `<polygon points="${x},${y - s - 1} ${x + s + 1},${y + s} ${x - s - 1},${y + s}" fill="${colour}"/>`;
  }
}

export function lineChart(series: Series[], options: ChartOptions): string {
  const width = options.width ?? 720;
  const height = options.height ?? 440;
  const margin = { left: 78, right: 190, top: 46, bottom: 58 };
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const all = series.flatMap((s) => s.points).filter(([, y]) => Number.isFinite(y) && (!options.logY || y > 0));
  const xs = all.map(([x]) => x);
  const ys = all.map(([, y]) => (options.logY ? Math.log10(y) : y));
  const xMin = Math.min(...xs);
  const xMax = Math.max(...xs);
  let yMin = options.logY ? Math.floor(Math.min(...ys)) : Math.min(0, ...ys);
  let yMax = options.logY ? Math.ceil(Math.max(...ys)) : Math.max(...ys) * 1.05;
  if (!(yMax > yMin)) {
    yMax = yMin + 1;
    yMin -= options.logY ? 1 : 0;
  }
  const sx = (x: number): number => margin.left + (xMax > xMin ? ((x - xMin) / (xMax - xMin)) * plotW : plotW / 2);
  const sy = (y: number): number => {
    const v = options.logY ? Math.log10(y) : y;
    return margin.top + plotH - ((v - yMin) / (yMax - yMin)) * plotH;
  };
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`);
  parts.push(`<rect width="${width}" height="${height}" fill="white"/>`);
  parts.push(`<text x="${margin.left + plotW / 2}" y="24" text-anchor="middle" font-size="15">${escapeXml(options.title)}</text>`);
  // Axes and grid.
  const xTicks = ticks(xMin, xMax);
  const yTicks = options.logY
    ? Array.from({ length: yMax - yMin + 1 }, (_, i) => 10 ** (yMin + i))
    : ticks(yMin, yMax);
  for (const t of xTicks) {
    const x = sx(t);
    parts.push(`<line x1="${x}" y1="${margin.top}" x2="${x}" y2="${margin.top + plotH}" stroke="#e5e5e5"/>`);
    parts.push(`<text x="${x}" y="${margin.top + plotH + 18}" text-anchor="middle">${format(t)}</text>`);
  }
  for (const t of yTicks) {
    const y = sy(t);
    parts.push(`<line x1="${margin.left}" y1="${y}" x2="${margin.left + plotW}" y2="${y}" stroke="#e5e5e5"/>`);
    parts.push(`<text x="${margin.left - 8}" y="${y + 4}" text-anchor="end">${format(t)}</text>`);
  }
  parts.push(`<rect x="${margin.left}" y="${margin.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#333"/>`);
  parts.push(`<text x="${margin.left + plotW / 2}" y="${height - 16}" text-anchor="middle">${escapeXml(options.xLabel)}</text>`);
  parts.push(
    `<text x="20" y="${margin.top + plotH / 2}" text-anchor="middle" transform="rotate(-90 20 ${margin.top + plotH / 2})">${escapeXml(options.yLabel)}</text>`,
  );
  // Series and legend.
  series.forEach((s, i) => {
    const colour = COLOURS[i % COLOURS.length]!;
    const kind = MARKERS[i % MARKERS.length]!;
    const points = s.points.filter(([, y]) => Number.isFinite(y) && (!options.logY || y > 0));
    if (points.length > 1) {
      const path = points.map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(' ');
      parts.push(`<polyline points="${path}" fill="none" stroke="${colour}" stroke-width="2"/>`);
    }
    for (const [x, y] of points) parts.push(marker(kind, sx(x), sy(y), colour));
    const ly = margin.top + 10 + i * 22;
    const lx = margin.left + plotW + 16;
    parts.push(`<line x1="${lx}" y1="${ly}" x2="${lx + 24}" y2="${ly}" stroke="${colour}" stroke-width="2"/>`);
    parts.push(marker(kind, lx + 12, ly, colour));
    parts.push(`<text x="${lx + 32}" y="${ly + 4}">${escapeXml(s.name)}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

/** The series as CSV: a column per series, one row per x. */
export function seriesCsv(series: Series[], xName: string): string {
  const xs = [...new Set(series.flatMap((s) => s.points.map(([x]) => x)))].sort((a, b) => a - b);
  const quote = (text: string): string => (/[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
  const lines = [[xName, ...series.map((s) => s.name)].map(quote).join(',')];
  for (const x of xs) {
    lines.push([String(x), ...series.map((s) => String(s.points.find(([px]) => px === x)?.[1] ?? ''))].join(','));
  }
  return `${lines.join('\n')}\n`;
}
