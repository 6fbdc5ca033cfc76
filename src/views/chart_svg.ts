/**
 * A stacked bar chart as inline SVG, with labelled axes and a legend, drawn with presentation
 * attributes only (the content security policy forbids styles). It is one image to assistive
 * technology (`role="img"` and a summary in `aria-label`); each bar's part also has a title.
 */
import { html, type Html } from './html.ts';

export interface Series {
  name: string;
  fill: string;
  values: readonly number[];
}

export interface StackedChart {
  /** One label a bar, under it on the x axis. */
  labels: readonly string[];
  /** Drawn bottom up, in this order; the legend lists them so. */
  series: readonly Series[];
  xLabel: string;
  yLabel: string;
  /** What the chart shows, in a sentence: the image's accessible name. */
  summary: string;
  /** A bar's part (bar `i`) as its title says it: "2026-11-22: 3 redacted uploads". */
  title: (i: number, series: string, value: number) => string;
}

const BAR = 28;
const GAP = 10;
const PLOT_HEIGHT = 160;
const LEFT = 60;
const TOP = 28;
const BOTTOM = 56;
const RIGHT = 12;
const AXIS = '#444';

/** The y axis's step: 1, 2 or 5 times a power of ten, for about four ticks up to at least `max`. */
export function tickStep(max: number): number {
  if (max <= 4) return 1;
  const raw = max / 4;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? 10 * magnitude;
  return Math.max(1, step);
}

export function stackedBarChart(chart: StackedChart): Html {
  const totals = chart.labels.map((_, i) => chart.series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const step = tickStep(Math.max(0, ...totals));
  const top = Math.max(step, Math.ceil(Math.max(0, ...totals) / step) * step);
  // Rounded to a tenth: the markup stays short and the same for the same numbers.
  const y = (v: number) => Math.round((TOP + PLOT_HEIGHT - (v / top) * PLOT_HEIGHT) * 10) / 10;
  const width = LEFT + chart.labels.length * (BAR + GAP) + RIGHT;
  const height = TOP + PLOT_HEIGHT + BOTTOM;
  const ticks = Array.from({ length: top / step + 1 }, (_, i) => i * step);
  const bars = chart.labels.map((label, i) => {
    const x = LEFT + GAP / 2 + i * (BAR + GAP);
    let below = 0;
    const parts = chart.series.map((s) => {
      const v = s.values[i] ?? 0;
      const part =
        v === 0
          ? ''
          : html`<rect x="${x}" y="${y(below + v)}" width="${BAR}" height="${Math.round((y(below) - y(below + v)) * 10) / 10}" fill="${s.fill}"><title>${chart.title(i, s.name, v)}</title></rect>`;
      below += v;
      return part;
    });
    const tick = html`<text x="${x + BAR / 2}" y="${TOP + PLOT_HEIGHT + 16}" font-size="12" text-anchor="middle">${label}</text>`;
    return html`${parts}${tick}`;
  });
  const yTicks = ticks.map(
    (v) =>
      html`<line x1="${LEFT - 4}" y1="${y(v)}" x2="${LEFT}" y2="${y(v)}" stroke="${AXIS}" /><text x="${LEFT - 7}" y="${Math.round((y(v) + 3) * 10) / 10}" font-size="12" text-anchor="end">${String(v)}</text>`,
  );
  const legend = chart.series.map(
    (s, i) =>
      html`<rect x="${LEFT + i * 110}" y="6" width="12" height="12" fill="${s.fill}" /><text x="${LEFT + i * 110 + 17}" y="17" font-size="13">${s.name}</text>`,
  );
  return html`<svg viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${chart.summary}"><title>${chart.summary}</title>${legend}<line x1="${LEFT}" y1="${TOP}" x2="${LEFT}" y2="${TOP + PLOT_HEIGHT}" stroke="${AXIS}" /><line x1="${LEFT}" y1="${TOP + PLOT_HEIGHT}" x2="${width - RIGHT}" y2="${TOP + PLOT_HEIGHT}" stroke="${AXIS}" />${yTicks}${bars}<text x="${LEFT + (width - LEFT - RIGHT) / 2}" y="${height - 8}" font-size="13" text-anchor="middle">${chart.xLabel}</text><text x="14" y="${TOP + PLOT_HEIGHT / 2}" font-size="13" text-anchor="middle" transform="rotate(-90 14 ${TOP + PLOT_HEIGHT / 2})">${chart.yLabel}</text></svg>`;
}
