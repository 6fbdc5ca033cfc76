/**
 * The device list: the filter form (GET, works without script), the table with a checkbox per
 * device for the bulk form, and paging links that keep the filters (docs/contract.md section 9).
 */
import { type DeviceStatus, deviceStatus, type LabelledDevice } from '../domain/devices.ts';
import type { Page } from '../domain/paging.ts';
import { type DeviceQuery, DEVICES } from '../lists/devices.ts';
import { listQueryString, valuesOf } from '../lists/parameters.ts';
import { COLLECTION_FILTERS } from '../lists/collections.ts';
import { MAX_TARGETS } from '../domain/collections.ts';
import { requestFields } from './collection_form.ts';
import { time } from './format.ts';
import { html, type Html } from './html.ts';
import { actionButton, type Chrome, layout } from './layout.ts';
import { filterFields, filterSummary } from './list_parts.ts';
import { labelsShown } from './labels.ts';

export function devicePath(id: string): string {
  return `/devices/${encodeURIComponent(id)}`;
}

/** A device's status as the list shows it: when revoked, and why it waits (docs/contract.md section 16). */
function statusCell(status: DeviceStatus, d: LabelledDevice, now: number): Html | string {
  if (status === 'revoked') return html`revoked ${time(d.revokedAt, now)}`;
  if (status === 'pending' && d.pendingReason !== null) return html`pending (${d.pendingReason})`;
  return status;
}

export function devicesPage(
  chrome: Chrome,
  opts: {
    page: Page<LabelledDevice>;
    query: DeviceQuery;
    staleBefore: number;
    /** How many devices the filters match (with none set, every device in scope). */
    reach: number;
  },
) {
  const admin = chrome.session.admin;
  const { items, next } = opts.page;
  const q = opts.query;
  const { sort } = DEVICES.parameters;
  return layout(
    'Devices',
    chrome,
    html`${admin ? html`<p><a href="/enroll-tokens">Enroll a device</a> (enrollment tokens)</p>` : ''}
      ${filterForm(q, admin)}
      <p>
        ${items.length === 0 ? 'No devices' : `Showing ${items.length} device${items.length === 1 ? '' : 's'}`}${admin ? '' : ' that you own'}${filterSummary(DEVICES, q)},
        ${sort.words[q.sort ?? sort.default]}.
      </p>
      ${items.length === 0 ? '' : table(chrome, items, opts.staleBefore)}
      ${next ? html`<p><a href="/devices${listQueryString(DEVICES, q, next)}">Older devices</a></p>` : ''}
      ${q.before === undefined ? '' : html`<p><a href="/devices${listQueryString(DEVICES, q)}">Newest devices</a></p>`}
      ${q.owner_disabled === undefined ? requestForm(chrome.csrf, q, opts.reach) : ''}
      ${admin && items.length > 0 ? bulkForm(chrome.csrf) : ''}`,
  );
}

function filterForm(q: DeviceQuery, admin: boolean): Html {
  return html`<form method="get" action="/devices">
    <fieldset>
      <legend>Find devices</legend>
      ${filterFields(DEVICES, q, { admin })}
      <p><button type="submit">Show devices</button> <a href="/devices">Clear filters</a></p>
    </fieldset>
  </form>`;
}

function table(chrome: Chrome, items: LabelledDevice[], staleBefore: number): Html {
  const admin = chrome.session.admin;
  return html`<table>
    <caption>
      Devices
    </caption>
    <thead>
      <tr>
        ${admin ? html`<th scope="col">Select</th>` : ''}
        <th scope="col">Device</th>
        <th scope="col">Name</th>
        <th scope="col">Owner</th>
        <th scope="col">Enrolled</th>
        <th scope="col">Last seen</th>
        <th scope="col">Last upload</th>
        <th scope="col">Status</th>
        <th scope="col">Labels</th>
        ${admin ? html`<th scope="col">Action</th>` : ''}
      </tr>
    </thead>
    <tbody>
      ${items.map((d) => {
        const status = deviceStatus(d, staleBefore);
        return html`<tr>
          ${
            admin
              ? html`<td>
                <input type="checkbox" form="bulk-devices" name="device" value="${d.id}" aria-label="Select ${d.id}" />
              </td>`
              : ''
          }
          <td><a href="${devicePath(d.id)}"><code>${d.id}</code></a></td>
          <td>${d.name}</td>
          <td>${d.owner}</td>
          <td>${time(d.enrolledAt, chrome.now)}</td>
          <td>${time(d.lastSeenAt, chrome.now)}</td>
          <td>${time(d.lastUploadAt, chrome.now)}</td>
          <td>${statusCell(status, d, chrome.now)}</td>
          <td>${labelsShown(d.labels)}</td>
          ${
            admin
              ? html`<td>
                ${
                  d.pendingSince !== null
                    ? html`${actionButton(`${devicePath(d.id)}/approve`, chrome.csrf, `Approve ${d.id}`)}
                      ${actionButton(`${devicePath(d.id)}/reject`, chrome.csrf, `Reject ${d.id}`)}`
                    : d.revokedAt === null
                      ? actionButton(`${devicePath(d.id)}/revoke`, chrome.csrf, `Revoke ${d.id}`)
                      : actionButton(`${devicePath(d.id)}/delete`, chrome.csrf, `Delete ${d.id}`)
                }
              </td>`
              : ''
          }
        </tr>`;
      })}
    </tbody>
  </table>`;
}

/** The one form the checkboxes belong to (their `form` attribute), with one csrf field. */
function bulkForm(csrf: string): Html {
  return html`<form method="post" action="/devices/bulk" id="bulk-devices">
    <fieldset>
      <legend>With the selected devices</legend>
      <input type="hidden" name="csrf" value="${csrf}" />
      <p>
        <label for="bulk-action">Action</label><br />
        <select id="bulk-action" name="action">
          <option value="approve">Approve (devices waiting for approval)</option>
          <option value="reject">Reject (devices waiting for approval: they are revoked)</option>
          <option value="revoke">Revoke</option>
          <option value="delete">Delete (revoked devices only, with their runs)</option>
          <option value="label">Set a label (key=value)</option>
          <option value="unlabel">Remove a label (key)</option>
          <option value="owner">Hand over, with their runs, to the owner below</option>
        </select>
      </p>
      <p>
        <label for="bulk-label">Label, for setting (key=value) or removing (key)</label><br />
        <input id="bulk-label" name="label" maxlength="127" placeholder="site=berlin" />
      </p>
      <p>
        <label for="bulk-owner">Owner, for handing over (an account subject, or group:&lt;name&gt;)</label><br />
        <input id="bulk-owner" name="owner" maxlength="262" placeholder="group:support" />
      </p>
      <p>
        <button type="submit">Apply to selected devices</button>
      </p>
    </fieldset>
  </form>`;
}

/**
 * Asks every device the list's filters match for a run (docs/contract.md section 15): the filters
 * ride along as hidden fields with `match=filter`, so the ask reaches what the list shows, on
 * every page of it. The most private level is selected: no device's ceiling refuses it.
 */
/*
 * Not offered on the list of devices of disabled accounts (owner_disabled): a collection is asked
 * by the filters of COLLECTION_FILTERS, and that one is not among them.
 */
function requestForm(csrf: string, q: DeviceQuery, reach: number): Html | string {
  if (reach === 0) return '';
  const filtered = COLLECTION_FILTERS.some((name) => valuesOf(q, name).length > 0);
  if (reach > MAX_TARGETS)
    return html`<p>
      More than ${String(MAX_TARGETS)} devices ${filtered ? 'match these filters' : 'are listed'}: a collection
      reaches at most ${String(MAX_TARGETS)}. Filter the list to request a run from some of them.
    </p>`;
  const devices = `${reach} device${reach === 1 ? '' : 's'}`;
  return html`<form method="post" action="/collections">
    <fieldset>
      <legend>
        Request a run from every device ${filtered ? 'matching these filters' : 'in this list'}: ${devices}
      </legend>
      <input type="hidden" name="csrf" value="${csrf}" />
      <input type="hidden" name="match" value="filter" />
      ${COLLECTION_FILTERS.map((name) =>
        valuesOf(q, name).map((value) => html`<input type="hidden" name="${name}" value="${value}" />`),
      )}
      <p>
        Revoked devices, those waiting for approval, those whose privacy ceiling is more private than the level asked
        and those with 5 open requests are skipped.
      </p>
      ${requestFields({ idPrefix: 'request-', level: 'minimal' })}
      <p><button type="submit">Request a run from ${devices}</button></p>
    </fieldset>
  </form>`;
}
