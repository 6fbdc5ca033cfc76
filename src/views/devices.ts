/**
 * The device list (docs/contract.md sections 9 and 22), laid out so the first row starts high on a
 * laptop's screen with the browser's own style: the common filters on one line and the others
 * folded, one line that says how many the list holds, the bulk form before the rows it acts on, and
 * a table that names each device by its name, linked, with its id beside. No row carries an
 * irreversible button: revoking, rejecting and deleting are links to their confirmation pages.
 */
import { type DeviceStatus, deviceStatus, isOnline, type LabelledDevice } from '../domain/devices.ts';
import type { Page } from '../domain/paging.ts';
import { type DeviceQuery, DEVICES } from '../lists/devices.ts';
import { listQueryString, valuesOf } from '../lists/parameters.ts';
import { COLLECTION_FILTERS } from '../lists/collections.ts';
import { MAX_TARGETS } from '../domain/collections.ts';
import { requestFields } from './collection_form.ts';
import { ago } from './ago.ts';
import { html, type Html } from './html.ts';
import { actionButton, type Chrome, layout } from './layout.ts';
import {
  count,
  filterAlert,
  type FilterError,
  filterSummary,
  type ListTotal,
  olderQuery,
  totalWords,
} from './list_parts.ts';
import { labelsShown } from './labels.ts';
import { deviceFilterForm } from './device_filters.ts';

export function devicePath(id: string): string {
  return `/devices/${encodeURIComponent(id)}`;
}

/** How many devices a list holds, when that was counted, and whether there are more than `n` (console/device_counts.ts). */
export type DeviceTotal = ListTotal;

export interface DevicesView {
  page: Page<LabelledDevice>;
  query: DeviceQuery;
  staleBefore: number;
  /** Devices seen since then are online (now − PADDOCK_ONLINE_WITHIN). */
  onlineSince: number;
  /** How many devices the list holds (console/device_counts.ts). */
  total: DeviceTotal;
  /** The position of the page's first row, when the link that led here said it (a later page). */
  from?: number | undefined;
  /** This page's own path and query: the forms' `return` (docs/contract.md section 22). */
  here: string;
}

export function devicesPage(chrome: Chrome, opts: DevicesView | { query: DeviceQuery; error: FilterError }) {
  const admin = chrome.session.admin;
  if ('error' in opts)
    return layout(
      'Devices',
      chrome,
      html`${filterAlert(DEVICES, opts.error, { admin })} ${deviceFilterForm(opts.query, admin, opts.error)}
        <p>No devices are shown until the filter is corrected.</p>`,
    );
  const { items } = opts.page;
  const q = opts.query;
  return layout(
    'Devices',
    chrome,
    html`${deviceFilterForm(q, admin)}
      <p>${summary(chrome, opts)}</p>
      ${admin && items.length > 0 ? bulkForm(chrome.csrf, opts.here) : ''}
      ${items.length === 0 ? '' : table(chrome, opts)} ${pagingLinks(opts)}
      ${q.owner_disabled === undefined && q.seen === undefined ? requestForm(chrome.csrf, q, opts.total) : ''}`,
  );
}

/** "1–50 of 12,345 devices that you own, matching “lab”, newest first." and how old the count is. */
function summary(chrome: Chrome, opts: DevicesView): Html | string {
  const { items } = opts.page;
  const q = opts.query;
  const { sort } = DEVICES.parameters;
  const scope = chrome.session.admin ? '' : ' that you own';
  const rest = `${filterSummary(DEVICES, q)}, ${sort.words[q.sort ?? sort.default]}.`;
  if (items.length === 0) return `No devices${scope}${rest}`;
  const total = opts.total;
  const first = opts.query.before === undefined ? 1 : opts.from;
  const last = first === undefined ? undefined : first + items.length - 1;
  const { of, counted } = totalWords(total, last ?? items.length, chrome.now);
  const range =
    first === undefined || last === undefined
      ? `${count(items.length)} older, of ${of}`
      : first === last
        ? `${count(first)} of ${of}`
        : `${count(first)}–${count(last)} of ${of}`;
  const devices = !total.more && Math.max(total.n, items.length) === 1 ? 'device' : 'devices';
  return html`${range} ${devices}${scope}${rest}${counted}`;
}

function pagingLinks(opts: DevicesView): Html | string {
  const q = opts.query;
  const { next, items } = opts.page;
  const first = q.before === undefined ? 1 : opts.from;
  const query =
    next === undefined ? '' : olderQuery(DEVICES, q, next, first === undefined ? undefined : first + items.length);
  const older = next === undefined ? '' : html`<a href="/devices${query}">Older devices</a>`;
  const newest =
    q.before === undefined ? '' : html`<a href="/devices${listQueryString(DEVICES, q)}">Newest devices</a>`;
  return older === '' && newest === '' ? '' : html`<p>${older} ${newest}</p>`;
}

/** A device's status as the list shows it: revoked (when), pending (why), online, offline or stale. */
function statusCell(status: DeviceStatus, d: LabelledDevice, onlineSince: number, now: number): Html | string {
  if (status === 'revoked') return html`revoked ${ago(d.revokedAt, now)}`;
  if (status === 'pending') return d.pendingReason === null ? 'pending' : `pending (${d.pendingReason})`;
  if (isOnline(d, onlineSince)) return 'online';
  return status === 'stale' ? 'offline, stale' : 'offline';
}

/** The operating system as the device reported it: `linux 6.1`. */
function osOf(d: LabelledDevice): string {
  return [d.facts.os, d.facts.os_version].filter((v) => v !== undefined && v !== '').join(' ');
}

function table(chrome: Chrome, opts: DevicesView): Html {
  const admin = chrome.session.admin;
  const { now } = chrome;
  return html`<table>
    <caption>
      Devices
    </caption>
    <thead>
      <tr>
        ${admin ? html`<th scope="col">Select</th>` : ''}
        <th scope="col">Device</th>
        <th scope="col">Status</th>
        <th scope="col">Last seen</th>
        <th scope="col">OS</th>
        <th scope="col">Client</th>
        <th scope="col">Owner</th>
        <th scope="col">Labels</th>
        <th scope="col">Last upload</th>
        ${admin ? html`<th scope="col">Action</th>` : ''}
      </tr>
    </thead>
    <tbody>
      ${opts.page.items.map((d) => {
        const status = deviceStatus(d, opts.staleBefore);
        return html`<tr>
          ${
            admin
              ? html`<td>
                <input type="checkbox" form="bulk-devices" name="device" value="${d.id}" aria-label="Select ${d.name} (${d.id})" />
              </td>`
              : ''
          }
          <th scope="row"><a href="${devicePath(d.id)}">${d.name}</a> <small><code>${d.id}</code></small></th>
          <td>${statusCell(status, d, opts.onlineSince, now)}</td>
          <td>${ago(d.lastSeenAt, now)}</td>
          <td>${osOf(d)}</td>
          <td>${d.facts.client_version ?? ''}</td>
          <td>${d.owner}</td>
          <td>${labelsShown(d.labels)}</td>
          <td>${ago(d.lastUploadAt, now)}</td>
          ${admin ? html`<td>${rowAction(chrome, d, opts.here)}</td>` : ''}
        </tr>`;
      })}
    </tbody>
  </table>`;
}

/**
 * What a row offers an administrator: approving at once (it can be revoked later), anything that
 * cannot be undone only as a link to its confirmation page, which brings the browser back here.
 */
function rowAction(chrome: Chrome, d: LabelledDevice, here: string): Html {
  const back = `?${new URLSearchParams({ return: here }).toString()}`;
  const path = devicePath(d.id);
  if (d.pendingSince !== null)
    return html`${actionButton(`${path}/approve`, chrome.csrf, `Approve ${d.name}`)}
      <a href="${path}/reject${back}">Reject…</a>`;
  if (d.revokedAt === null) return html`<a href="${path}/revoke${back}">Revoke…</a>`;
  return html`<a href="${path}/delete${back}">Delete…</a>`;
}

/**
 * The one form the checkboxes belong to (their `form` attribute), with one csrf field, before the
 * rows. It posts to the confirmation first (docs/contract.md section 22), with the fields and
 * values POST /devices/bulk takes.
 */
function bulkForm(csrf: string, here: string): Html {
  return html`<form method="post" action="/devices/bulk/confirm" id="bulk-devices">
    <p>
      <input type="hidden" name="csrf" value="${csrf}" /><input type="hidden" name="return" value="${here}" />
      <label for="bulk-action">With the selected devices</label>
      <select id="bulk-action" name="action">
        <option value="approve">Approve (devices waiting for approval)</option>
        <option value="reject">Reject (devices waiting for approval: they are revoked)</option>
        <option value="revoke">Revoke</option>
        <option value="delete">Delete (revoked devices only, with their runs)</option>
        <option value="label">Set a label (key=value)</option>
        <option value="unlabel">Remove a label (key)</option>
        <option value="owner">Hand over, with their runs, to the owner given</option>
      </select>
      <label for="bulk-label">Label (key=value, or key)</label>
      <input id="bulk-label" name="label" maxlength="127" size="14" placeholder="site=berlin" />
      <label for="bulk-owner">Owner (a subject, or group:&lt;name&gt;)</label>
      <input id="bulk-owner" name="owner" maxlength="262" size="14" placeholder="group:support" />
      <button type="submit">Apply to selected devices</button>
    </p>
  </form>`;
}

/**
 * Asks every device the list's filters match for a run (docs/contract.md section 15): the filters
 * ride along as hidden fields with `match=filter`, so the ask reaches what the list shows, on
 * every page of it, after its confirmation when it reaches more than one. The most private level
 * is selected: no device's ceiling refuses it. Not offered for filters a collection does not take
 * (`owner_disabled`, `seen`): it would reach other devices than the list shows.
 */
function requestForm(csrf: string, q: DeviceQuery, total: DeviceTotal): Html | string {
  if (total.n === 0) return '';
  const filtered = COLLECTION_FILTERS.some((name) => valuesOf(q, name).length > 0);
  if (!total.more && total.n > MAX_TARGETS)
    return html`<p>
      More than ${String(MAX_TARGETS)} devices ${filtered ? 'match these filters' : 'are listed'}: a collection
      reaches at most ${String(MAX_TARGETS)}. Filter the list to request a run from some of them.
    </p>`;
  const devices = total.more
    ? `more than ${count(total.n)} devices`
    : `${count(total.n)} device${total.n === 1 ? '' : 's'}`;
  const action = !total.more && total.n === 1 ? '/collections' : '/collections/confirm';
  return html`<form method="post" action="${action}">
    <fieldset>
      <legend>Request a run from every device ${filtered ? 'matching these filters' : 'in this list'}: ${devices}</legend>
      <input type="hidden" name="csrf" value="${csrf}" />
      <input type="hidden" name="match" value="filter" />
      ${COLLECTION_FILTERS.map((name) =>
        valuesOf(q, name).map((value) => html`<input type="hidden" name="${name}" value="${value}" />`),
      )}
      <p>
        Revoked devices, those waiting for approval, those whose privacy ceiling is more private than the level asked
        and those with 5 open requests are skipped.${total.more ? ` A collection reaches at most ${count(MAX_TARGETS)}.` : ''}
      </p>
      ${requestFields({ idPrefix: 'request-', level: 'minimal' })}
      <p><button type="submit">Request a run from ${devices}</button></p>
    </fieldset>
  </form>`;
}
