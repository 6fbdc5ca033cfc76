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
        <header>
          <p><strong>Paddock</strong></p>
          ${chrome ? nav(chrome) : ''}
        </header>
        <main>
          <h1>${title}</h1>
          ${chrome?.notice ? html`<p role="status"><strong>${chrome.notice}</strong></p>` : ''}
          ${body}
        </main>
      </body>
    </html> `;
}

function nav({ session, csrf }: Chrome): Html {
  return html`<nav aria-label="Main">
      <ul>
        <li><a href="/">Dashboard</a></li>
        <li><a href="/devices">Devices</a></li>
        <li><a href="/runs">Runs</a></li>
        <li><a href="/collections">Collections</a></li>
        <li><a href="/tokens">Access tokens</a></li>
        <li><a href="/sessions">Sessions</a></li>
        ${session.admin ? html`<li><a href="/accounts">Accounts</a></li>` : ''}
        ${session.admin ? html`<li><a href="/groups">Groups</a></li>` : ''}
        ${session.admin ? html`<li><a href="/audit">Audit trail</a></li>` : ''}
        ${session.admin ? html`<li><a href="/webhooks">Webhooks</a></li>` : ''}
        ${session.subject.startsWith('local:') ? html`<li><a href="/totp">Second factor</a></li>` : ''}
      </ul>
    </nav>
    <form method="post" action="/logout">
      <p>
        Signed in as <strong>${session.display}</strong> (${session.subject}${session.admin ? ', administrator' : ''})
        <input type="hidden" name="csrf" value="${csrf}" />
        <button type="submit">Sign out</button>
      </p>
    </form>`;
}

/** A small POST form with the CSRF field and one button. */
export function actionButton(action: string, csrf: string, label: string): Html {
  return html`<form method="post" action="${action}">
    <input type="hidden" name="csrf" value="${csrf}" /><button type="submit">${label}</button>
  </form>`;
}
