/**
 * The webhooks page (docs/contract.md section 13): the endpoints (URL, events, enabled, the last
 * delivery and its outcome, failures in a row), each linked to its own page, and the form to add
 * one. No secret is ever on it: a secret is shown once, on the answer that made it.
 */
import type { Webhook } from '../domain/webhooks.ts';
import { WEBHOOK_EVENTS } from '../events/catalogue.ts';
import { shownOutcome } from '../webhooks/outcome.ts';
import { time } from './format.ts';
import { html } from './html.ts';
import { type Chrome, layout } from './layout.ts';

export function webhookPath(id: string): string {
  return `/webhooks/${encodeURIComponent(id)}`;
}

/** `*` as words, the names as they are. */
export function eventsText(events: readonly string[]): string {
  return events.map((e) => (e === '*' ? '* (all but the opt-in ones)' : e)).join(', ');
}

export function lastDelivery(w: Webhook, now: number) {
  if (w.lastAttemptAt === null) return 'none yet';
  return html`${time(w.lastAttemptAt, now)}: ${shownOutcome(w.lastOutcome) ?? ''}`;
}

export function webhooksPage(chrome: Chrome, opts: { webhooks: Webhook[]; max: number }) {
  const { webhooks } = opts;
  return layout(
    'Webhooks',
    chrome,
    html`<p>
        A webhook endpoint receives a signed <code>POST</code> for each event it subscribes to (the Standard
        Webhooks format). ${webhooks.length === 0 ? 'There are no endpoints.' : 'The endpoints, newest first.'}
      </p>
      ${
        webhooks.length === 0
          ? ''
          : html`<table>
              <caption>
                Webhook endpoints
              </caption>
              <thead>
                <tr>
                  <th scope="col">URL</th>
                  <th scope="col">Events</th>
                  <th scope="col">Enabled</th>
                  <th scope="col">Last delivery</th>
                  <th scope="col">Failures in a row</th>
                </tr>
              </thead>
              <tbody>
                ${webhooks.map(
                  (w) =>
                    html`<tr>
                      <td><a href="${webhookPath(w.id)}">${w.url}</a>${w.description ? html`<br />${w.description}` : ''}</td>
                      <td>${eventsText(w.events)}</td>
                      <td>${w.enabled ? 'yes' : 'no'}</td>
                      <td>${lastDelivery(w, chrome.now)}</td>
                      <td>${String(w.failures)}</td>
                    </tr> `,
                )}
              </tbody>
            </table>`
      }
      ${webhooks.length >= opts.max ? html`<p>At most ${String(opts.max)} endpoints: delete one to add another.</p>` : addForm(chrome.csrf)}`,
  );
}

function addForm(csrf: string) {
  return html`<h2>Add an endpoint</h2>
    <form method="post" action="/webhooks">
      <input type="hidden" name="csrf" value="${csrf}" />
      <p>
        <label for="url">URL (https://, at most 2048 characters)</label><br />
        <input id="url" name="url" type="url" required maxlength="2048" size="60" />
      </p>
      <fieldset>
        <legend>Events</legend>
        <p>
          <input type="checkbox" id="event-all" name="event" value="*" />
          <label for="event-all">* (every event below but the opt-in ones)</label>
        </p>
        ${WEBHOOK_EVENTS.map(
          (e) =>
            html`<p>
              <input type="checkbox" id="${`event-${e.name}`}" name="event" value="${e.name}" />
              <label for="${`event-${e.name}`}"
                ><code>${e.name}</code>: ${e.help}</label
              >
            </p>`,
        )}
      </fieldset>
      <p>
        <label for="description">Description (at most 200 characters)</label><br />
        <input id="description" name="description" maxlength="200" size="60" />
      </p>
      <p><button type="submit">Add endpoint</button></p>
    </form>`;
}
