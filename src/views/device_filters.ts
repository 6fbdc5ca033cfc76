/**
 * The device list's filter form, compact (docs/contract.md section 22: the first row starts high):
 * the filters used most (search, status, last seen, order) on one line, the others (owner, labels,
 * facts) folded in a <details> that opens when one of them is set or at fault. With `error`, the
 * form as sent with the message beside the field at fault, which is marked invalid and described
 * by it (the folded fields: list_parts.ts filterFields, which does the same).
 */
import { DEVICES, type DeviceQuery } from '../lists/devices.ts';
import { declareList, type Parameter, valuesOf } from '../lists/parameters.ts';
import { html, type Html } from './html.ts';
import { type FilterError, filterFields, option } from './list_parts.ts';

/** The filters on the form's first line, in this order. */
const INLINE = ['q', 'status', 'seen', 'sort'] as const;

/** The folded filters, as a list of their own for filterFields. */
const FOLDED = declareList({
  blank: DEVICES.blank,
  repeated: DEVICES.repeated,
  trim: DEVICES.trim,
  parameters: {
    owner: DEVICES.parameters.owner,
    owner_disabled: DEVICES.parameters.owner_disabled,
    label: DEVICES.parameters.label,
    fact: DEVICES.parameters.fact,
  },
});

export function deviceFilterForm(q: DeviceQuery, admin: boolean, error?: FilterError): Html {
  const folded = Object.keys(FOLDED.parameters);
  const open = folded.some((name) => valuesOf(q, name).length > 0) || folded.includes(error?.parameter ?? '');
  const fields = INLINE.map((name) => inlineField(name, DEVICES.parameters[name], valuesOf(q, name)[0] ?? '', error));
  const more = filterFields(FOLDED, q, { admin, error });
  const summary = admin ? 'More filters: owner, labels, facts' : 'More filters: labels, facts';
  return html`<form method="get" action="/devices" role="search" aria-label="Find devices">
    <p>${fields.map((field) => html`${field} `)}<button type="submit">Show devices</button> <a href="/devices">Clear filters</a></p>
    ${
      open
        ? html`<details open>
          <summary>${summary}</summary>
          ${more}
          <p><button type="submit">Show devices</button></p>
        </details>`
        : html`<details>
          <summary>${summary}</summary>
          ${more}
          <p><button type="submit">Show devices</button></p>
        </details>`
    }
  </form>`;
}

/** A label and its field on one line; a bad value stays as sent, with its message right after it. */
function inlineField(name: string, p: Parameter, value: string, error: FilterError | undefined): Html {
  const message = error?.parameter === name ? error.message : undefined;
  const aria = message === undefined ? '' : html` aria-invalid="true" aria-describedby="${name}-error"`;
  const after = message === undefined ? '' : html` <strong id="${name}-error">${message}</strong>`;
  const { kind } = p;
  if (kind.values === undefined) {
    const min = kind.minLength === undefined ? '' : html` minlength="${kind.minLength}"`;
    const max = kind.maxLength === undefined ? '' : html` maxlength="${kind.maxLength}"`;
    return html`<label for="${name}">${p.label}</label>
      <input id="${name}" name="${name}" value="${value}" size="16"${min}${max}${aria} />${after}`;
  }
  const words = p.words as Readonly<Record<string, string>> | undefined;
  const selected = value || (p.default ?? '');
  // A value the select does not offer (a bad one, sent as is) is kept as an option, so the form shows it.
  const sent =
    value !== '' && !(kind.values as readonly string[]).includes(value) ? option(value, value, selected) : '';
  return html`<label for="${name}">${p.label}</label>
    <select id="${name}" name="${name}"${aria}>
      ${p.default === undefined ? option('', 'any', selected) : ''}
      ${kind.values.map((v) => option(v, words?.[v] ?? v, selected))} ${sent}
    </select>${after}`;
}
