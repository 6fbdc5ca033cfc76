/**
 * The page shown once after adding a webhook endpoint or rotating its secret: the signing secret
 * itself, which no later page, URL or log record holds.
 */
import type { Webhook } from '../domain/webhooks.ts';
import { html } from './html.ts';
import { type Chrome, layout } from './layout.ts';
import { webhookPath } from './webhooks.ts';

export function webhookSecretPage(chrome: Chrome, opts: { webhook: Webhook; secret: string; rotated: boolean }) {
  const { webhook } = opts;
  return layout(
    opts.rotated ? 'Signing secret replaced' : 'Webhook endpoint added',
    chrome,
    html`<p>
        ${
          opts.rotated
            ? 'The endpoint now signs with this new secret; for 24 hours every message also carries a signature with the old one.'
            : 'The endpoint signs every message with this secret; give it to the receiver to verify them.'
        }
        It is shown only now: copy it before you leave this page.
      </p>
      <p>
        <label for="secret">Signing secret of ${webhook.url}</label><br />
        <textarea id="secret" readonly rows="2" cols="60">${opts.secret}</textarea>
      </p>
      <p><a href="${webhookPath(webhook.id)}">The endpoint and its deliveries</a></p>
      <p><a href="/webhooks">Back to webhooks</a></p>`,
  );
}
