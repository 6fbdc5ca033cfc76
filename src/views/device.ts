/** The device page (docs/contract.md section 9): what an operator asks about one device, its runs and actions. */
import { deviceStatus, type LabelledDevice } from '../domain/devices.ts';
import type { Page } from '../domain/paging.ts';
import type { RunSummary } from '../domain/runs.ts';
import { listQueryString } from '../lists/parameters.ts';
import { DEVICE_RUNS } from '../lists/pages.ts';
import { size, time } from './format.ts';
import { html, type Html } from './html.ts';
import { actionButton, type Chrome, layout } from './layout.ts';
import { devicePath } from './devices.ts';
import { bulkForm, runsTable } from './runs.ts';
import { labelsField, labelsShown } from './labels.ts';
import { factsSection } from './facts.ts';
import { credentialSection } from './credential.ts';
import type { CredentialState } from '../domain/credentials.ts';
import { levelsWithin, requestFields } from './collection_form.ts';
import { filterAlert, type FilterError } from './list_parts.ts';
import { fieldAria, fieldMessage, messageFor, type Refused, refusedAlert, sentValue } from './form_errors.ts';

const statusText = {
  active: 'active: it has called Paddock recently',
  stale: 'stale: it has not called Paddock for a while',
  pending: 'pending: it waits for an administrator to approve or reject it; until then it may only report its facts',
  revoked: 'revoked: its credential is refused',
} as const;
/** A device that waits after a reused credential may not even report its facts (docs/contract.md section 16). */
const REUSED_TEXT = 'pending: it waits for an administrator to approve or reject it; until then it reaches nothing';

export function devicePage(
  chrome: Chrome,
  opts: {
    device: LabelledDevice;
    storedBytes: number;
    runs: Page<RunSummary>;
    before: string | undefined;
    staleBefore: number;
    /** When its credential was issued and rotated (docs/contract.md section 16). */
    credential?: CredentialState | undefined;
    /** The runs' page cursor was refused (docs/contract.md section 22): the alert, and no runs. */
    error?: FilterError | undefined;
    /** A rename, labels or hand-over form was (section 22): the alert, and that form as sent. */
    refused?: Refused | undefined;
  },
) {
  const d = opts.device;
  const status = deviceStatus(d, opts.staleBefore);
  const path = devicePath(d.id);
  const { items, next } = opts.runs;
  return layout(
    `Device ${d.name}`,
    chrome,
    html`${opts.refused === undefined ? '' : refusedAlert('Nothing was changed', opts.refused.error, ACTION_LABELS)}
      <dl>
        <dt>Device id</dt>
        <dd><code>${d.id}</code></dd>
        <dt>Name</dt>
        <dd>${d.name}</dd>
        <dt>Owner</dt>
        <dd>${d.owner}</dd>
        <dt>Status</dt>
        <dd>${d.pendingReason === null ? statusText[status] : REUSED_TEXT}${d.revokedAt === null ? '' : html` (revoked ${time(d.revokedAt, chrome.now)})`}</dd>
        ${d.pendingReason === null ? '' : pendingReason(d.pendingReason, d.pendingSince, chrome.now)}
        <dt>Enrolled</dt>
        <dd>${time(d.enrolledAt, chrome.now)}${d.enrolledBy ? html`, with a token minted by ${d.enrolledBy}` : ''}</dd>
        ${
          // Who is asking to be let in (docs/contract.md section 22): the address, as the server saw it.
          d.enrolledFrom === null ? '' : html`<dt>Enrolled from</dt><dd><code>${d.enrolledFrom}</code></dd>`
        }
        <dt>Enrollment note</dt>
        <dd>${d.enrollNote || 'none'}</dd>
        <dt>Last seen</dt>
        <dd>${time(d.lastSeenAt, chrome.now)}</dd>
        <dt>Last upload</dt>
        <dd>${time(d.lastUploadAt, chrome.now)}</dd>
        <dt>Stored</dt>
        <dd>${size(opts.storedBytes)} in its runs</dd>
        <dt>Privacy ceiling</dt>
        <dd>${d.maxPrivacy}: the most revealing level this device may upload at</dd>
        <dt>Labels</dt>
        <dd>${labelsShown(d.labels)}</dd>
      </dl>
      ${factsSection(d.facts, d.factsReportedAt, chrome.now)}
      ${credentialSection(opts.credential, d.revokedAt !== null, chrome.now)}
      <h2>Actions</h2>
      ${actions(chrome, d, path, opts.refused)}
      <h2>Request a run</h2>
      ${requestForm(chrome, d)}
      <h2>Runs</h2>
      ${opts.error === undefined ? '' : filterAlert(DEVICE_RUNS, opts.error, { admin: chrome.session.admin })}
      ${opts.error === undefined && items.length > 0 ? bulkForm(chrome.csrf, 'bulk-device-runs') : ''}
      ${opts.error !== undefined ? '' : items.length === 0 ? html`<p>No runs${opts.before === undefined ? '' : ' older than these'}.</p>` : runsTable(chrome, items, 'bulk-device-runs')}
      ${next ? html`<p><a href="${path}${listQueryString(DEVICE_RUNS, {}, next)}">Older runs</a></p>` : ''}
      ${opts.before === undefined ? '' : html`<p><a href="${path}">Newest runs</a></p>`}`,
  );
}

/** The action forms' fields by name, as the alert above a refused one names them. */
const ACTION_LABELS: Readonly<Record<string, string>> = { name: 'New name', labels: 'Labels', owner: 'Hand over to' };

/** The actions; a `refused` form shows what it sent, and the message beside its field. */
function actions(chrome: Chrome, d: LabelledDevice, path: string, refused: Refused | undefined): Html {
  const admin = chrome.session.admin;
  // Only the refused form is filled in as sent; the others show the device as it is.
  const sent = (name: string) => (messageFor(refused, name) === undefined ? undefined : refused);
  const nameError = messageFor(refused, 'name');
  const labelsError = messageFor(refused, 'labels');
  return html`<form method="post" action="${path}/rename">
      <input type="hidden" name="csrf" value="${chrome.csrf}" />
      <p>
        <label for="name">New name</label><br />
        <input id="name" name="name" value="${sentValue(sent('name'), 'name', d.name)}" required maxlength="128"${fieldAria('name', nameError)} />
        <button type="submit">Rename</button>${fieldMessage('name', nameError)}
      </p>
    </form>
    <form method="post" action="${path}/labels">
      <input type="hidden" name="csrf" value="${chrome.csrf}" />
      ${labelsField('labels', labelsError === undefined ? d.labels : sentValue(refused, 'labels'), 'Labels (the new set replaces the old)', labelsError)}
      <p><button type="submit">Save labels</button></p>
    </form>
    ${admin && d.pendingSince !== null ? approvalButtons(chrome, path) : ''}
    ${admin ? ownerForm(chrome.csrf, d, path, sent('owner')) : ''}
    ${admin && d.revokedAt === null ? actionButton(`${path}/rotate`, chrome.csrf, 'Ask this device to rotate its credential') : ''}
    ${admin && d.revokedAt === null ? html`<p><a href="${path}/revoke">Revoke this device…</a></p>` : ''}
    ${admin && d.revokedAt !== null ? html`<p><a href="${path}/delete">Delete this device and its runs…</a></p>` : ''}
    ${
      admin
        ? html`<p><a href="/audit?device=${encodeURIComponent(d.id)}">This device in the audit trail</a></p>`
        : html`<p>Revoking and deleting devices is for administrators.</p>`
    }`;
}

/** Hands the device over (docs/contract.md section 19): to an account's subject or a group, runs and all. */
function ownerForm(csrf: string, d: LabelledDevice, path: string, refused: Refused | undefined): Html {
  const error = messageFor(refused, 'owner');
  return html`<form method="post" action="${path}/owner">
    <input type="hidden" name="csrf" value="${csrf}" />
    <p>
      <label for="owner">Hand over to (an account subject such as oidc:&lt;sub&gt;, or group:&lt;name&gt;)</label><br />
      <input id="owner" name="owner" value="${sentValue(refused, 'owner', d.owner)}" required maxlength="262"${fieldAria('owner', error)} />
      <button type="submit">Hand over this device and its runs</button>${fieldMessage('owner', error)}
    </p>
  </form>`;
}

/**
 * Why a device waits, when not since its enrollment (docs/contract.md section 16, reuse is theft),
 * and what each answer does to the two copies of its credential.
 */
function pendingReason(reason: string, since: number | null, now: number): Html {
  return html`<dt>Pending because</dt>
    <dd>
      <strong>${reason}</strong> ${time(since, now)}: a credential that a rotation of this device replaced was
      presented again after its overlap, so a copy of it is in other hands. Neither copy reaches anything, its
      facts included. Approving keeps the credential the device holds now (the copy that rotated last) and
      refuses the replaced one; should a replaced one be presented again, the device waits again. Reject when
      you cannot tell which copy is the device's: it is revoked and must be enrolled again.
    </dd>`;
}

/**
 * Approve or reject a pending device (docs/contract.md section 16): a rejected one is revoked, so
 * rejecting goes through its confirmation page (section 22); approving is one click.
 */
function approvalButtons(chrome: Chrome, path: string): Html {
  return html`${actionButton(`${path}/approve`, chrome.csrf, 'Approve this device')}
    <p><a href="${path}/reject">Reject this device (it is revoked)…</a></p>`;
}

/**
 * Asks this device for a run (docs/contract.md section 15): at its privacy ceiling or a more
 * private level, the ceiling selected; a more revealing one would only be skipped.
 */
function requestForm(chrome: Chrome, d: LabelledDevice): Html {
  if (d.revokedAt !== null) return html`<p>A revoked device takes no requests.</p>`;
  if (d.pendingSince !== null) return html`<p>A device waiting for approval takes no requests.</p>`;
  return html`<form method="post" action="/collections">
    <input type="hidden" name="csrf" value="${chrome.csrf}" />
    <input type="hidden" name="device" value="${d.id}" />
    <p>The device fetches the request when it next asks Paddock, and answers with a run or declines.</p>
    ${requestFields({ idPrefix: 'request-', levels: levelsWithin(d.maxPrivacy), level: d.maxPrivacy })}
    <p><button type="submit">Request a run</button></p>
  </form>`;
}
