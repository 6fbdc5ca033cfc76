/**
 * Parts the filtered lists share, each drawn from the list's declaration (lists/): the filter
 * form's fields, the filters that apply, select options, and how many the list holds.
 */
import {
  type ListDeclaration,
  listQueryString,
  type Parameter,
  type Parameters,
  type Values,
  valuesOf,
} from '../lists/parameters.ts';
import { errorAlert, fieldAria, fieldMessage } from './form_errors.ts';
import { html, type Html } from './html.ts';
import type { ListTotal } from '../actions/count_cache.ts';

export type { ListTotal };

export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/**
 * "12,345", "more than 10,000", or, for a count a second old or more, "about 12,345" (never fewer
 * than `atLeast`, the rows up to the end of the page shown) with how old it is, to say after it.
 */
export function totalWords(total: ListTotal, atLeast: number, now: number): { of: string; counted: Html | string } {
  const age = Math.floor((now - total.countedAt) / 1000);
  if (total.more) return { of: `more than ${count(total.n)}`, counted: '' };
  if (age < 1) return { of: count(total.n), counted: '' };
  return {
    of: `about ${count(Math.max(total.n, atLeast))}`,
    counted: html` <small>(counted ${String(age)}${'\u00a0'}s ago)</small>`,
  };
}

/**
 * The rows a page shows of how many the list holds, as the device list says it: "Records 51–100 of
 * 12,345", "Record 1 of 1", or, when the page's position is not known (a link without `from`), "50
 * older records, of 12,345"; with how old the count is, to end the sentence with. Without a
 * total, the rows alone ("50 older records").
 */
export function listRange(
  rows: { one: string; many: string },
  shown: number,
  from: number | undefined,
  total: ListTotal | undefined,
  now: number,
): { range: string; counted: Html | string } {
  const last = from === undefined ? undefined : from + shown - 1;
  const words = total === undefined ? undefined : totalWords(total, last ?? shown, now);
  const of = words === undefined ? '' : ` of ${words.of}`;
  const capital = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
  const range =
    from === undefined || last === undefined
      ? `${count(shown)} older ${shown === 1 ? rows.one : rows.many}${of === '' ? '' : `,${of}`}`
      : from === last
        ? `${capital(rows.one)} ${count(from)}${of}`
        : `${capital(rows.many)} ${count(from)}–${count(last)}${of}`;
  return { range, counted: words?.counted ?? '' };
}

/** The next page's query: the filters, the position of its first row (`from`, for its range), the cursor last. */
export function olderQuery<P extends Parameters>(
  list: ListDeclaration<P>,
  values: Values<P>,
  next: string,
  from: number | undefined,
): string {
  const params = new URLSearchParams(listQueryString(list, values));
  if (from !== undefined) params.set('from', String(from));
  params.set('before', next);
  return `?${params.toString()}`;
}

/** The filters that apply, each as the page names it with its value (none for a yes filter). */
export function appliedFilters<P extends Parameters>(
  list: ListDeclaration<P>,
  values: Values<P>,
): Array<[shown: string, value: string | undefined]> {
  const out: Array<[string, string | undefined]> = [];
  for (const [name, p] of Object.entries(list.parameters))
    for (const value of valuesOf(values, name))
      if (p.shown !== undefined && value !== '') out.push([p.shown, p.kind.kind === 'yes' ? undefined : value]);
  return out;
}

/** `, matching “abc”, status “stale”, flagged by the level check` for the filters that apply, or nothing. */
export function filterSummary<P extends Parameters>(list: ListDeclaration<P>, values: Values<P>): string {
  return appliedFilters(list, values)
    .map(([shown, value]) => (value === undefined ? `, ${shown}` : `, ${shown} “${value}”`))
    .join('');
}

/**
 * What was wrong with a list's query (docs/contract.md section 22): the parameter at fault and the
 * message the form shows beside its field.
 */
export interface FilterError {
  parameter: string;
  message: string;
}

/**
 * The filter form's fields, one per parameter the declaration labels, in its order: a select for
 * an enumeration, a check box for a yes filter, a text field otherwise. A repeatable parameter has
 * a field per value given and one more blank one while fewer than its most are given (each field
 * labelled with its number). `idPrefix` keeps the ids of two forms on one page apart. With `error`,
 * its message is beside the field at fault (the first one of a repeatable parameter), which is
 * marked invalid and described by it.
 */
export function filterFields<P extends Parameters>(
  list: ListDeclaration<P>,
  values: Values<P>,
  opts: { admin: boolean; idPrefix?: string; error?: FilterError | undefined },
): Html[] {
  const fields: Html[] = [];
  for (const [name, p] of Object.entries(list.parameters)) {
    if (p.label === undefined || (p.adminOnly === true && !opts.admin)) continue;
    const id = `${opts.idPrefix ?? ''}${name}`;
    const error = opts.error?.parameter === name ? opts.error.message : undefined;
    if (p.repeat === undefined) {
      fields.push(field(id, name, p, p.label, valuesOf(values, name)[0] ?? '', error));
      continue;
    }
    const given = valuesOf(values, name);
    const shown = given.length < p.repeat.max ? [...given, ''] : given;
    shown.forEach((value, i) =>
      fields.push(
        field(
          `${id}-${i + 1}`,
          name,
          p,
          `${p.label}, ${i + 1} of up to ${p.repeat?.max}`,
          value,
          i === 0 ? error : undefined,
        ),
      ),
    );
  }
  return fields;
}

/** The id of the field the form shows first for a parameter, for a link to it; undefined when it has none. */
export function fieldId(list: ListDeclaration, parameter: string, opts: { admin: boolean; idPrefix?: string }) {
  const p = list.parameters[parameter];
  if (p?.label === undefined || (p.adminOnly === true && !opts.admin)) return undefined;
  return `${opts.idPrefix ?? ''}${parameter}${p.repeat === undefined ? '' : '-1'}`;
}

/**
 * The alert above a list whose query was refused: what is wrong, linked to the field at fault (a
 * parameter the form has no field for, the page cursor, is named by its message alone).
 */
export function filterAlert(list: ListDeclaration, error: FilterError, opts: { admin: boolean; idPrefix?: string }) {
  const id = fieldId(list, error.parameter, opts);
  const label = list.parameters[error.parameter]?.label;
  const field = id === undefined || label === undefined ? undefined : { id, label };
  return errorAlert('The list could not be shown', error.message, field);
}

/**
 * What a refused list shows in place of its rows: for a bad page cursor, a link to the first page
 * with the filters kept; for a bad filter, that no rows are shown until it is corrected.
 */
export function refusedRows<P extends Parameters>(
  list: ListDeclaration<P>,
  values: Values<P>,
  error: FilterError,
  opts: { path: string; first: string; rows: string },
): Html {
  return list.parameters[error.parameter]?.kind.kind === 'cursor'
    ? html`<p><a href="${opts.path}${listQueryString(list, values)}">${opts.first}</a></p>`
    : html`<p>No ${opts.rows} are shown until the filter is corrected.</p>`;
}

function field(id: string, name: string, p: Parameter, label: string, value: string, error?: string): Html {
  const { kind } = p;
  const hintId = p.hint === undefined ? undefined : `${id}-hint`;
  // The message and the attributes that tie it to the field are the console forms' (form_errors.ts).
  const aria = fieldAria(id, error, hintId);
  const about = html`${hintId === undefined ? '' : html`<br /><small id="${hintId}">${p.hint}</small>`}${fieldMessage(
    id,
    error,
  )}`;
  if (kind.kind === 'yes')
    return html`<p>
      ${
        value === 'yes'
          ? html`<input type="checkbox" id="${id}" name="${name}" value="yes" checked${aria} />`
          : html`<input type="checkbox" id="${id}" name="${name}" value="yes"${aria} />`
      }
      <label for="${id}">${label}</label>${about}
    </p>`;
  if (kind.values !== undefined) {
    const words = p.words as Readonly<Record<string, string>> | undefined;
    const selected = value || (p.default ?? '');
    // A value the select does not offer (a bad one, sent as is) is kept as an option, so the form shows it.
    const sent =
      value !== '' && !(kind.values as readonly string[]).includes(value) ? option(value, value, selected) : '';
    return html`<p>
      <label for="${id}">${label}</label>${about}<br />
      <select id="${id}" name="${name}"${aria}>
        ${p.default === undefined ? option('', 'any', selected) : ''}
        ${kind.values.map((v) => option(v, words?.[v] ?? v, selected))} ${sent}
      </select>
    </p>`;
  }
  const min = kind.minLength === undefined ? '' : html` minlength="${kind.minLength}"`;
  const max = kind.maxLength === undefined ? '' : html` maxlength="${kind.maxLength}"`;
  const placeholder =
    kind.kind === 'day'
      ? html` placeholder="YYYY-MM-DD" pattern="[0-9]{4}-[0-9]{2}-[0-9]{2}"`
      : p.placeholder === undefined
        ? ''
        : html` placeholder="${p.placeholder}"`;
  return html`<p>
    <label for="${id}">${label}</label>${about}<br />
    <input id="${id}" name="${name}" value="${value}"${placeholder}${min}${max}${aria} />
  </p>`;
}

export function option(value: string, label: string, selected: string): Html {
  return value === selected
    ? html`<option value="${value}" selected>${label}</option>`
    : html`<option value="${value}">${label}</option>`;
}
