/**
 * A small bar chart as inline SVG: one bar a day, drawn with fill attributes only (the content
 * security policy forbids styles), with a text alternative for screen readers and a title per bar.
 */
import { html, type Html } from './html.ts';

const BAR = 14;
const GAP = 4;
const HEIGHT = 60;

export function barChart(values: number[], labels: string[], summary: string): Html {
  const max = Math.max(1, ...values);
  const width = values.length * (BAR + GAP);
  const bars = values.map((v, i) => {
    const h = v === 0 ? 1 : Math.max(2, Math.round((v / max) * HEIGHT));
    const title = `${labels[i] ?? ''}: ${v} upload${v === 1 ? '' : 's'}`;
    return html`<rect x="${i * (BAR + GAP)}" y="${HEIGHT - h}" width="${BAR}" height="${h}" fill="${v === 0 ? '#bbb' : '#245'}"><title>${title}</title></rect>`;
  });
  return html`<svg viewBox="0 0 ${width} ${HEIGHT}" width="${width * 2}" height="${HEIGHT * 2}" role="img" aria-label="${summary}"><title>${summary}</title>${bars}</svg>`;
}
