/** The shared page layout: title, navigation, the signed-in account and a sign-out button. */
import type { Session } from '../session/session.ts';
import { html, type Html } from './html.ts';

export interface Chrome {
  session: Session;
  csrf: string;
  /** The clock's time for this request, for "3 minutes ago". */
  now: number;
  /** Confirmation of the action that redirected here, shown once. */
  notice?: string | undefined;
}

export function layout(title: string, chrome: Chrome | undefined, body: Html): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Paddock</title>
      </head>
      <body>
        <a href="#content">Skip to content</a>
        <header>${chrome ? nav(chrome) : html`<p><strong>Paddock</strong></p>`}</header>
        <main id="content" tabindex="-1">
          <h1>${title}</h1>
          ${chrome?.notice ? html`<p role="status"><strong>${chrome.notice}</strong></p>` : ''}
          ${body}
        </main>
      </body>
    </html> `;
}

/**
 * The navigation in one line (docs/contract.md section 22): the pages an operator runs the fleet
 * from, then the rest folded under "More", then the account and its sign-out, so few tab stops
 * come before the content.
 */
function nav({ session, csrf }: Chrome): Html {
  const main = [
    html`<a href="/">Dashboard</a>`,
    html`<a href="/devices">Devices</a>`,
    html`<a href="/runs">Runs</a>`,
    ...(session.admin ? [html`<a href="/enroll-tokens">Enroll a device</a>`] : []),
    html`<a href="/collections">Collections</a>`,
  ];
  const more = [
    html`<a href="/tokens">Access tokens</a>`,
    html`<a href="/sessions">Sessions</a>`,
    ...(session.admin
      ? [
          html`<a href="/accounts">Accounts</a>`,
          html`<a href="/groups">Groups</a>`,
          html`<a href="/audit">Audit trail</a>`,
          html`<a href="/webhooks">Webhooks</a>`,
        ]
      : []),
    ...(session.subject.startsWith('local:') ? [html`<a href="/totp">Second factor</a>`] : []),
  ];
  return html`<nav aria-label="Main">
      <p><strong>Paddock</strong> · ${inline(main)}</p>
      <details>
        <summary>More</summary>
        <p>${inline(more)}</p>
      </details>
    </nav>
    <form method="post" action="/logout">
      <p>
        Signed in as <strong>${session.display}</strong> (${session.subject}${session.admin ? ', administrator' : ''})
        <input type="hidden" name="csrf" value="${csrf}" />
        <button type="submit">Sign out</button>
      </p>
    </form>`;
}

/** Links in one line, separated by middle dots. */
function inline(links: Html[]): Html[] {
  return links.map((link, i) => (i === 0 ? link : html` · ${link}`));
}

/** A small POST form with the CSRF field and one button; with `back`, the list to go back to (`return`, docs/contract.md section 22). */
export function actionButton(action: string, csrf: string, label: string, back?: string): Html {
  return html`<form method="post" action="${action}">
    <input type="hidden" name="csrf" value="${csrf}" />${
      back === undefined ? '' : html`<input type="hidden" name="return" value="${back}" />`
    }<button type="submit">${label}</button>
  </form>`;
}
