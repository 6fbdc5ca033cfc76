/**
 * The second factor pages of the break-glass account (docs/contract.md section 14): enrollment
 * (QR code and text, confirmed by a code), the recovery codes shown once, and the enrolled state
 * with the form that removes the factor.
 */
import { RECOVERY_CODE_COUNT } from '../domain/totp.ts';
import { time } from './format.ts';
import { html } from './html.ts';
import { type Chrome, layout } from './layout.ts';
import { qrSvg } from './qr_svg.ts';
import { fieldAria, fieldMessage, messageFor, type Refused, refusedAlert, sentValue } from './form_errors.ts';

/**
 * A recovery code has letters: only the app's code field asks for a numeric keyboard. A `refused`
 * code is shown as sent with the message beside it (docs/contract.md section 22).
 */
const codeField = (label: string, numeric: boolean, refused: Refused | undefined) =>
  html`<p>
    <label for="code">${label}</label><br />
    <input id="code" name="code" inputmode="${numeric ? 'numeric' : 'text'}" autocomplete="one-time-code" required value="${sentValue(refused, 'code')}"${fieldAria('code', messageFor(refused, 'code'))} />${fieldMessage('code', messageFor(refused, 'code'))}
  </p>`;

/** The alert above a refused code. */
const refusedCode = (heading: string, refused: Refused | undefined) =>
  refused === undefined ? '' : refusedAlert(heading, refused.error, { code: 'Code' });

/**
 * The enrollment page; `error` says why a new secret is shown (the last one expired), `refused`
 * that the code typed did not match.
 */
export function totpEnrollPage(
  chrome: Chrome,
  opts: { uri: string; text: string; pending: string; error?: string; refused?: Refused | undefined },
) {
  return layout(
    'Second factor',
    chrome,
    html`${opts.error ? html`<p role="alert"><strong>${opts.error}</strong></p>` : ''}
      ${refusedCode('The second factor is not on yet', opts.refused)}
      <p>
        Add this account to an authenticator app (TOTP: 6 digits every 30 seconds), then type the code it shows
        to confirm. Once confirmed, signing in with the password also needs a code.
      </p>
      <figure>
        ${qrSvg(opts.uri, { title: 'The secret as a QR code for an authenticator app' })}
        <figcaption>Scan this with the authenticator app.</figcaption>
      </figure>
      <p>
        <label for="secret">Or type in this secret</label><br />
        <input id="secret" readonly size="40" value="${opts.text}" />
      </p>
      <form method="post" action="/totp">
        <input type="hidden" name="csrf" value="${chrome.csrf}" />
        <input type="hidden" name="pending" value="${opts.pending}" />
        ${codeField('Code from the app', true, opts.refused)}
        <p><button type="submit">Confirm</button></p>
      </form>`,
  );
}

export function totpRecoveryPage(chrome: Chrome, opts: { codes: string[] }) {
  return layout(
    'Recovery codes',
    chrome,
    html`<p role="status"><strong>The second factor is on.</strong></p>
      <p>
        Each of these codes signs in once in place of a code from the app, should you lose it. They are shown only
        now: keep them somewhere safe before you leave this page.
      </p>
      <p>
        <label for="recovery">Recovery codes</label><br />
        <textarea id="recovery" readonly rows="${String(opts.codes.length)}" cols="24">${opts.codes.join('\n')}</textarea>
      </p>
      <p><a href="/">Back to the dashboard</a></p>`,
  );
}

/** The enrolled state; `refused`, the code that was to turn it off did not verify. */
export function totpStatusPage(
  chrome: Chrome,
  opts: { enrolledAt: number; recoveryLeft: number; refused?: Refused | undefined },
) {
  return layout(
    'Second factor',
    chrome,
    html`${refusedCode('The second factor is still on', opts.refused)}
      <p>
        Signing in with the password also needs a code: the second factor was turned on
        ${time(opts.enrolledAt, chrome.now)}. ${String(opts.recoveryLeft)} of ${String(RECOVERY_CODE_COUNT)} recovery codes are unused.
      </p>
      <h2>Turn it off</h2>
      <form method="post" action="/totp/disable">
        <input type="hidden" name="csrf" value="${chrome.csrf}" />
        ${codeField('Code from the app, or a recovery code', false, opts.refused)}
        <p><button type="submit">Turn off the second factor</button></p>
      </form>`,
  );
}
