/**
 * A console form shown again after a bad value (docs/contract.md section 22, "Errors keep the
 * form"): every field filled in as sent, the message beside the field at fault, which is marked
 * invalid and described by it, and an alert above the form linking to that field. The pieces are
 * here once; each form places them.
 */
import { html, type Html } from './html.ts';

/** The field at fault, by its name in the form, and what is wrong with its value. */
export interface FieldError {
  field: string;
  message: string;
}

/** What a form sent, read as the form reads it: a field's first value, a repeatable one's all. */
export interface SentForm {
  get(name: string): string | undefined;
  all(name: string): string[];
}

/** A refused form: what it sent and the field at fault. A page given one shows the form again with them. */
export interface Refused {
  sent: SentForm;
  error: FieldError;
}

/** The message for the field named `name`, when it is the one at fault. */
export function messageFor(refused: Refused | undefined, name: string): string | undefined {
  return refused?.error.field === name ? refused.error.message : undefined;
}

/** The value a field shows: what was sent when the form was refused, else `fallback` (the stored value). */
export function sentValue(refused: Refused | undefined, name: string, fallback = ''): string {
  return refused === undefined ? fallback : (refused.sent.get(name) ?? '');
}

/** The id of a field's message, for aria-describedby. */
export function messageId(id: string): string {
  return `${id}-error`;
}

/**
 * A field's ARIA attributes: at fault, invalid and described by its message (WCAG 2.2, technique
 * ARIA21), after `describedBy` (a hint's id) when it has one; otherwise described by the hint alone.
 */
export function fieldAria(id: string, message: string | undefined, describedBy?: string): Html | '' {
  const ids = [describedBy, message === undefined ? undefined : messageId(id)].filter((d) => d !== undefined);
  if (ids.length === 0) return '';
  return message === undefined
    ? html` aria-describedby="${ids.join(' ')}"`
    : html` aria-invalid="true" aria-describedby="${ids.join(' ')}"`;
}

/** The message beside the field at fault, on its own line; nothing for a field that is not. */
export function fieldMessage(id: string, message: string | undefined): Html | '' {
  return message === undefined ? '' : html`<br /><strong id="${messageId(id)}">${message}</strong>`;
}

/**
 * The alert at the top of the page: what did not happen, and what is wrong linked to the field at
 * fault by its label (a fault with no field to link, such as a page cursor, is its message alone).
 */
export function errorAlert(heading: string, message: string, field?: { id: string; label: string }): Html {
  return html`<div role="alert">
    <h2>${heading}</h2>
    <p>${field === undefined ? message : html`<a href="#${field.id}">${field.label}</a>: ${message}`}</p>
  </div>`;
}

/** The alert for a refused form, linking the field at fault by its label; its id is its name unless `ids` says. */
export function refusedAlert(
  heading: string,
  error: FieldError,
  labels: Readonly<Record<string, string>>,
  ids: Readonly<Record<string, string>> = {},
): Html {
  const label = labels[error.field];
  return errorAlert(
    heading,
    error.message,
    label === undefined ? undefined : { id: ids[error.field] ?? error.field, label },
  );
}

/**
 * A select's options, `selected` selected; a value sent that is not offered (a forged or stale
 * form's) is kept as the last option, selected, so the form shows what was sent.
 */
export function selectOptions(offered: ReadonlyArray<readonly [value: string, text: string]>, selected: string): Html {
  const kept = selected !== '' && !offered.some(([v]) => v === selected) ? [[selected, selected] as const] : [];
  return html`${[...offered, ...kept].map(([v, text]) =>
    v === selected ? html`<option value="${v}" selected>${text}</option>` : html`<option value="${v}">${text}</option>`,
  )}`;
}
