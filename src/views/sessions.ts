/**
 * The sessions page (docs/contract.md section 14): the account's live console sessions (started,
 * last seen, client address, browser), this one marked, each other one with an end button, and
 * one button that ends all the others. The account page (views/account.ts) shows the same table.
 */
import type { SessionRecord } from '../domain/sessions.ts';
import { time } from './format.ts';
import { html, type Html } from './html.ts';
import { actionButton, type Chrome, layout } from './layout.ts';

/**
 * A table of sessions; `endable` adds the end button to every one but the current, carrying `back`
 * as `return` when given (docs/contract.md section 22).
 */
export function sessionsTable(
  sessions: ReadonlyArray<SessionRecord & { current: boolean }>,
  chrome: Chrome,
  opts: { caption: string; endable: boolean; back?: string | undefined },
): Html {
  return html`<table>
    <caption>
      ${opts.caption}
    </caption>
    <thead>
      <tr>
        <th scope="col">Started</th>
        <th scope="col">Last seen</th>
        <th scope="col">Client address</th>
        <th scope="col">Browser</th>
        <th scope="col">Expires</th>
        ${opts.endable ? html`<th scope="col">Action</th>` : ''}
      </tr>
    </thead>
    <tbody>
      ${sessions.map(
        (s) =>
          html`<tr>
            <td>${time(s.startedAt, chrome.now)}${s.current ? html` <strong>(this session)</strong>` : ''}</td>
            <td>${time(s.lastSeenAt, chrome.now)}</td>
            <td>${s.client}</td>
            <td>${s.browser}</td>
            <td>${time(s.expiresAt, chrome.now)}</td>
            ${
              opts.endable
                ? html`<td>
                    ${
                      s.current
                        ? 'Sign out to end it'
                        : actionButton(
                            `/sessions/${encodeURIComponent(s.publicId)}/end`,
                            chrome.csrf,
                            `End the session from ${s.client} (${s.browser})`,
                            opts.back,
                          )
                    }
                  </td>`
                : ''
            }
          </tr> `,
      )}
    </tbody>
  </table>`;
}

/** The page; `here` is its own path and query, which its end buttons carry as `return`. */
export function sessionsPage(
  chrome: Chrome,
  sessions: ReadonlyArray<SessionRecord & { current: boolean }>,
  here?: string,
) {
  const others = sessions.filter((s) => !s.current).length;
  return layout(
    'Sessions',
    chrome,
    html`<p>
        Your console sessions that have not ended, newest first. Ending one signs that browser out at
        once, on every server of this Paddock.
      </p>
      ${sessionsTable(sessions, chrome, { caption: 'Your sessions', endable: true, back: here })}
      ${
        others === 0
          ? html`<p>You have no other sessions.</p>`
          : actionButton(
              '/sessions/end-others',
              chrome.csrf,
              `End all ${others} other session${others === 1 ? '' : 's'}`,
            )
      }`,
  );
}
