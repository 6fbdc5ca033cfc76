/**
 * The enrollment tokens page (docs/contract.md section 9): the outstanding tokens, each with a revoke
 * button, and the mint form with every field. No token value is ever on it: tokens are stored
 * only as hashes and named here by their public id.
 */
import {
  EXPIRES_IN_MAX,
  EXPIRES_IN_MIN,
  NOTE_MAX,
  USES_MAX,
  USES_MIN,
  type EnrollToken,
} from '../domain/enroll_tokens.ts';
import { PRIVACY_LEVELS } from '../domain/privacy.ts';
import type { Account } from '../domain/accounts.ts';
import type { Page } from '../domain/paging.ts';
import { time } from './format.ts';
import { html } from './html.ts';
import { actionButton, type Chrome, layout } from './layout.ts';
import { listQueryString } from '../lists/parameters.ts';
import { ENROLL_TOKENS } from '../lists/pages.ts';
import { labelsField, labelsShown } from './labels.ts';

export function enrollTokensPage(
  chrome: Chrome,
  opts: { page: Page<EnrollToken>; accounts: Account[]; first: boolean; defaultTtlSeconds: number },
) {
  const { items, next } = opts.page;
  return layout(
    'Enrollment tokens',
    chrome,
    html`<p>
        ${items.length === 0 ? 'No outstanding tokens' : `Showing ${items.length} outstanding token${items.length === 1 ? '' : 's'}`},
        newest first: tokens with uses left that have not expired and are not revoked.
      </p>
      ${
        items.length === 0
          ? ''
          : html`<table>
              <caption>
                Outstanding enrollment tokens
              </caption>
              <thead>
                <tr>
                  <th scope="col">Token</th>
                  <th scope="col">Owner</th>
                  <th scope="col">Created by</th>
                  <th scope="col">Created</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Uses left</th>
                  <th scope="col">Note</th>
                  <th scope="col">Device name</th>
                  <th scope="col">Privacy ceiling</th>
                  <th scope="col">Labels</th>
                  <th scope="col">Approval</th>
                  <th scope="col">Action</th>
                </tr>
              </thead>
              <tbody>
                ${items.map(
                  (t) =>
                    html`<tr>
                      <td><code>${t.publicId}</code></td>
                      <td>${t.owner}</td>
                      <td>${t.createdBy}</td>
                      <td>${time(t.createdAt, chrome.now)}</td>
                      <td>${time(t.expiresAt, chrome.now)}</td>
                      <td>${`${t.usesLeft} of ${t.uses}`}</td>
                      <td>${t.note}</td>
                      <td>${t.name === '' ? 'chosen by the device' : t.name}</td>
                      <td>${t.maxPrivacy}</td>
                      <td>${labelsShown(t.labels)}</td>
                      <td>${t.approval === 'required' ? 'required: devices wait' : 'automatic'}</td>
                      <td>
                        ${actionButton(`/enroll-tokens/${encodeURIComponent(t.publicId)}/revoke`, chrome.csrf, `Revoke ${t.publicId}`)}
                      </td>
                    </tr> `,
                )}
              </tbody>
            </table>`
      }
      ${next ? html`<p><a href="/enroll-tokens${listQueryString(ENROLL_TOKENS, {}, next)}">Older tokens</a></p>` : ''}
      ${opts.first ? '' : html`<p><a href="/enroll-tokens">Newest tokens</a></p>`}
      ${mintForm(chrome.csrf, opts.accounts, opts.defaultTtlSeconds)}`,
  );
}

function mintForm(csrf: string, accounts: Account[], defaultTtlSeconds: number) {
  return html`<h2>Enroll a device</h2>
    <p>Every field is optional; an empty field takes the default shown.</p>
    <form method="post" action="/enroll-tokens">
      <input type="hidden" name="csrf" value="${csrf}" />
      <p>
        <label for="owner"
          >Owner (an account subject, or group:&lt;name&gt; for a group's members; empty means you)</label
        ><br />
        <input id="owner" name="owner" list="known-accounts" maxlength="262" />
      </p>
      <datalist id="known-accounts">
        ${accounts.map((a) => html`<option value="${a.subject}">${a.display}</option>`)}
      </datalist>
      <p>
        <label for="expires_in">Expires in</label><br />
        <select id="expires_in" name="expires_in">
          ${lifetimes(defaultTtlSeconds).map(
            ([seconds, text]) =>
              html`<option value="${String(seconds)}" ${seconds === defaultTtlSeconds ? 'selected' : ''}>${text}</option>`,
          )}
        </select>
      </p>
      <p>
        <label for="uses">Uses: how many devices it enrolls (${String(USES_MIN)} to ${String(USES_MAX)}; empty: 1)</label
        ><br />
        <input id="uses" name="uses" type="number" min="${String(USES_MIN)}" max="${String(USES_MAX)}" step="1" />
      </p>
      <p>
        <label for="name">Device name (empty: the device names itself)</label><br />
        <input id="name" name="name" maxlength="128" />
      </p>
      <p>
        <label for="note">Note (at most ${String(NOTE_MAX)} characters)</label><br />
        <input id="note" name="note" maxlength="${String(NOTE_MAX)}" size="60" />
      </p>
      <p>
        <label for="max_privacy">Privacy ceiling</label><br />
        <select id="max_privacy" name="max_privacy">
          ${PRIVACY_LEVELS.map((level) => html`<option value="${level}">${level}</option>`)}
        </select>
      </p>
      ${labelsField('labels', {}, 'Labels every device it enrolls starts with (empty: none)')}
      <p>
        <input id="approval" name="approval" type="checkbox" value="required" />
        <label for="approval"
          >Approval required: the devices it enrolls wait, pending, until an administrator approves them</label
        >
      </p>
      <p><button type="submit">Mint enrollment link</button></p>
    </form>`;
}

/**
 * The lifetimes offered (docs/contract.md section 22: durations from 1 hour to 30 days, not seconds
 * typed in), with the server's default among them wherever it falls; the form still posts seconds.
 */
function lifetimes(defaultSeconds: number): Array<[number, string]> {
  const HOUR = 3_600;
  const DAY = 86_400;
  const offered: Array<[number, string]> = [
    [HOUR, '1 hour'],
    [4 * HOUR, '4 hours'],
    [DAY, '1 day'],
    [3 * DAY, '3 days'],
    [7 * DAY, '7 days'],
    [14 * DAY, '14 days'],
    [30 * DAY, '30 days'],
  ];
  if (
    defaultSeconds >= EXPIRES_IN_MIN &&
    defaultSeconds <= EXPIRES_IN_MAX &&
    !offered.some(([s]) => s === defaultSeconds)
  )
    offered.push([defaultSeconds, `${duration(defaultSeconds)} (the default)`]);
  return offered.sort((a, b) => a[0] - b[0]);
}

function duration(seconds: number): string {
  if (seconds % 86_400 === 0) return `${seconds / 86_400} days`;
  if (seconds % 3_600 === 0) return `${seconds / 3_600} hours`;
  return `${Math.round(seconds / 60)} minutes`;
}
