/** The audit trail page: the filter form (a GET form, no script), the filters that apply, the records. */
import { devicePath } from './devices.ts';
import type { AuditRecord } from '../domain/audit.ts';
import type { Page } from '../domain/paging.ts';
import { AUDIT, type AuditQuery } from '../lists/audit.ts';
import { listQueryString } from '../lists/parameters.ts';
import { time } from './format.ts';
import { html, type Html } from './html.ts';
import { type Chrome, layout } from './layout.ts';
import {
  appliedFilters,
  filterAlert,
  type FilterError,
  filterFields,
  listRange,
  type ListTotal,
  olderQuery,
  refusedRows,
} from './list_parts.ts';
import { DEVICE_ID } from '../domain/ids.ts';

const DEVICE_ACTOR = 'device:';

/** The actor: a device (what it did, docs/contract.md section 22) links to its page; an account is its subject. */
function actorCell(account: string | null): Html | string {
  if (account === null) return '';
  const id = account.slice(DEVICE_ACTOR.length);
  if (!account.startsWith(DEVICE_ACTOR) || !DEVICE_ID.test(id)) return account;
  return html`device <a href="${devicePath(id)}"><code>${id}</code></a>`;
}

const FORM = { admin: true, idPrefix: 'audit-' };

const RECORD_ROWS = { one: 'record', many: 'records' };

function filterForm(q: AuditQuery, error?: FilterError): Html {
  return html`<form method="get" action="/audit">
    <fieldset>
      <legend>Filter</legend>
      ${filterFields(AUDIT, q, { ...FORM, error })}
      <p><button type="submit">Filter</button> <a href="/audit">Clear filters</a></p>
    </fieldset>
  </form>`;
}

/** "Filters: actor is system, on or after 2026-11-01." or that none applies. */
function applied(q: AuditQuery): Html {
  const parts = appliedFilters(AUDIT, q).map(([shown, value]) => html`${shown} <code>${value}</code>`);
  if (parts.length === 0) return html`<p>No filter applies: every record, newest first.</p>`;
  return html`<p>
    Filters that apply: ${parts.map((p, i) => html`${i > 0 ? ', ' : ''}${p}`)}. Newest first.
  </p>`;
}

/**
 * The page, with `error` (docs/contract.md section 22) the form as sent with the message beside
 * the field at fault, and no records: none were read for a query that was refused.
 */
export function auditPage(
  chrome: Chrome,
  opts: {
    page: Page<AuditRecord>;
    query: AuditQuery;
    /** How many records the list holds, and the position of the page's first row (docs/contract.md section 22). */
    total?: ListTotal | undefined;
    from?: number | undefined;
    error?: FilterError;
  },
) {
  const { items, next } = opts.page;
  const q = opts.query;
  if (opts.error !== undefined)
    return layout(
      'Audit trail',
      chrome,
      html`${filterAlert(AUDIT, opts.error, FORM)} ${filterForm(q, opts.error)}
        ${refusedRows(AUDIT, q, opts.error, { path: '/audit', first: 'Newest records', rows: 'records' })}`,
    );
  const { range, counted } = listRange(RECORD_ROWS, items.length, opts.from, opts.total, chrome.now);
  const older = opts.from === undefined ? undefined : opts.from + items.length;
  return layout(
    'Audit trail',
    chrome,
    html`${filterForm(q)} ${applied(q)}
      <p>
        ${items.length === 0 ? 'No records' : range}.${items.length === 0 ? '' : counted}
        <a href="/audit.jsonl${listQueryString(AUDIT, q)}">All matching records as JSON lines</a>
      </p>
      ${
        items.length === 0
          ? ''
          : html`<table>
              <caption>
                Audit records
              </caption>
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Event</th>
                  <th scope="col">Actor</th>
                  <th scope="col">Client</th>
                  <th scope="col">Device</th>
                  <th scope="col">Run</th>
                  <th scope="col">Detail</th>
                </tr>
              </thead>
              <tbody>
                ${items.map(
                  (r) =>
                    html`<tr>
                      <td>${time(r.at, chrome.now)}</td>
                      <td><code>${r.event}</code></td>
                      <td>${actorCell(r.account)}</td>
                      <td>${r.client ?? ''}</td>
                      <td>${r.device ? html`<a href="${devicePath(r.device)}"><code>${r.device}</code></a>` : ''}</td>
                      <td>${r.run ? html`<code>${r.run}</code>` : ''}</td>
                      <td>${r.detail}</td>
                    </tr> `,
                )}
              </tbody>
            </table>`
      }
      ${next ? html`<p><a href="/audit${olderQuery(AUDIT, q, next, older)}">Older records</a></p>` : ''}
      ${q.before === undefined ? '' : html`<p><a href="/audit${listQueryString(AUDIT, q)}">Newest records</a></p>`}`,
  );
}
