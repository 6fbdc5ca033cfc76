/** The run list and the run view. */
import type { Page, StoredRun, RunSummary } from '../store/store.ts';
import { size, time } from './format.ts';
import { html } from './html.ts';
import { SHORT_NOTE_SLOT, STREAM_SLOT, streamedPage, textDecoderFor, wholePage } from './stream.ts';
import { actionButton, type Chrome, layout } from './layout.ts';

export function runPath(r: { device: string; id: string }): string {
  return `/runs/${encodeURIComponent(r.device)}/${encodeURIComponent(r.id)}`;
}

export function runsPage(chrome: Chrome, opts: { page: Page<RunSummary>; first: boolean }) {
  const { items, next } = opts.page;
  return layout(
    'Runs',
    chrome,
    html`<p>
        ${items.length === 0 ? 'No runs' : `Showing ${items.length} run${items.length === 1 ? '' : 's'}`}${chrome.session.admin ? '' : ' of your devices'},
        newest first.
      </p>
      ${
        items.length === 0
          ? ''
          : html`<table>
              <caption>
                Runs
              </caption>
              <thead>
                <tr>
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
                      <td><code>${r.device}</code></td>
                      <td><a href="${runPath(r)}">${r.id}</a></td>
                      <td>${time(r.uploadedAt, chrome.now)}</td>
                      <td>${r.privacy}</td>
                      <td>${size(r.size)}</td>
                      <td>${actionButton(`${runPath(r)}/delete`, chrome.csrf, `Delete ${r.id}`)}</td>
                    </tr> `,
                )}
              </tbody>
            </table>`
      }
      ${next ? html`<p><a href="/runs?before=${next}">Older runs</a></p>` : ''}
      ${opts.first ? '' : html`<p><a href="/runs">Newest runs</a></p>`}`,
  );
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
      ${actionButton(`${runPath(run)}/delete`, chrome.csrf, 'Delete this run')}`,
  );
  return run.size <= WHOLE_PAGE_LIMIT
    ? wholePage(page, run.read(), decoder, run.size)
    : streamedPage(page, run.read(), decoder, run.size);
}
