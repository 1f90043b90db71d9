/**
 * Line and point plots with uPlot (a small canvas plotting library): the crawl's progress, a
 * solver's residual per iteration (log y), degree distributions (log-log points). The plot follows
 * its container's width.
 */
import uPlot from 'uplot';

export interface LineSeries {
  label: string;
  color: string;
  /** Points only (a scatter), e.g. a degree distribution. */
  points?: boolean;
}

export interface LineChartOptions {
  height: number;
  series: LineSeries[];
  xLabel: string;
  yLabel: string;
  xLog?: boolean;
  yLog?: boolean;
  /** Format of y values in the legend and axis. */
  yFormat?: (value: number) => string;
}

export interface LineChart {
  set(data: number[][]): void;
  destroy(): void;
}

export function lineChart(container: HTMLElement, o: LineChartOptions): LineChart {
  const yFormat = o.yFormat ?? ((v: number) => (Math.abs(v) >= 1e4 || (v !== 0 && Math.abs(v) < 1e-3) ? v.toExponential(1) : String(v)));
  const options: uPlot.Options = {
    width: Math.max(200, container.clientWidth || 600),
    height: o.height,
    scales: {
      x: { time: false, ...(o.xLog === true ? { distr: 3, log: 10 } : {}) },
      y: o.yLog === true ? { distr: 3, log: 10 } : {},
    },
    axes: [
      { label: o.xLabel, size: 40, labelSize: 18 },
      { label: o.yLabel, size: 64, labelSize: 18, values: (_u, values) => values.map((v) => (v === null ? '' : yFormat(v))) },
    ],
    legend: { show: true },
    cursor: { drag: { x: true, y: false } },
    series: [
      { label: o.xLabel },
      ...o.series.map((s): uPlot.Series => ({
        label: s.label,
        stroke: s.color,
        width: s.points === true ? 0 : 2,
        value: (_u, v) => (v === null ? '–' : yFormat(v)),
        ...(s.points === true ? { paths: () => null, points: { show: true, size: 5, fill: s.color, stroke: s.color } } : { points: { show: false } }),
      })),
    ],
  };
  const plot = new uPlot(options, [[], ...o.series.map(() => [])], container);
  const resize = new ResizeObserver(() => {
    const width = container.clientWidth;
    if (width > 0 && Math.abs(width - plot.width) > 2) plot.setSize({ width, height: o.height });
  });
  resize.observe(container);
  return {
    set: (data) => plot.setData(data as uPlot.AlignedData),
    destroy: () => {
      resize.disconnect();
      plot.destroy();
    },
  };
}
