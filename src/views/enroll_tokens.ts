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
import { ENROLL_TOKENS } from '../lists/pages.ts';
import { labelsField, labelsShown } from './labels.ts';
import { filterAlert, type FilterError, listRange, type ListTotal, olderQuery } from './list_parts.ts';
import {
  fieldAria,
  fieldMessage,
  messageFor,
  type Refused,
  refusedAlert,
  selectOptions,
  sentValue,
} from './form_errors.ts';

/** The mint form's fields by name, as the alert above a refused form names them. */
const MINT_LABELS: Readonly<Record<string, string>> = {
  owner: 'Owner',
  expires_in: 'Expires in',
  uses: 'Uses',
  name: 'Device name',
  note: 'Note',
  max_privacy: 'Privacy ceiling',
  labels: 'Labels',
  approval: 'Approval required',
};

/** Outstanding tokens: "Outstanding tokens 1–50 of 312". */
const TOKEN_ROWS = { one: 'outstanding token', many: 'outstanding tokens' };

/**
 * The page. With `error`, the page cursor was refused: the alert, and no tokens. With `refused`,
 * a mint was (docs/contract.md section 22): the alert, and the form filled in as sent.
 */
export function enrollTokensPage(
  chrome: Chrome,
  opts: {
    page: Page<EnrollToken>;
    accounts: Account[];
    first: boolean;
    defaultTtlSeconds: number;
    /** How many tokens are outstanding, and the position of the page's first row (docs/contract.md section 22). */
    total?: ListTotal | undefined;
    from?: number | undefined;
    /** This page's own path and query, which its revoke buttons carry as `return`. */
    here?: string | undefined;
    error?: FilterError | undefined;
    refused?: Refused | undefined;
  },
) {
  const { items, next } = opts.page;
  const { range, counted } = listRange(TOKEN_ROWS, items.length, opts.from, opts.total, chrome.now);
  const older = opts.from === undefined ? undefined : opts.from + items.length;
  return layout(
    'Enrollment tokens',
    chrome,
    html`${opts.refused === undefined ? '' : refusedAlert('No link was minted', opts.refused.error, MINT_LABELS)}
      ${
        opts.error === undefined
          ? html`<p>
              ${items.length === 0 ? 'No outstanding tokens' : range}, newest first: tokens with uses left that have not
              expired and are not revoked.${items.length === 0 ? '' : counted}
            </p>`
          : filterAlert(ENROLL_TOKENS, opts.error, { admin: true })
      }
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
                        ${actionButton(
                          `/enroll-tokens/${encodeURIComponent(t.publicId)}/revoke`,
                          chrome.csrf,
                          `Revoke ${t.publicId}`,
                          opts.here,
                        )}
                      </td>
                    </tr> `,
                )}
              </tbody>
            </table>`
      }
      ${next ? html`<p><a href="/enroll-tokens${olderQuery(ENROLL_TOKENS, {}, next, older)}">Older tokens</a></p>` : ''}
      ${opts.first ? '' : html`<p><a href="/enroll-tokens">Newest tokens</a></p>`}
      ${mintForm(chrome.csrf, opts.accounts, opts.defaultTtlSeconds, opts.refused)}`,
  );
}

/**
 * The mint form: empty, or with `refused` every field as sent and the message beside the one at
 * fault. Uses is a text field with a numeric keyboard: a number field would hide a value sent that
 * is not a number.
 */
function mintForm(csrf: string, accounts: Account[], defaultTtlSeconds: number, refused: Refused | undefined) {
  const value = (name: string) => sentValue(refused, name);
  const at = (name: string) => messageFor(refused, name);
  const input = (name: string) => html`${fieldAria(name, at(name))} value="${value(name)}"`;
  return html`<h2>Enroll a device</h2>
    <p>Every field is optional; an empty field takes the default shown.</p>
    <form method="post" action="/enroll-tokens">
      <input type="hidden" name="csrf" value="${csrf}" />
      <p>
        <label for="owner"
          >Owner (an account subject, or group:&lt;name&gt; for a group's members; empty means you)</label
        ><br />
        <input id="owner" name="owner" list="known-accounts" maxlength="262"${input('owner')} />${fieldMessage('owner', at('owner'))}
      </p>
      <datalist id="known-accounts">
        ${accounts.map((a) => html`<option value="${a.subject}">${a.display}</option>`)}
      </datalist>
      <p>
        <label for="expires_in">Expires in</label><br />
        <select id="expires_in" name="expires_in"${fieldAria('expires_in', at('expires_in'))}>
          ${selectOptions(
            lifetimes(defaultTtlSeconds).map(([seconds, text]) => [String(seconds), text] as const),
            value('expires_in') || String(defaultTtlSeconds),
          )}
        </select>${fieldMessage('expires_in', at('expires_in'))}
      </p>
      <p>
        <label for="uses">Uses: how many devices it enrolls (${String(USES_MIN)} to ${String(USES_MAX)}; empty: 1)</label
        ><br />
        <input id="uses" name="uses" inputmode="numeric" size="10"${input('uses')} />${fieldMessage('uses', at('uses'))}
      </p>
      <p>
        <label for="name">Device name (empty: the device names itself)</label><br />
        <input id="name" name="name" maxlength="128"${input('name')} />${fieldMessage('name', at('name'))}
      </p>
      <p>
        <label for="note">Note (at most ${String(NOTE_MAX)} characters)</label><br />
        <input id="note" name="note" maxlength="${String(NOTE_MAX)}" size="60"${input('note')} />${fieldMessage('note', at('note'))}
      </p>
      <p>
        <label for="max_privacy">Privacy ceiling</label><br />
        <select id="max_privacy" name="max_privacy"${fieldAria('max_privacy', at('max_privacy'))}>
          ${selectOptions(
            PRIVACY_LEVELS.map((level) => [level, level] as const),
            value('max_privacy') || PRIVACY_LEVELS[0],
          )}
        </select>${fieldMessage('max_privacy', at('max_privacy'))}
      </p>
      ${labelsField(
        'labels',
        value('labels'),
        'Labels every device it enrolls starts with (empty: none)',
        at('labels'),
      )}
      <p>
        ${
          value('approval') === 'required'
            ? html`<input id="approval" name="approval" type="checkbox" value="required" checked${fieldAria('approval', at('approval'))} />`
            : html`<input id="approval" name="approval" type="checkbox" value="required"${fieldAria('approval', at('approval'))} />`
        }
        <label for="approval"
          >Approval required: the devices it enrolls wait, pending, until an administrator approves them</label
        >${fieldMessage('approval', at('approval'))}
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
