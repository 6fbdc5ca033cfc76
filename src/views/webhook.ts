/**
 * One webhook endpoint's page (docs/contract.md section 13): what it is and how it fares, its
 * actions (test, enable or disable, rotate the secret, and delete through its confirmation page:
 * docs/contract.md section 22), and its latest delivery attempts
 * (event, message id, time, status code or error, duration), each with a button to send that
 * message again under the same id. A failed attempt shows its class, never its detail or duration
 * (webhooks/outcome.ts), so the page is no port scanner.
 */
import type { Webhook, WebhookAttempt } from '../domain/webhooks.ts';
import { shownAttempt } from '../webhooks/outcome.ts';
import { time } from './format.ts';
import { html } from './html.ts';
import { actionButton, type Chrome, layout } from './layout.ts';
import { eventsText, lastDelivery, webhookPath } from './webhooks.ts';

export function webhookPage(chrome: Chrome, opts: { webhook: Webhook; attempts: WebhookAttempt[] }) {
  const w = opts.webhook;
  const path = webhookPath(w.id);
  // One button per delivery, on its newest attempt: a retried message is listed once per attempt.
  const shown = new Set<number>();
  const redeliver = (a: WebhookAttempt) => {
    if (shown.has(a.delivery)) return '';
    shown.add(a.delivery);
    return actionButton(`${path}/deliveries/${String(a.delivery)}/redeliver`, chrome.csrf, `Send ${a.message} again`);
  };
  return layout(
    `Webhook ${w.id}`,
    chrome,
    html`<dl>
        <dt>URL</dt>
        <dd>${w.url}</dd>
        <dt>Description</dt>
        <dd>${w.description || 'none'}</dd>
        <dt>Events</dt>
        <dd>${eventsText(w.events)}</dd>
        <dt>Enabled</dt>
        <dd>${w.enabled ? 'yes' : 'no: its deliveries wait until it is enabled'}</dd>
        <dt>Added</dt>
        <dd>${time(w.createdAt, chrome.now)} by ${w.createdBy}</dd>
        <dt>Secret replaced</dt>
        <dd>${time(w.rotatedAt, chrome.now)}</dd>
        <dt>Last delivery</dt>
        <dd>${lastDelivery(w, chrome.now)}</dd>
        <dt>Failures in a row</dt>
        <dd>${String(w.failures)}${w.failingSince === null ? '' : html`, since ${time(w.failingSince, chrome.now)}`}</dd>
      </dl>
      <h2>Actions</h2>
      ${actionButton(`${path}/test`, chrome.csrf, 'Send a test message')}
      ${
        w.enabled
          ? actionButton(`${path}/disable`, chrome.csrf, 'Disable')
          : actionButton(`${path}/enable`, chrome.csrf, 'Enable')
      }
      ${actionButton(`${path}/rotate-secret`, chrome.csrf, 'Replace the signing secret')}
      <p><a href="${path}/delete">Delete the endpoint and its deliveries…</a></p>
      <h2>Delivery attempts</h2>
      ${
        opts.attempts.length === 0
          ? html`<p>No attempt yet.</p>`
          : html`<table>
            <caption>
              Latest delivery attempts, newest first
            </caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Message id</th>
                <th scope="col">Time</th>
                <th scope="col">Status code or error</th>
                <th scope="col">Duration</th>
                <th scope="col">Delivery</th>
                <th scope="col">Action</th>
              </tr>
            </thead>
            <tbody>
              ${opts.attempts.map((a) => {
                const shown = shownAttempt(a);
                return html`<tr>
                  <td>${a.event}</td>
                  <td><code>${a.message}</code></td>
                  <td>${time(a.at, chrome.now)}</td>
                  <td>${shown.statusCode === null ? shown.error : String(shown.statusCode)}</td>
                  <td>${shown.durationMs === null ? 'not shown' : `${shown.durationMs} ms`}</td>
                  <td>${a.status}</td>
                  <td>${redeliver(a)}</td>
                </tr> `;
              })}
            </tbody>
          </table>`
      }
      <p><a href="/webhooks">Back to webhooks</a></p>`,
  );
}
