/**
 * The page shown once after minting: the enrollment link as text and as a QR code, its expiry,
 * and what the token gives its devices (uses, name, note, privacy ceiling).
 */
import type { EnrollToken } from '../domain/enroll_tokens.ts';
import { time } from './format.ts';
import { html } from './html.ts';
import { type Chrome, layout } from './layout.ts';
import { qrSvg } from './qr_svg.ts';
import { labelsShown } from './labels.ts';

export function mintResultPage(chrome: Chrome, opts: { link: string; token: EnrollToken }) {
  const { token } = opts;
  return layout(
    'Enrollment link',
    chrome,
    html`<p>
        Give this link to the device for <strong>${token.owner}</strong>. It enrolls
        ${token.uses === 1 ? 'one device' : `up to ${token.uses} devices`} and expires
        ${time(token.expiresAt, chrome.now)}. It is shown only now: copy it before you leave this page.
      </p>
      <p>
        <label for="link">Enrollment link</label><br />
        <textarea id="link" readonly rows="4" cols="80">${opts.link}</textarea>
      </p>
      <h2>Enroll from the device's shell</h2>
      <p>
        Either client reads the link from its standard input, so it never shows in the device's process list. With
        the Node client:
      </p>
      <pre><code>paddock device enroll - &lt;&lt;'LINK'
${opts.link}
LINK</code></pre>
      <p>With the sh client (<code>clients/sh/paddock-device</code>, for devices without Node):</p>
      <pre><code>paddock-device enroll - &lt;&lt;'LINK'
${opts.link}
LINK</code></pre>
      ${
        token.approval === 'required'
          ? html`<p>Each client says so when the device waits for an administrator's approval.</p>`
          : ''
      }
      <figure>
        ${qrSvg(opts.link, { title: 'Enrollment link as a QR code' })}
        <figcaption>The same link as a QR code.</figcaption>
      </figure>
      <dl>
        <dt>Uses</dt>
        <dd>${String(token.uses)}</dd>
        <dt>Device name</dt>
        <dd>${token.name === '' ? 'chosen by the device' : token.name}</dd>
        <dt>Note</dt>
        <dd>${token.note === '' ? 'none' : token.note}</dd>
        <dt>Privacy ceiling</dt>
        <dd>${token.maxPrivacy}</dd>
        <dt>Labels</dt>
        <dd>${labelsShown(token.labels)}</dd>
        <dt>Approval</dt>
        <dd>
          ${
            token.approval === 'required'
              ? html`required: the devices it enrolls wait on <a href="/devices?status=pending">the pending list</a> until an administrator approves them`
              : 'automatic: the devices it enrolls may upload at once'
          }
        </dd>
      </dl>
      <p><a href="/enroll-tokens">Back to enrollment tokens</a></p>`,
  );
}
