/** The page shown once after minting: the enrollment link as text and as a QR code, and its expiry. */
import { time } from './format.ts';
import { html } from './html.ts';
import { type Chrome, layout } from './layout.ts';
import { qrSvg } from './qr_svg.ts';

export function mintResultPage(chrome: Chrome, opts: { link: string; owner: string; expiresAt: number }) {
  return layout(
    'Enrollment link',
    chrome,
    html`<p>
        Give this link to the device for <strong>${opts.owner}</strong>. It works once and expires
        ${time(opts.expiresAt, chrome.now)}. It is shown only now: copy it before you leave this page.
      </p>
      <p>
        <label for="link">Enrollment link</label><br />
        <textarea id="link" readonly rows="4" cols="80">${opts.link}</textarea>
      </p>
      <figure>
        ${qrSvg(opts.link, { title: 'Enrollment link as a QR code' })}
        <figcaption>The same link as a QR code.</figcaption>
      </figure>
      <p><a href="/devices">Back to devices</a></p>`,
  );
}
