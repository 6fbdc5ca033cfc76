/**
 * The comparison page (GET /runs/{device}/{id}/compare?with=…; docs/contract.md section 21): each hunk
 * a `<pre>` of lines with both sides' numbers in columns, removed lines in `<del>`, added in `<ins>`,
 * read unstyled (the console has no stylesheet); or, for a run too large or not text, why not.
 */
import type { NotComparable } from '../actions/run_compare.ts';
import { COMPARE_LIMIT, type DiffLine, hunkHeader, hunkLines, NO_NEWLINE, type RunDiff } from '../domain/run_diff.ts';
import type { StoredRun } from '../domain/runs.ts';
import { size, time } from './format.ts';
import { html, type Html } from './html.ts';
import { type Chrome, layout } from './layout.ts';
import { runPath } from './runs.ts';

/** Diff lines a page shows at most: the counts stay whole, the API and the CLI give the rest. */
export const SHOWN_LINES = 10_000;

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** Both runs, each with its side's marker, link, time, size and download. */
function sides(chrome: Chrome, oldRun: StoredRun, newRun: StoredRun): Html {
  const side = (mark: string, name: string, r: StoredRun) =>
    html`<dt>${name} (<code>${mark}</code>)</dt>
      <dd>
        <a href="${runPath(r)}"><code>${r.device}/${r.id}</code></a>, uploaded ${time(r.uploadedAt, chrome.now)},
        ${size(r.size)} (${r.size} bytes), <code>${r.contentType}</code>.
        <a href="${runPath(r)}/raw" download>Download ${r.id}</a>
      </dd>`;
  return html`<dl>${side('---', 'Old', oldRun)} ${side('+++', 'New', newRun)}</dl>`;
}

/** The column width of the largest line number of either side. */
const widthOf = (diff: RunDiff) => String(Math.max(diff.oldLines.length, diff.newLines.length)).length;

/**
 * One line: old number, new number, marker, then the text (its line feed dropped) in `<del>` or
 * `<ins>`. A carriage return shows as ␍: HTML would read it as a line break (HTML Standard,
 * "preprocessing the input stream"), and a line that differs only by one must show it.
 */
function line(l: DiffLine, width: number): Html {
  const no = (n: number | undefined) => (n === undefined ? '' : String(n)).padStart(width);
  const body = (l.text.endsWith('\n') ? l.text.slice(0, -1) : l.text).replaceAll('\r', '\u240d');
  const text =
    l.kind === 'removed' ? html`-<del>${body}</del>` : l.kind === 'added' ? html`+<ins>${body}</ins>` : html` ${body}`;
  const end = l.text.endsWith('\n') ? '' : html`\n${' '.repeat(2 * width + 2)}${NO_NEWLINE}`;
  return html`${no(l.oldNo)} ${no(l.newNo)} ${text}${end}\n`;
}

/** The hunks as `<pre>` blocks, at most `SHOWN_LINES` lines in all, and whether some were left out. */
function hunks(diff: RunDiff): { shown: Html[]; cut: boolean } {
  const width = widthOf(diff);
  const shown: Html[] = [];
  let left = SHOWN_LINES;
  for (const h of diff.hunks) {
    if (left <= 0) return { shown, cut: true };
    const lines: Html[] = [];
    for (const l of hunkLines(diff, h)) {
      if (left-- <= 0) break;
      lines.push(line(l, width));
    }
    // The header's own line comes first, so the line feed HTML drops after `<pre>` is not a run's.
    shown.push(html`<pre>${hunkHeader(h)}\n${lines}</pre>`);
  }
  return { shown, cut: left < 0 };
}

/** The comparison of two text runs. */
export function runComparePage(chrome: Chrome, oldRun: StoredRun, newRun: StoredRun, diff: RunDiff): Html {
  const title = `Compare ${oldRun.id} with ${newRun.id}`;
  if (diff.hunks.length === 0)
    return layout(
      title,
      chrome,
      html`${sides(chrome, oldRun, newRun)}
        <p role="status"><strong>No differences:</strong> the two runs hold the same text.</p>`,
    );
  const { shown, cut } = hunks(diff);
  return layout(
    title,
    chrome,
    html`${sides(chrome, oldRun, newRun)}
      <p role="status">
        <strong>${plural(diff.removed, 'line')} removed and ${plural(diff.added, 'line')} added</strong>, in
        ${plural(diff.hunks.length, 'place')}. Each place shows up to 3 unchanged lines around its changes; the
        columns are the line numbers of the old run, then of the new one.
      </p>
      ${
        diff.coarse
          ? html`<p>
            These runs differ in too many places to find the fewest changes in the time a page is given: everything
            between their first and last differing lines is shown as removed, then added.
          </p>`
          : ''
      }
      ${shown}
      ${
        cut
          ? html`<p>
            The page stops after ${SHOWN_LINES} lines of the comparison. The whole comparison is given by the API
            (<code>GET /api/v1${runPath(oldRun)}/compare?with=${newRun.device}/${newRun.id}</code>) and by
            <code>paddock runs diff ${oldRun.device}/${oldRun.id} ${newRun.device}/${newRun.id}</code>.
          </p>`
          : ''
      }`,
  );
}

const whyText: Record<NotComparable, string> = {
  'too-big': `it is larger than the ${size(COMPARE_LIMIT)} that can be compared`,
  binary: 'it is binary: its bytes are not UTF-8 text',
};

/** Two runs that cannot be compared: which one and why, and both downloads. */
export function runNotComparablePage(
  chrome: Chrome,
  oldRun: StoredRun,
  newRun: StoredRun,
  why: { old: NotComparable | undefined; new: NotComparable | undefined },
): Html {
  const reason = (r: StoredRun, w: NotComparable | undefined) =>
    w === undefined ? '' : html`<li><code>${r.device}/${r.id}</code> cannot be compared: ${whyText[w]}.</li>`;
  return layout(
    `Cannot compare ${oldRun.id} with ${newRun.id}`,
    chrome,
    html`<p>
        Only text runs of at most ${size(COMPARE_LIMIT)} each are compared line by line, and these are not both that.
      </p>
      <ul>
        ${reason(oldRun, why.old)} ${reason(newRun, why.new)}
      </ul>
      <p>Download both and compare them with a tool of your own:</p>
      ${sides(chrome, oldRun, newRun)}`,
  );
}
