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
import { time } from './format.ts';
import { html } from './html.ts';
import { actionButton, type Chrome, layout } from './layout.ts';
import { listQueryString } from '../lists/parameters.ts';
import { ACCESS_TOKENS } from '../lists/pages.ts';

function state(t: AccessToken, now: number): string {
  if (t.revokedAt !== null) return 'revoked';
  return t.expiresAt <= now ? 'expired' : 'active';
}

export function accessTokensPage(chrome: Chrome, opts: { page: Page<AccessToken>; first: boolean }) {
  const { items, next } = opts.page;
  return layout(
    'Access tokens',
    chrome,
    html`<p>
        Personal access tokens let scripts use the API with your rights as they were when the token was
        created. ${items.length === 0 ? 'You have no tokens.' : 'Your tokens, newest first.'}
      </p>
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
                  <th scope="col">Created</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Last use</th>
                  <th scope="col">State</th>
                  <th scope="col">Action</th>
                </tr>
              </thead>
              <tbody>
                ${items.map((t) => {
                  const s = state(t, chrome.now);
                  return html`<tr>
                    <td>${t.name}</td>
                    <td><code>${t.publicId}</code></td>
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
        <p><button type="submit">Create token</button></p>
      </form>`,
  );
}
