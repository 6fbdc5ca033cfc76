/** The run list page (GET /runs), and its table and bulk form, which the device page shows too. */
import type { Page } from '../domain/paging.ts';
import type { RunSummary } from '../domain/runs.ts';
import { size, time } from './format.ts';
import { listQueryString } from '../lists/parameters.ts';
import { RUNS, type RunQuery } from '../lists/runs.ts';
import { devicePath } from './devices.ts';
import { html, type Html } from './html.ts';
import { filterFields, filterSummary } from './list_parts.ts';
import { actionButton, type Chrome, layout } from './layout.ts';

export function runPath(r: { device: string; id: string }): string {
  return `/runs/${encodeURIComponent(r.device)}/${encodeURIComponent(r.id)}`;
}

export function runsPage(chrome: Chrome, opts: { page: Page<RunSummary>; query: RunQuery }) {
  const { items, next } = opts.page;
  const q = opts.query;
  return layout(
    'Runs',
    chrome,
    html`${filterForm(q)}
      <p>
        ${items.length === 0 ? 'No runs' : `Showing ${items.length} run${items.length === 1 ? '' : 's'}`}${chrome.session.admin ? '' : ' of your devices'}${filterSummary(RUNS, q)},
        newest first.
      </p>
      ${items.length === 0 ? '' : runsTable(chrome, items, 'bulk-runs')}
      ${next ? html`<p><a href="/runs${listQueryString(RUNS, q, next)}">Older runs</a></p>` : ''}
      ${q.before === undefined ? '' : html`<p><a href="/runs${listQueryString(RUNS, q)}">Newest runs</a></p>`}
      ${items.length > 0 ? bulkForm(chrome.csrf, 'bulk-runs') : ''}`,
  );
}

/** The runs table, with a checkbox per run for the bulk form `form` (the device page has one too). */
export function runsTable(chrome: Chrome, items: RunSummary[], form: string): Html {
  return html`<table>
    <caption>
      Runs
    </caption>
    <thead>
      <tr>
        <th scope="col">Select</th>
        <th scope="col">Device</th>
        <th scope="col">Run</th>
        <th scope="col">Uploaded</th>
        <th scope="col">Privacy level</th>
        <th scope="col">Size</th>
        <th scope="col">Action</th>
      </tr>
    </thead>
    <tbody>
      ${items.map(
        (r) =>
          html`<tr>
            <td>
              <input type="checkbox" form="${form}" name="run" value="${r.device}/${r.id}" aria-label="Select run ${r.id} of ${r.device}" />
            </td>
            <td><a href="${devicePath(r.device)}"><code>${r.device}</code></a></td>
            <td><a href="${runPath(r)}">${r.id}</a></td>
            <td>${time(r.uploadedAt, chrome.now)}</td>
            <td>${r.privacy}${r.flagged ? html` <strong>flagged</strong>` : ''}</td>
            <td>${size(r.size)}</td>
            <td>${actionButton(`${runPath(r)}/delete`, chrome.csrf, `Delete ${r.id}`)}</td>
          </tr> `,
      )}
    </tbody>
  </table>`;
}

/** The one form the checkboxes belong to, with one csrf field. */
export function bulkForm(csrf: string, id: string): Html {
  return html`<form method="post" action="/runs/bulk" id="${id}">
    <input type="hidden" name="csrf" value="${csrf}" /><input type="hidden" name="action" value="delete" />
    <p><button type="submit">Delete selected runs</button></p>
  </form>`;
}

function filterForm(q: RunQuery): Html {
  return html`<form method="get" action="/runs">
    <fieldset>
      <legend>Find runs</legend>
      ${filterFields(RUNS, q, { admin: true })}
      <p><button type="submit">Show runs</button> <a href="/runs">Clear filters</a></p>
    </fieldset>
  </form>`;
}
