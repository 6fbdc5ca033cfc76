/**
 * The personal access tokens page (docs/contract.md section 11): the account's tokens (name, created,
 * expires, last use), each live one with a revoke button, and the create form. No token value is
 * ever on it: tokens are stored only as hashes and named here by their public id.
 */
import {
  ACCESS_EXPIRES_IN_DEFAULT,
  ACCESS_EXPIRES_IN_MAX,
  ACCESS_EXPIRES_IN_MIN,
  type AccessToken,
} from '../domain/access_tokens.ts';
import type { Page } from '../domain/paging.ts';
import type { AccountState } from '../domain/accounts.ts';
import { time } from './format.ts';
import { html, type Html } from './html.ts';
import { actionButton, type Chrome, layout } from './layout.ts';
import { listQueryString } from '../lists/parameters.ts';
import { ACCESS_TOKENS } from '../lists/pages.ts';
import { filterAlert, type FilterError } from './list_parts.ts';
import {
  fieldAria,
  fieldMessage,
  messageFor,
  type Refused,
  refusedAlert,
  selectOptions,
  sentValue,
} from './form_errors.ts';

export function tokenState(t: AccessToken, now: number): string {
  if (t.revokedAt !== null) return 'revoked';
  return t.expiresAt <= now ? 'expired' : 'active';
}

/**
 * Until when an account's tokens work (docs/contract.md section 14): an OIDC account's tokens are
 * refused once its latest sign-in is older than PADDOCK_ACCOUNT_SIGNIN_MAX_AGE.
 */
export function tokensUntil(account: AccountState | undefined, maxAgeMs: number, now: number): Html | string {
  if (account === undefined) return 'refused: the account has never signed in';
  if (!account.subject.startsWith('oidc:')) return 'working (the break-glass account needs no recent sign-in)';
  const until = account.lastSignInAt + maxAgeMs;
  return until < now
    ? html`refused since ${time(until, now)}: the latest sign-in is older than ${days(maxAgeMs)}; signing in again restores them`
    : html`working until ${time(until, now)}, ${days(maxAgeMs)} after the latest sign-in; each sign-in moves this on`;
}

function days(ms: number): string {
  const d = ms / 86_400_000;
  return Number.isInteger(d) ? `${d} day${d === 1 ? '' : 's'}` : `${Math.round(ms / 60_000)} minutes`;
}

/** The create form's fields by name, as the alert above a refused form names them. */
const CREATE_LABELS: Readonly<Record<string, string>> = { name: 'Name', expires_in: 'Expires in', scope: 'Scope' };

/**
 * The page. With `error`, the page cursor was refused: the alert, and no tokens. With `refused`,
 * a create was (docs/contract.md section 22): the alert, and the form filled in as sent.
 */
export function accessTokensPage(
  chrome: Chrome,
  opts: {
    page: Page<AccessToken>;
    first: boolean;
    account: AccountState | undefined;
    signInMaxAgeMs: number;
    /** This page's own path and query, which its revoke buttons carry as `return` (docs/contract.md section 22). */
    here?: string | undefined;
    error?: FilterError | undefined;
    refused?: Refused | undefined;
  },
) {
  const { items, next } = opts.page;
  return layout(
    'Access tokens',
    chrome,
    html`${opts.refused === undefined ? '' : refusedAlert('No token was created', opts.refused.error, CREATE_LABELS)}
      ${opts.error === undefined ? '' : filterAlert(ACCESS_TOKENS, opts.error, { admin: chrome.session.admin })}
      <p>
        Personal access tokens let scripts use the API as your account: with the administrator right
        your latest sign-in gave you, within the token's scope (<code>read</code> tokens cannot change
        anything). ${opts.error !== undefined ? '' : items.length === 0 ? 'You have no tokens.' : 'Your tokens, newest first.'}
      </p>
      <p id="tokens-until">Your tokens: ${tokensUntil(opts.account, opts.signInMaxAgeMs, chrome.now)}.</p>
      ${
        items.length === 0
          ? ''
          : html`<table>
              <caption>
                Your access tokens
              </caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Token id</th>
                  <th scope="col">Scope</th>
                  <th scope="col">Created</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Last use</th>
                  <th scope="col">State</th>
                  <th scope="col">Action</th>
                </tr>
              </thead>
              <tbody>
                ${items.map((t) => {
                  const s = tokenState(t, chrome.now);
                  return html`<tr>
                    <td>${t.name}</td>
                    <td><code>${t.publicId}</code></td>
                    <td>${t.scope}</td>
                    <td>${time(t.createdAt, chrome.now)}</td>
                    <td>${time(t.expiresAt, chrome.now)}</td>
                    <td>
                      ${time(t.lastUsedAt, chrome.now)}${t.lastUsedClient === null ? '' : ` from ${t.lastUsedClient}`}
                    </td>
                    <td>${s}</td>
                    <td>
                      ${
                        s === 'active'
                          ? actionButton(
                              `/tokens/${encodeURIComponent(t.publicId)}/revoke`,
                              chrome.csrf,
                              `Revoke ${t.name}`,
                              opts.here,
                            )
                          : ''
                      }
                    </td>
                  </tr> `;
                })}
              </tbody>
            </table>`
      }
      ${next ? html`<p><a href="/tokens${listQueryString(ACCESS_TOKENS, {}, next)}">Older tokens</a></p>` : ''}
      ${opts.first ? '' : html`<p><a href="/tokens">Newest tokens</a></p>`}
      ${createForm(chrome, opts.refused)}`,
  );
}

/**
 * The create form: empty, or with `refused` every field as sent and the message beside the one at
 * fault. Expires in is a text field with a numeric keyboard: a number field would hide a value
 * sent that is not a number.
 */
function createForm(chrome: Chrome, refused: Refused | undefined): Html {
  const at = (name: string) => messageFor(refused, name);
  const scopes: Array<readonly [string, string]> = [
    ['write', 'write: may do whatever your account may'],
    ['read', 'read: may only read; every change is refused'],
    ...(chrome.session.admin
      ? [['scim', "scim: for the identity provider's provisioning, only under /scim/v2"] as const]
      : []),
  ];
  return html`<h2>Create a token</h2>
    <form method="post" action="/tokens">
      <input type="hidden" name="csrf" value="${chrome.csrf}" />
      <p>
        <label for="name">Name (1 to 64 characters)</label><br />
        <input id="name" name="name" required maxlength="64" value="${sentValue(refused, 'name')}"${fieldAria('name', at('name'))} />${fieldMessage('name', at('name'))}
      </p>
      <p>
        <label for="expires_in"
          >Expires in, seconds (${String(ACCESS_EXPIRES_IN_MIN)} to ${String(ACCESS_EXPIRES_IN_MAX)}; empty:
          ${String(ACCESS_EXPIRES_IN_DEFAULT)})</label
        ><br />
        <input
          id="expires_in"
          name="expires_in"
          inputmode="numeric"
          size="10"
          value="${sentValue(refused, 'expires_in')}"${fieldAria('expires_in', at('expires_in'))}
        />${fieldMessage('expires_in', at('expires_in'))}
      </p>
      <p>
        <label for="scope">Scope</label><br />
        <select id="scope" name="scope"${fieldAria('scope', at('scope'))}>
          ${selectOptions(scopes, sentValue(refused, 'scope') || 'write')}
        </select>${fieldMessage('scope', at('scope'))}
      </p>
      <p><button type="submit">Create token</button></p>
    </form>`;
}
