/** The run page (GET /runs/{device}/{id}): what the device sent, the level check, the receipt and the content. */
import { rulesDigest } from '../domain/receipt.ts';
import type { RunSummary, StoredRun } from '../domain/runs.ts';
import { type Findings, RULES, type RuleName } from '../domain/redaction.ts';
import { size, time } from './format.ts';
import { html, type Html } from './html.ts';
import { type Chrome, layout } from './layout.ts';
import { runPath } from './runs.ts';
import type { FindResult } from '../domain/run_find.ts';
import { type BinaryRun, PAGE_BYTES, PAGE_LINES, type TextPage } from '../domain/run_pages.ts';
import { count, foundPage, hexPage, type ReadingFields, readingForms, textPage } from './run_lines.ts';

const levelText = {
  full: 'full: the device uploaded the run with nothing removed.',
  redacted: 'redacted: the device removed sensitive content before upload.',
  minimal: 'minimal: the device uploaded only a minimal summary.',
} as const;

/** What each rule of domain/redaction.ts removes, in the words of the run view. */
const ruleText: Record<RuleName, string> = {
  json_field: 'values of JSON fields whose name marks a secret or a person',
  credential_line: 'credential header lines (Authorization, Cookie, auth…)',
  text_field: 'values of name=value and name: value fields whose name marks a secret or a person',
  email: 'e-mail addresses',
  ipv4: 'IPv4 addresses',
  ipv6: 'IPv6 addresses',
  summary: 'fields a minimal summary does not hold (or text that is no summary at all)',
};

/**
 * The level check's result (docs/contract.md section 10): whether the device client's own rules for the
 * run's level would still remove something, with counts per rule; never the matched text, and the
 * run itself is never changed.
 */
function levelCheckSection(run: StoredRun): Html {
  const body =
    run.privacy === 'full'
      ? html`<p>Not checked: a run uploaded at full keeps everything, so there is nothing to check it against.</p>`
      : run.findings === null
        ? html`<p>
            Not checked yet. Large runs are checked shortly after upload; a run stored while the check was busy, or just
            before a restart, stays unchecked.
          </p>`
        : !run.flagged
          ? html`<p>
              The level check found nothing that the device client's rules for ${run.privacy} would remove.
            </p>`
          : html`<p>
                <strong>Flagged:</strong> the level check found content that the device client's rules for
                ${run.privacy} would have removed before upload.
              </p>
              ${ruleTable('What the rules would remove, per rule', 'Count', run.findings ?? {})}`;
  return html`<h2>Level check</h2>
    ${body}
    <p>
      Nothing was changed: Paddock records only these counts, never the text the rules match, and the content below is
      exactly the bytes as uploaded.
    </p>`;
}

/** A count per rule, for the rules that counted something: the level check's and the receipt's. */
function ruleTable(caption: string, column: string, counts: Findings): Html {
  return html`<table>
    <caption>
      ${caption}
    </caption>
    <thead>
      <tr>
        <th scope="col">Rule</th>
        <th scope="col">${column}</th>
      </tr>
    </thead>
    <tbody>
      ${RULES.filter((rule) => (counts[rule] ?? 0) > 0).map(
        (rule) => html`<tr>
          <td>${ruleText[rule]}</td>
          <td>${counts[rule] ?? 0}</td>
        </tr>`,
      )}
    </tbody>
  </table>`;
}

/**
 * The device's side of the promise (issue 14): what its receipt says it removed, per rule, with
 * the client's version and whether it ran the rules this server runs (the same digest).
 */
function receiptSection(run: StoredRun): Html {
  if (run.privacy === 'full') return html``;
  const r = run.receipt;
  if (r === null)
    return html`<h2>Device's receipt</h2>
    <p>The device sent no receipt of what it removed.</p>`;
  const replaced = RULES.filter((rule) => (r.counts[rule] ?? 0) > 0);
  return html`<h2>Device's receipt</h2>
    <p>
      The device (client ${r.client}) says it ran
      ${r.rules === rulesDigest() ? 'the same rules as this server' : html`other rules than this server (<code>${r.rules}</code>)`}
      and replaced
      ${replaced.length === 0 ? 'nothing.' : html`what this table counts:`}
    </p>
    ${replaced.length === 0 ? '' : ruleTable('What the device removed, per rule', 'Replaced', r.counts)}`;
}

/** What the run view shows of the content: a page of lines, the lines a find matched, or hex. */
export type RunContent =
  | { kind: 'page'; page: TextPage }
  | { kind: 'found'; result: Extract<FindResult, { kind: 'text' }>; text: string }
  | { kind: 'binary'; run: BinaryRun };

/** Fewer bytes were read than the run holds: it was deleted while the page read it. */
function readShort(run: StoredRun, content: RunContent): boolean {
  const read =
    content.kind === 'page' ? content.page.bytes : content.kind === 'found' ? content.result.bytes : run.size;
  return read < run.size;
}

/**
 * The run view: what the device sent, the checks, the content as `content` says, the reading forms
 * with their values as sent (`fields`), and the compare link when the device has a `previous` run.
 */
export function runPage(
  chrome: Chrome,
  run: StoredRun,
  content: RunContent,
  fields: ReadingFields,
  previous?: RunSummary,
): Html {
  const path = runPath(run);
  return layout(
    `Run ${run.id}`,
    chrome,
    html`<dl>
        <dt>Device</dt>
        <dd>
          <a href="/devices/${run.device}">${run.deviceName ?? run.device}</a>
          ${run.deviceName === undefined ? '' : html`<code>${run.device}</code>`}
        </dd>
        <dt>Answered</dt>
        <dd>
          ${
            run.collection === undefined
              ? 'no collection request: the device uploaded it on its own'
              : html`the collection request <a href="/collections/${run.collection}">${run.collection}</a>`
          }
        </dd>
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
      ${levelCheckSection(run)} ${receiptSection(run)}
      <h2>Content</h2>
      ${
        content.kind === 'binary'
          ? hexPage(content.run, run.contentType)
          : html`<p>
              Shown as UTF-8 text, by pages of at most ${count(PAGE_LINES)} lines and ${PAGE_BYTES / 1024} KiB, each line
              after its number. Control characters appear as their Unicode control pictures.
            </p>
            ${readingForms(path, fields)}
            ${content.kind === 'page' ? textPage(path, content.page) : foundPage(path, content.result, content.text)}`
      }
      ${
        readShort(run, content)
          ? html`<p><strong>The run was deleted while this page read it: what is shown may be incomplete.</strong></p>`
          : ''
      }
      <p><a href="${path}/raw" download>Download the run exactly as uploaded</a></p>
      ${
        previous === undefined
          ? ''
          : html`<p>
            <a href="${runPath(previous)}/compare?with=${run.device}/${run.id}"
              >Compare with this device's previous run (${previous.id})</a
            >
          </p>`
      }
      <p><a href="${path}/delete">Delete this run…</a></p>`,
  );
}
