/**
 * The webhooks page (docs/contract.md section 13): the endpoints (URL, events, enabled, the last
 * delivery and its outcome, failures in a row), each linked to its own page, and the form to add
 * one. No secret is ever on it: a secret is shown once, on the answer that made it.
 */
import { codeSpans } from './code_spans.ts';
import type { Webhook } from '../domain/webhooks.ts';
import { WEBHOOK_EVENTS } from '../events/catalogue.ts';
import { shownOutcome } from '../webhooks/outcome.ts';
import { time } from './format.ts';
import { html } from './html.ts';
import { type Chrome, layout } from './layout.ts';
import {
  fieldAria,
  fieldMessage,
  messageFor,
  messageId,
  type Refused,
  refusedAlert,
  sentValue,
} from './form_errors.ts';

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

/** The add form's fields by name, and the ids of those not named alike, as the alert above a refused form links them. */
const ADD_LABELS: Readonly<Record<string, string>> = { url: 'URL', event: 'Events', description: 'Description' };
const ADD_IDS: Readonly<Record<string, string>> = { event: 'event-all' };

/** The page; with `refused`, an add was (docs/contract.md section 22): the alert, and the form filled in as sent. */
export function webhooksPage(
  chrome: Chrome,
  opts: { webhooks: Webhook[]; max: number; refused?: Refused | undefined },
) {
  const { webhooks } = opts;
  return layout(
    'Webhooks',
    chrome,
    html`${opts.refused === undefined ? '' : refusedAlert('No endpoint was added', opts.refused.error, ADD_LABELS, ADD_IDS)}
      <p>
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
      ${webhooks.length >= opts.max ? html`<p>At most ${String(opts.max)} endpoints: delete one to add another.</p>` : addForm(chrome.csrf, opts.refused)}`,
  );
}

/**
 * The add form: empty, or with `refused` every field as sent (an event the form does not offer
 * kept as a ticked box of its own) and the message beside the one at fault; the events' message
 * follows their legend, and the first box is marked invalid and described by it.
 */
function addForm(csrf: string, refused: Refused | undefined) {
  const at = (name: string) => messageFor(refused, name);
  const sent = new Set(refused?.sent.all('event') ?? []);
  const offered = new Set(['*', ...WEBHOOK_EVENTS.map((e) => e.name)]);
  const box = (id: string, value: string, aria: ReturnType<typeof fieldAria> = '') =>
    sent.has(value)
      ? html`<input type="checkbox" id="${id}" name="event" value="${value}" checked${aria} />`
      : html`<input type="checkbox" id="${id}" name="event" value="${value}"${aria} />`;
  const eventsError = at('event');
  return html`<h2>Add an endpoint</h2>
    <form method="post" action="/webhooks">
      <input type="hidden" name="csrf" value="${csrf}" />
      <p>
        <label for="url">URL (https://, at most 2048 characters)</label><br />
        <input id="url" name="url" type="url" required maxlength="2048" size="60" value="${sentValue(refused, 'url')}"${fieldAria('url', at('url'))} />${fieldMessage('url', at('url'))}
      </p>
      <fieldset>
        <legend>Events</legend>
        ${eventsError === undefined ? '' : html`<p><strong id="${messageId('event-all')}">${eventsError}</strong></p>`}
        <p>
          ${box('event-all', '*', fieldAria('event-all', eventsError))}
          <label for="event-all">* (every event below but the opt-in ones)</label>
        </p>
        ${WEBHOOK_EVENTS.map(
          (e) =>
            html`<p>
              ${box(`event-${e.name}`, e.name)}
              <label for="${`event-${e.name}`}"
                ><code>${e.name}</code>: ${codeSpans(e.help)}</label
              >
            </p>`,
        )}
        ${[...sent]
          .filter((name) => !offered.has(name))
          .map(
            (name, i) =>
              html`<p>
                ${box(`event-sent-${i + 1}`, name)}
                <label for="${`event-sent-${i + 1}`}"><code>${name}</code>: as sent, not an event webhooks carry</label>
              </p>`,
          )}
      </fieldset>
      <p>
        <label for="description">Description (at most 200 characters)</label><br />
        <input id="description" name="description" maxlength="200" size="60" value="${sentValue(refused, 'description')}"${fieldAria('description', at('description'))} />${fieldMessage('description', at('description'))}
      </p>
      <p><button type="submit">Add endpoint</button></p>
    </form>`;
}
