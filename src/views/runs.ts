/** The run list and the run view. */
import type { Page, StoredRun, RunSummary } from '../store/store.ts';
import { size, time } from './format.ts';
import { PRIVACY_LEVELS } from '../domain/privacy.ts';
import { queryString, type RunQuery } from '../ui/list_query.ts';
import { devicePath } from './devices.ts';
import { html, type Html } from './html.ts';
import { filterSummary, option } from './list_parts.ts';
import { SHORT_NOTE_SLOT, STREAM_SLOT, streamedPage, textDecoderFor, wholePage } from './stream.ts';
import { actionButton, type Chrome, layout } from './layout.ts';

export function runPath(r: { device: string; id: string }): string {
  return `/runs/${encodeURIComponent(r.device)}/${encodeURIComponent(r.id)}`;
}

export function runsPage(chrome: Chrome, opts: { page: Page<RunSummary>; query: RunQuery }) {
  const { items, next } = opts.page;
  const { before, device, privacy, since, until } = opts.query;
  const filters = { device, privacy, since, until };
  const applied = filterSummary([
    ['of device', filters.device],
    ['at privacy level', filters.privacy],
    ['uploaded from', filters.since],
    ['uploaded until', filters.until],
  ]);
  return layout(
    'Runs',
    chrome,
    html`${filterForm(filters)}
      <p>
        ${items.length === 0 ? 'No runs' : `Showing ${items.length} run${items.length === 1 ? '' : 's'}`}${chrome.session.admin ? '' : ' of your devices'}${applied},
        newest first.
      </p>
      ${items.length === 0 ? '' : runsTable(chrome, items, 'bulk-runs')}
      ${next ? html`<p><a href="/runs${queryString({ ...filters, before: next })}">Older runs</a></p>` : ''}
      ${before === undefined ? '' : html`<p><a href="/runs${queryString(filters)}">Newest runs</a></p>`}
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
            <td>${r.privacy}</td>
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

function filterForm(q: Omit<RunQuery, 'before' | 'sinceMs' | 'untilMs'>): Html {
  return html`<form method="get" action="/runs">
    <fieldset>
      <legend>Find runs</legend>
      <p>
        <label for="device">Device id</label><br />
        <input id="device" name="device" value="${q.device ?? ''}" maxlength="64" />
      </p>
      <p>
        <label for="privacy">Privacy level</label><br />
        <select id="privacy" name="privacy">
          ${option('', 'any', q.privacy ?? '')} ${PRIVACY_LEVELS.map((l) => option(l, l, q.privacy ?? ''))}
        </select>
      </p>
      <p>
        <label for="since">Uploaded from (day, UTC)</label><br />
        <input id="since" name="since" value="${q.since ?? ''}" placeholder="YYYY-MM-DD" pattern="[0-9]{4}-[0-9]{2}-[0-9]{2}" maxlength="10" />
      </p>
      <p>
        <label for="until">Uploaded until (day, UTC, included)</label><br />
        <input id="until" name="until" value="${q.until ?? ''}" placeholder="YYYY-MM-DD" pattern="[0-9]{4}-[0-9]{2}-[0-9]{2}" maxlength="10" />
      </p>
      <p><button type="submit">Show runs</button> <a href="/runs">Clear filters</a></p>
    </fieldset>
  </form>`;
}

const levelText = {
  full: 'full: the device uploaded the run with nothing removed.',
  redacted: 'redacted: the device removed sensitive content before upload.',
  minimal: 'minimal: the device uploaded only a minimal summary.',
} as const;

/** Runs up to this size are rendered whole; larger ones are streamed. */
const WHOLE_PAGE_LIMIT = 256 * 1024;

/**
 * HTML drops one line feed right after `<pre>`: this one, so a run that begins with a line feed
 * keeps it (HTML Standard, "in body" insertion mode, the `pre` start tag). Interpolated, so the
 * template's formatting cannot lose it; escaping leaves a line feed as it is.
 */
const PRE_NEWLINE = '\n';

/** The run view: large content is escaped a chunk at a time between the page's head and tail. */
export function runPage(chrome: Chrome, run: StoredRun): Promise<string> | ReadableStream<Uint8Array> {
  const decoder = textDecoderFor(run.contentType);
  const page = layout(
    `Run ${run.id}`,
    chrome,
    html`<dl>
        <dt>Device</dt>
        <dd><code>${run.device}</code></dd>
        <dt>Run</dt>
        <dd><code>${run.id}</code></dd>
        <dt>Uploaded</dt>
        <dd>${time(run.uploadedAt, chrome.now)}</dd>
        <dt>Content type</dt>
        <dd><code>${run.contentType}</code></dd>
        <dt>Size</dt>
        <dd>${size(run.size)} (${run.size} bytes)</dd>
        <dt>Privacy level</dt>
        <dd>${levelText[run.privacy]}</dd>
      </dl>
      <p>
        The run is shown exactly as its device uploaded it. Content that the device removed before upload never reached
        Paddock and cannot be restored.
      </p>
      <h2>Content</h2>
      <p>
        Shown as ${decoder.encoding} text. Control characters appear as their Unicode control pictures, and bytes that
        are not ${decoder.encoding} text as the replacement character.
      </p>
      <pre>${PRE_NEWLINE}${STREAM_SLOT}</pre>
      ${SHORT_NOTE_SLOT}
      <p><a href="${runPath(run)}/raw" download>Download the run exactly as uploaded</a></p>
      ${actionButton(`${runPath(run)}/delete`, chrome.csrf, 'Delete this run')}`,
  );
  return run.size <= WHOLE_PAGE_LIMIT
    ? wholePage(page, run.read(), decoder, run.size)
    : streamedPage(page, run.read(), decoder, run.size);
}
