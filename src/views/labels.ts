/** Labels (docs/contract.md section 12) as the pages show them and the form fields that set them; every label escaped. */
import { labelLines, MAX_LABELS, type Labels } from '../domain/labels.ts';
import { fieldAria, fieldMessage } from './form_errors.ts';
import { html, type Html } from './html.ts';

/** A set as `key=value` items, or `none`. */
export function labelsShown(labels: Labels): Html | string {
  const entries = Object.entries(labels);
  if (entries.length === 0) return 'none';
  return html`<ul class="labels">
    ${entries.map(([key, value]) => html`<li><code>${key}=${value}</code></li>`)}
  </ul>`;
}

/**
 * The text area of a set, one `key=value` a line, with its label and the rules; given text, the
 * set as a refused form sent it, and with `message` what is wrong with it (views/form_errors.ts).
 */
export function labelsField(id: string, labels: Labels | string, label: string, message?: string): Html {
  return html`<p>
    <label for="${id}">${label}</label><br />
    <textarea id="${id}" name="labels" rows="5" cols="40"${fieldAria(id, message, `${id}-rules`)}>${
      typeof labels === 'string' ? labels : labelLines(labels)
    }</textarea
    ><br />
    <small id="${id}-rules"
      >One key=value a line, at most ${String(MAX_LABELS)}. A key is 1 to 63 of a-z, 0-9, -, _ and ., starting with a
      letter or digit; a value is at most 63 of A-Z, a-z, 0-9, -, _ and .</small
    >${fieldMessage(id, message)}
  </p>`;
}
