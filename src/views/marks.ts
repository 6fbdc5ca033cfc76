/** Text with its matches in `<mark>` (docs/contract.md section 21), escaped as any interpolation. */
import { html, type Html } from './html.ts';

/** `text` with each [start, end) of `ranges` (in order, not overlapping, UTF-16 units) in `<mark>`. */
export function marked(text: string, ranges: ReadonlyArray<readonly [number, number]>): Html {
  const parts: Array<string | Html> = [];
  let at = 0;
  for (const [start, end] of ranges) {
    if (start < at || end <= start) continue;
    parts.push(text.slice(at, start), html`<mark>${text.slice(start, end)}</mark>`);
    at = end;
  }
  parts.push(text.slice(at));
  return html`${parts}`;
}
