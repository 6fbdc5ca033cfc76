/**
 * The run list page (GET /runs), with what a search found (docs/contract.md section 21), and its
 * table and bulk form, which the device page shows too.
 */
import type { ListedRun, ListedRuns, RunsTotal } from '../actions/run_search.ts';
import type { LineMatch } from '../domain/run_match.ts';
import type { RunSummary } from '../domain/runs.ts';
import { ago } from './ago.ts';
import { size } from './format.ts';
import { listQueryString } from '../lists/parameters.ts';
import { RUNS, type RunQuery } from '../lists/runs.ts';
import { devicePath } from './devices.ts';
import { html, type Html } from './html.ts';
import { filterAlert, type FilterError, filterFields, filterSummary } from './list_parts.ts';
import { type Chrome, layout } from './layout.ts';
import { marked } from './marks.ts';

export function runPath(r: { device: string; id: string }): string {
  return `/runs/${encodeURIComponent(r.device)}/${encodeURIComponent(r.id)}`;
}

/**
 * The page, with `error` (docs/contract.md section 22) the form as sent with the message beside
 * the field at fault, and no rows: none were read for a query that was refused.
 */
export function runsPage(chrome: Chrome, opts: { page: ListedRuns; query: RunQuery; error?: FilterError }) {
  const { items, next } = opts.page;
  const q = opts.query;
  if (opts.error !== undefined)
    return layout(
      'Runs',
      chrome,
      html`${filterAlert(RUNS, opts.error, { admin: true })} ${filterForm(q, opts.error)}
        <p>No runs are shown until the filter is corrected.</p>`,
    );
  const searched = q.text !== undefined;
  return layout(
    'Runs',
    chrome,
    html`${filterForm(q)}
      <p>
        ${shown(items.length, q.before === undefined, opts.page.total)}${chrome.session.admin ? '' : ' of your devices'}${filterSummary(RUNS, q)},
        newest first${searched ? ', each with its first matching line' : ''}.
      </p>
      ${items.length > 0 ? bulkForm(chrome.csrf, 'bulk-runs', `/runs${listQueryString(RUNS, q, q.before)}`) : ''}
      ${items.length === 0 ? '' : runsTable(chrome, items, 'bulk-runs', searched)}
      ${
        opts.page.cut && next
          ? html`<p>This page stopped after reading as many runs as a page may: older runs may hold the words too.</p>`
          : ''
      }
      ${next ? html`<p><a href="/runs${listQueryString(RUNS, q, next)}">Older runs</a></p>` : ''}
      ${q.before === undefined ? '' : html`<p><a href="/runs${listQueryString(RUNS, q)}">Newest runs</a></p>`}`,
  );
}

/**
 * How many the page shows of how many the list holds (docs/contract.md section 22): "1–50 of
 * 12,345" on the first page, "50 of 12,345, older than the last page" after it (pages go by
 * cursor, not by number). A total is a few seconds old at most; a filtered one stops at its cap.
 */
function shown(n: number, first: boolean, total: RunsTotal | undefined): string {
  if (n === 0) return 'No runs';
  // A count a few seconds old may predate runs the page shows: the first page holds at least its own.
  const count = total === undefined ? 0 : Math.max(total.count, first ? n : 0);
  const of =
    total === undefined
      ? ''
      : ` of ${total.more ? 'more than ' : ''}${count.toLocaleString('en-US')} (counted within the last few seconds)`;
  return first ? `Runs 1–${n}${of}` : `${n} older runs${of}`;
}

/**
 * The runs table, with a checkbox per run for the bulk form `form` (the device page has one too);
 * for a search, each run's first matching line.
 */
export function runsTable(chrome: Chrome, items: ListedRun[], form: string, searched = false): Html {
  return html`<table>
    <caption>
      Runs
    </caption>
    <thead>
      <tr>
        <th scope="col">Select</th>
        <th scope="col">Run</th>
        <th scope="col">Device</th>
        <th scope="col">Uploaded</th>
        <th scope="col">Privacy level</th>
        <th scope="col">Size</th>
        ${searched ? html`<th scope="col">First matching line</th>` : ''}
      </tr>
    </thead>
    <tbody>
      ${items.map(
        (r) =>
          html`<tr>
            <td>
              <input type="checkbox" form="${form}" name="run" value="${r.device}/${r.id}" aria-label="Select run ${r.id} of ${r.device}" />
            </td>
            <td><a href="${runPath(r)}">${r.id}</a></td>
            <td>
              ${
                r.deviceName === undefined
                  ? html`<code>${r.device}</code>`
                  : html`<a href="${devicePath(r.device)}">${r.deviceName}</a> <small><code>${r.device}</code></small>`
              }
            </td>
            <td>${ago(r.uploadedAt, chrome.now)}</td>
            <td>${r.privacy}${r.flagged ? html` <strong>flagged</strong>` : ''}</td>
            <td>${size(r.size)}</td>
            ${searched ? html`<td>${r.match ? matchCell(r, r.match) : ''}</td>` : ''}
          </tr> `,
      )}
    </tbody>
  </table>`;
}

/**
 * The one form the checkboxes belong to, with one csrf field. It posts to the confirmation first
 * (docs/contract.md section 22), with the fields POST /runs/bulk takes and, from the run list, the
 * list's path and query as `return`.
 */
export function bulkForm(csrf: string, id: string, here?: string): Html {
  return html`<form method="post" action="/runs/bulk/confirm" id="${id}">
    <input type="hidden" name="csrf" value="${csrf}" /><input type="hidden" name="action" value="delete" />
    ${here === undefined ? '' : html`<input type="hidden" name="return" value="${here}" />`}
    <p><button type="submit">Delete selected runs…</button></p>
  </form>`;
}

/** The line's number, a link to it in the run view, and its text with the matches marked. */
function matchCell(r: RunSummary, match: LineMatch): Html {
  return html`<a href="${runPath(r)}?line=${match.line}#L${match.line}">line ${match.line}</a>:
    <code>${marked(match.text, match.ranges)}</code>`;
}

function filterForm(q: RunQuery, error?: FilterError): Html {
  return html`<form method="get" action="/runs">
    <fieldset>
      <legend>Find runs</legend>
      ${filterFields(RUNS, q, { admin: true, error })}
      <p><button type="submit">Show runs</button> <a href="/runs">Clear filters</a></p>
    </fieldset>
  </form>`;
}
