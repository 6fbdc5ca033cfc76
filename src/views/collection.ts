/**
 * One collection's page (docs/contract.md section 15): what was asked, by whom, until when; its
 * targets counted by state; and the targets themselves, newest first and keyset-paged: each
 * device, its state and since when, and the run it produced (linked) or why it declined or was
 * skipped. While anything is open, a button cancels it. A non-admin's counts and targets are those
 * of its own devices (the store scopes them), and so is what its button cancels.
 */
import { type Collection, type CollectionTarget, type SkipReason, TARGET_STATES } from '../domain/collections.ts';
import type { Page } from '../domain/paging.ts';
import { COLLECTION_TARGETS, type TargetsQuery } from '../lists/collections.ts';
import { listQueryString } from '../lists/parameters.ts';
import { collectionPath, collectionState } from './collections.ts';
import { devicePath } from './devices.ts';
import { time } from './format.ts';
import { html, type Html } from './html.ts';
import { actionButton, type Chrome, layout } from './layout.ts';
import {
  filterAlert,
  type FilterError,
  filterFields,
  filterSummary,
  listRange,
  type ListTotal,
  olderQuery,
  refusedRows,
} from './list_parts.ts';
import { runPath } from './runs.ts';

/** Why a device was skipped when the collection was created, in words. */
const SKIPPED: Record<SkipReason, string> = {
  revoked: 'skipped: the device is revoked',
  pending: 'skipped: the device awaits approval',
  ceiling: 'skipped: the level asked is more revealing than the device’s privacy ceiling',
  busy: 'skipped: the device already had 5 open requests',
};

/**
 * A collection with a page of its targets, how many its list holds, the position of the page's first
 * row, and the page's own path and query, which its cancel button carries as `return`
 * (docs/contract.md section 22).
 */
export interface CollectionView {
  collection: Collection;
  targets: Page<CollectionTarget>;
  query: TargetsQuery;
  total?: ListTotal | undefined;
  from?: number | undefined;
  here?: string | undefined;
  error?: FilterError;
}

export function collectionPage(chrome: Chrome, opts: CollectionView) {
  const c = opts.collection;
  const path = collectionPath(c.id);
  const q = opts.query;
  const { error } = opts;
  const admin = chrome.session.admin;
  return layout(
    `Collection ${c.id}`,
    chrome,
    html`${error === undefined ? '' : filterAlert(COLLECTION_TARGETS, error, { admin })}
      <dl>
        <dt>Asked by</dt>
        <dd>${c.createdBy}</dd>
        <dt>Created</dt>
        <dd>${time(c.createdAt, chrome.now)}</dd>
        <dt>Privacy level asked</dt>
        <dd>${c.privacy}, or a more private one</dd>
        <dt>Reason</dt>
        <dd>${c.reason}</dd>
        ${expiry(c, chrome.now)}
        <dt>State</dt>
        <dd>${collectionState(c, chrome.now)}</dd>
      </dl>
      ${c.counts.pending + c.counts.delivered > 0 ? actionButton(`${path}/cancel`, chrome.csrf, 'Cancel the open requests', opts.here) : ''}
      <h2>Targets by state</h2>
      ${countsTable(c, path)}
      <h2>Targets</h2>
      <form method="get" action="${path}">
        <fieldset>
          <legend>Find targets</legend>
          ${filterFields(COLLECTION_TARGETS, q, { admin, error })}
          <p><button type="submit">Show targets</button> <a href="${path}">Every state</a></p>
        </fieldset>
      </form>
      ${
        error === undefined
          ? targets(chrome, opts, path)
          : refusedRows(COLLECTION_TARGETS, q, error, { path, first: 'First targets', rows: 'targets' })
      }
      <p><a href="/collections">Back to collections</a></p>`,
  );
}

/** The targets read, with the sentence that counts them and the paging links. */
function targets(chrome: Chrome, opts: CollectionView, path: string): Html {
  const { items, next } = opts.targets;
  const q = opts.query;
  const { range, counted } = listRange(TARGET_ROWS, items.length, opts.from, opts.total, chrome.now);
  const older = opts.from === undefined ? undefined : opts.from + items.length;
  return html`<p>
      ${items.length === 0 ? 'No targets' : range}${filterSummary(COLLECTION_TARGETS, q)},
      newest first.${items.length === 0 ? '' : counted}
    </p>
    ${items.length === 0 ? '' : targetsTable(chrome, items)}
    ${next ? html`<p><a href="${path}${olderQuery(COLLECTION_TARGETS, q, next, older)}">More targets</a></p>` : ''}
    ${q.before === undefined ? '' : html`<p><a href="${path}${listQueryString(COLLECTION_TARGETS, q)}">First targets</a></p>`}`;
}

const TARGET_ROWS = { one: 'target', many: 'targets' };

/** When it expires, while it is open; once closed, its state says when, and expiry no longer applies. */
function expiry(c: Collection, now: number): Html | string {
  return c.closedAt === null ? html`<dt>Expires</dt><dd>${time(c.expiresAt, now)}</dd>` : '';
}

function countsTable(c: Collection, path: string): Html {
  return html`<table>
    <caption>
      Targets of this collection by state
    </caption>
    <thead>
      <tr>
        <th scope="col">State</th>
        <th scope="col">Targets</th>
      </tr>
    </thead>
    <tbody>
      ${TARGET_STATES.map(
        (s) =>
          html`<tr>
            <th scope="row">
              ${c.counts[s] === 0 ? s : html`<a href="${path}${listQueryString(COLLECTION_TARGETS, { state: s })}">${s}</a>`}
            </th>
            <td>${String(c.counts[s])}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function targetsTable(chrome: Chrome, items: CollectionTarget[]): Html {
  return html`<table>
    <caption>
      Targets
    </caption>
    <thead>
      <tr>
        <th scope="col">Device</th>
        <th scope="col">Request</th>
        <th scope="col">State</th>
        <th scope="col">Since</th>
        <th scope="col">Run or reason</th>
      </tr>
    </thead>
    <tbody>
      ${items.map(
        (t) =>
          html`<tr>
            <td><a href="${devicePath(t.device)}">${t.deviceName}</a> (<code>${t.device}</code>)</td>
            <td><code>${t.request}</code></td>
            <td>${t.state}</td>
            <td>${time(t.since, chrome.now)}</td>
            <td>${outcome(t)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** The run a target produced, or why it has none. */
function outcome(t: CollectionTarget): Html | string {
  if (t.run !== null) return html`<a href="${runPath({ device: t.device, id: t.run })}">run <code>${t.run}</code></a>`;
  if (t.state === 'skipped') return SKIPPED[t.reason as SkipReason] ?? `skipped: ${t.reason ?? ''}`;
  if (t.state === 'declined') {
    const said = t.reason ? html`declined: “${t.reason}”` : 'declined, without a reason';
    return t.stderr === null ? said : html`${said} ${stderrDetails(t.stderr)}`;
  }
  return '';
}

/**
 * The end of the failed command's standard error that the device sent, folded. Its format
 * characters (bidi overrides, zero-width) are shown as U+FFFD so the text reads as it was written.
 */
function stderrDetails(stderr: string): Html {
  const lines = stderr.replace(/\n$/, '').split('\n').length;
  return html`<details>
    <summary>Standard error, its last ${lines === 1 ? 'line' : `${lines} lines`}</summary>
    <pre>${stderr.replace(/\p{Cf}/gu, '\uFFFD')}</pre>
  </details>`;
}
