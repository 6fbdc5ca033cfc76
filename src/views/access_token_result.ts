/**
 * The page shown once after creating a personal access token: the token itself, which no later
 * page, URL or log record holds, and its expiry.
 */
import type { AccessToken } from '../domain/access_tokens.ts';
import { time } from './format.ts';
import { html } from './html.ts';
import { type Chrome, layout } from './layout.ts';

export function accessTokenResultPage(chrome: Chrome, opts: { token: string; record: AccessToken }) {
  const { record } = opts;
  return layout(
    'Access token created',
    chrome,
    html`<p>
        Your token <strong>${record.name}</strong> acts with your rights as they are now and expires
        ${time(record.expiresAt, chrome.now)}. It is shown only now: copy it before you leave this page.
      </p>
      <p>
        <label for="token">Access token</label><br />
        <textarea id="token" readonly rows="2" cols="60">${opts.token}</textarea>
      </p>
      <p><a href="/tokens">Back to access tokens</a></p>`,
  );
}
