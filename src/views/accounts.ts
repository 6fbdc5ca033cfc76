/** The accounts page: each account that signed in, what it owns, linked to its page and its devices. */
import type { AccountSummary } from '../domain/accounts.ts';
import type { Page } from '../domain/paging.ts';
import type { ScimPage, ScimUser } from '../domain/scim.ts';
import { time } from './format.ts';
import { html } from './html.ts';
import { type Chrome, layout } from './layout.ts';
import { ACCOUNTS } from '../lists/pages.ts';
import { filterAlert, type FilterError, listRange, type ListTotal, olderQuery } from './list_parts.ts';

/** "1 device", "3 devices". */
function count(n: number): string {
  return `${n} device${n === 1 ? '' : 's'}`;
}

const ACCOUNT_ROWS = { one: 'account', many: 'accounts' };

/** How many provisioned users, not signed in yet, the first page lists. */
export const PROVISIONED_SHOWN = 50;

/** The page; with `error`, the page cursor was refused (docs/contract.md section 22): the alert, and no accounts. */
export function accountsPage(
  chrome: Chrome,
  opts: {
    page: Page<AccountSummary>;
    first: boolean;
    provisioned?: ScimPage<ScimUser> | undefined;
    /** How many accounts the list holds, and the position of the page's first row (docs/contract.md section 22). */
    total?: ListTotal | undefined;
    from?: number | undefined;
    error?: FilterError | undefined;
  },
) {
  const { items, next } = opts.page;
  const { range, counted } = listRange(ACCOUNT_ROWS, items.length, opts.from, opts.total, chrome.now);
  const older = opts.from === undefined ? undefined : opts.from + items.length;
  return layout(
    'Accounts',
    chrome,
    html`${
      opts.error === undefined
        ? html`<p>
            ${items.length === 0 ? 'No accounts' : range} that signed in, most recent sign-in
            first.${items.length === 0 ? '' : counted}
          </p>`
        : filterAlert(ACCOUNTS, opts.error, { admin: true })
    }
      ${
        items.length === 0
          ? ''
          : html`<table>
              <caption>
                Accounts
              </caption>
              <thead>
                <tr>
                  <th scope="col">Account</th>
                  <th scope="col">Subject</th>
                  <th scope="col">Last sign-in</th>
                  <th scope="col">State</th>
                  <th scope="col">Devices</th>
                  <th scope="col">Runs</th>
                </tr>
              </thead>
              <tbody>
                ${items.map(
                  (a) =>
                    html`<tr>
                      <td><a href="/accounts/${encodeURIComponent(a.subject)}">${a.display}</a></td>
                      <td><code>${a.subject}</code></td>
                      <td>${time(a.lastSignInAt, chrome.now)}</td>
                      <td>${a.disabledAt === null ? (a.admin ? 'administrator' : 'enabled') : 'disabled'}</td>
                      <td>
                        <a
                          href="/devices?owner=${encodeURIComponent(a.subject)}"
                          aria-label="${count(a.devices)} of ${a.display}"
                          >${count(a.devices)}</a
                        >
                      </td>
                      <td>${a.runs}</td>
                    </tr> `,
                )}
              </tbody>
            </table>`
      }
      ${next ? html`<p><a href="/accounts${olderQuery(ACCOUNTS, {}, next, older)}">Earlier sign-ins</a></p>` : ''}
      ${opts.first ? '' : html`<p><a href="/accounts">Most recent sign-ins</a></p>`}
      ${opts.provisioned && opts.provisioned.total > 0 ? provisionedTable(opts.provisioned, chrome.now) : ''}`,
  );
}

/**
 * Users the identity provider provisioned over SCIM that have not signed in yet (docs/contract.md
 * section 20): each becomes an account at its first OIDC sign-in.
 */
function provisionedTable(provisioned: ScimPage<ScimUser>, now: number) {
  const { items, total } = provisioned;
  return html`<table id="provisioned">
      <caption>
        Provisioned, not signed in (${String(total)})
      </caption>
      <thead>
        <tr>
          <th scope="col">User name</th>
          <th scope="col">Display name</th>
          <th scope="col">State</th>
          <th scope="col">Provisioned</th>
        </tr>
      </thead>
      <tbody>
        ${items.map(
          (u) =>
            html`<tr>
              <td><code>${u.userName}</code></td>
              <td>${u.displayName ?? ''}</td>
              <td>${u.active ? 'active' : 'inactive'}</td>
              <td>${time(u.createdAt, now)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    ${total > items.length ? html`<p>and ${String(total - items.length)} more, by user name.</p>` : ''}`;
}
