/**
 * One account (docs/contract.md section 14), for administrators: who it is, the admin flag its
 * latest sign-in gave, whether its tokens still work, its live sessions, its tokens and its
 * devices, and the button that disables it (or enables it again). The break-glass account has no
 * such button: it cannot be disabled.
 */
import type { AccessToken } from '../domain/access_tokens.ts';
import type { AccountState } from '../domain/accounts.ts';
import type { Device } from '../domain/devices.ts';
import type { SessionRecord } from '../domain/sessions.ts';
import { time } from './format.ts';
import { html, type Html } from './html.ts';
import { actionButton, type Chrome, layout } from './layout.ts';
import { sessionsTable } from './sessions.ts';
import { tokenState, tokensUntil } from './access_tokens.ts';

export interface AccountView {
  account: AccountState;
  breakGlass: boolean;
  sessions: ReadonlyArray<SessionRecord & { current: boolean }>;
  tokens: readonly AccessToken[];
  moreTokens: boolean;
  devices: readonly Device[];
  moreDevices: boolean;
  signInMaxAgeMs: number;
  /** Its groups, by name (docs/contract.md section 19). */
  groups: readonly string[];
}

/** Each group, linked to its page. */
function groupLinks(groups: readonly string[]): Html | string {
  if (groups.length === 0) return 'none';
  return html`${groups.map((g, i) => html`${i > 0 ? ', ' : ''}<a href="/groups/${encodeURIComponent(g)}">${g}</a>`)}`;
}

/**
 * Disable, with where its devices go (docs/contract.md section 19): kept (counted on the
 * dashboard), one of its groups (offered first), or any owner typed in. The same form hands over
 * the devices of an account already disabled. It asks the confirmation page (GET, so no csrf:
 * docs/contract.md section 22), whose own form posts to the action.
 */
function disableForm(v: AccountView, path: string, label: string): Html {
  const id = 'hand-over-groups';
  return html`<form method="get" action="${path}/disable">
    <p>
      <label for="hand_over_to">Hand its devices and their runs over to (empty keeps them its own)</label><br />
      <input id="hand_over_to" name="hand_over_to" list="${id}" maxlength="262" placeholder="group:&lt;name&gt; or oidc:&lt;sub&gt;" />
      <datalist id="${id}">
        ${v.groups.map((g) => html`<option value="group:${g}"></option>`)}
      </datalist>
    </p>
    ${
      v.groups.length === 0
        ? ''
        : html`<p>
            Its groups: ${v.groups.map((g, i) => html`${i > 0 ? ', ' : ''}<code>group:${g}</code>`)}.
          </p>`
    }
    <p><button type="submit">${label}</button></p>
  </form>`;
}

export function accountPage(chrome: Chrome, v: AccountView): Html {
  const { account: a } = v;
  const path = `/accounts/${encodeURIComponent(a.subject)}`;
  return layout(
    `Account ${a.display}`,
    chrome,
    html`<dl>
        <dt>Subject</dt>
        <dd><code>${a.subject}</code></dd>
        <dt>Latest sign-in</dt>
        <dd>${time(a.lastSignInAt, chrome.now)}</dd>
        <dt>Administrator</dt>
        <dd>${a.admin ? 'yes' : 'no'} (as its latest sign-in set it; its tokens act with this)</dd>
        <dt>State</dt>
        <dd>${a.disabledAt === null ? 'enabled' : html`disabled ${time(a.disabledAt, chrome.now)}`}</dd>
        <dt>Its tokens</dt>
        <dd>${a.disabledAt === null ? tokensUntil(a, v.signInMaxAgeMs, chrome.now) : 'refused: the account is disabled'}</dd>
        <dt>Groups</dt>
        <dd>${groupLinks(v.groups)}</dd>
      </dl>
      ${
        v.breakGlass
          ? html`<p>This is the break-glass account: it cannot be disabled.</p>`
          : a.disabledAt === null
            ? html`<p>
                  Disabling ends its sessions at once and refuses its tokens and its sign-in, by either
                  method, until it is enabled again. Its devices are never deleted: they stay its own
                  unless you hand them over.
                </p>
                ${disableForm(v, path, `Disable ${a.display}…`)}`
            : html`${actionButton(`${path}/enable`, chrome.csrf, `Enable ${a.display}`)}
              ${v.devices.length > 0 ? disableForm(v, path, 'Hand its devices over…') : ''}`
      }
      <h2>Sessions</h2>
      ${
        v.sessions.length === 0
          ? html`<p>No live sessions.</p>`
          : sessionsTable(v.sessions, chrome, { caption: `Sessions of ${a.display}`, endable: false })
      }
      <h2>Access tokens</h2>
      ${
        v.tokens.length === 0
          ? html`<p>No tokens.</p>`
          : html`<table>
              <caption>
                Access tokens of ${a.display}, newest first
              </caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Token id</th>
                  <th scope="col">Scope</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Last use</th>
                  <th scope="col">State</th>
                </tr>
              </thead>
              <tbody>
                ${v.tokens.map(
                  (t) =>
                    html`<tr>
                      <td>${t.name}</td>
                      <td><code>${t.publicId}</code></td>
                      <td>${t.scope}</td>
                      <td>${time(t.expiresAt, chrome.now)}</td>
                      <td>
                        ${time(t.lastUsedAt, chrome.now)}${t.lastUsedClient === null ? '' : ` from ${t.lastUsedClient}`}
                      </td>
                      <td>${tokenState(t, chrome.now)}</td>
                    </tr> `,
                )}
              </tbody>
            </table>`
      }
      ${v.moreTokens ? html`<p>Only the newest ${v.tokens.length} tokens are shown.</p>` : ''}
      <h2>Devices</h2>
      ${
        v.devices.length === 0
          ? html`<p>No devices.</p>`
          : html`<ul>
              ${v.devices.map(
                (d) =>
                  html`<li><a href="/devices/${encodeURIComponent(d.id)}">${d.name}</a> (<code>${d.id}</code>)</li>`,
              )}
            </ul>`
      }
      ${
        v.moreDevices
          ? html`<p><a href="/devices?owner=${encodeURIComponent(a.subject)}">All devices of ${a.display}</a></p>`
          : ''
      }`,
  );
}
