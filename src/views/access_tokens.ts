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

export function accessTokensPage(
  chrome: Chrome,
  opts: { page: Page<AccessToken>; first: boolean; account: AccountState | undefined; signInMaxAgeMs: number },
) {
  const { items, next } = opts.page;
  return layout(
    'Access tokens',
    chrome,
    html`<p>
        Personal access tokens let scripts use the API as your account: with the administrator right
        your latest sign-in gave you, within the token's scope (<code>read</code> tokens cannot change
        anything). ${items.length === 0 ? 'You have no tokens.' : 'Your tokens, newest first.'}
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
      <h2>Create a token</h2>
      <form method="post" action="/tokens">
        <input type="hidden" name="csrf" value="${chrome.csrf}" />
        <p>
          <label for="name">Name (1 to 64 characters)</label><br />
          <input id="name" name="name" required maxlength="64" />
        </p>
        <p>
          <label for="expires_in"
            >Expires in, seconds (${String(ACCESS_EXPIRES_IN_MIN)} to ${String(ACCESS_EXPIRES_IN_MAX)}; empty:
            ${String(ACCESS_EXPIRES_IN_DEFAULT)})</label
          ><br />
          <input
            id="expires_in"
            name="expires_in"
            type="number"
            min="${String(ACCESS_EXPIRES_IN_MIN)}"
            max="${String(ACCESS_EXPIRES_IN_MAX)}"
            step="1"
          />
        </p>
        <p>
          <label for="scope">Scope</label><br />
          <select id="scope" name="scope">
            <option value="write" selected>write: may do whatever your account may</option>
            <option value="read">read: may only read; every change is refused</option>
            ${
              chrome.session.admin
                ? html`<option value="scim">scim: for the identity provider's provisioning, only under /scim/v2</option>`
                : ''
            }
          </select>
        </p>
        <p><button type="submit">Create token</button></p>
      </form>`,
  );
}
