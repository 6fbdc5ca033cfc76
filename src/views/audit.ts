/** The audit trail page: the filter form (a GET form, no script), the filters that apply, the records. */
import { devicePath } from './devices.ts';
import { AUDITED_EVENTS } from '../events/catalogue.ts';
import type { AuditRecord } from '../domain/audit.ts';
import type { Page } from '../domain/paging.ts';
import { type AuditQuery, auditQueryString } from '../audit/audit_query.ts';
import { time } from './format.ts';
import { html, type Html } from './html.ts';
import { type Chrome, layout } from './layout.ts';

const filterNames: Record<keyof AuditQuery, string> = {
  actor: 'actor is',
  event: 'event is',
  device: 'device is',
  since: 'on or after',
  until: 'on or before',
};

function filterForm(q: AuditQuery): Html {
  return html`<form method="get" action="/audit">
    <fieldset>
      <legend>Filter</legend>
      <p>
        <label for="audit-actor">Actor</label>
        <input id="audit-actor" name="actor" value="${q.actor}" placeholder="system, local:admin or oidc:…" />
      </p>
      <p>
        <label for="audit-event">Event</label>
        <select id="audit-event" name="event">
          <option value="">any</option>
          ${[...AUDITED_EVENTS]
            .sort()
            .map((e) => html`<option value="${e}" ${e === q.event ? 'selected' : ''}>${e}</option>`)}
        </select>
      </p>
      <p>
        <label for="audit-device">Device</label>
        <input id="audit-device" name="device" value="${q.device}" />
      </p>
      <p>
        <label for="audit-since">Since (UTC day, inclusive)</label>
        <input id="audit-since" name="since" value="${q.since}" placeholder="YYYY-MM-DD" pattern="[0-9]{4}-[0-9]{2}-[0-9]{2}" maxlength="10" />
      </p>
      <p>
        <label for="audit-until">Until (UTC day, inclusive)</label>
        <input id="audit-until" name="until" value="${q.until}" placeholder="YYYY-MM-DD" pattern="[0-9]{4}-[0-9]{2}-[0-9]{2}" maxlength="10" />
      </p>
      <p><button type="submit">Filter</button> <a href="/audit">Clear filters</a></p>
    </fieldset>
  </form>`;
}

/** "Filters: actor is system, on or after 2026-11-01." or that none applies. */
function applied(q: AuditQuery): Html {
  const parts = (Object.keys(filterNames) as Array<keyof AuditQuery>)
    .filter((name) => q[name])
    .map((name) => html`${filterNames[name]} <code>${q[name]}</code>`);
  if (parts.length === 0) return html`<p>No filter applies: every record, newest first.</p>`;
  return html`<p>
    Filters that apply: ${parts.map((p, i) => html`${i > 0 ? ', ' : ''}${p}`)}. Newest first.
  </p>`;
}

export function auditPage(chrome: Chrome, opts: { page: Page<AuditRecord>; query: AuditQuery; first: boolean }) {
  const { items, next } = opts.page;
  const q = opts.query;
  return layout(
    'Audit trail',
    chrome,
    html`${filterForm(q)} ${applied(q)}
      <p>
        ${items.length === 0 ? 'No records' : `Showing ${items.length} record${items.length === 1 ? '' : 's'}`}.
        <a href="/audit.jsonl${auditQueryString(q)}">All matching records as JSON lines</a>
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
                      <td>${r.account ?? ''}</td>
                      <td>${r.client ?? ''}</td>
                      <td>${r.device ? html`<a href="${devicePath(r.device)}"><code>${r.device}</code></a>` : ''}</td>
                      <td>${r.run ? html`<code>${r.run}</code>` : ''}</td>
                      <td>${r.detail}</td>
                    </tr> `,
                )}
              </tbody>
            </table>`
      }
      ${next ? html`<p><a href="/audit${auditQueryString(q, { before: next })}">Older records</a></p>` : ''}
      ${opts.first ? '' : html`<p><a href="/audit${auditQueryString(q)}">Newest records</a></p>`}`,
  );
}
