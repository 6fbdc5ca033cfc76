/**
 * Parts the filtered lists share, each drawn from the list's declaration (lists/): the filter
 * form's fields, the filters that apply, and select options.
 */
import { type ListDeclaration, type Parameter, type Parameters, type Values, valuesOf } from '../lists/parameters.ts';
import { html, type Html } from './html.ts';

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
 * The filter form's fields, one per parameter the declaration labels, in its order: a select for
 * an enumeration, a check box for a yes filter, a text field otherwise. A repeatable parameter has
 * a field per value given and one more blank one while fewer than its most are given (each field
 * labelled with its number). `idPrefix` keeps the ids of two forms on one page apart.
 */
export function filterFields<P extends Parameters>(
  list: ListDeclaration<P>,
  values: Values<P>,
  opts: { admin: boolean; idPrefix?: string },
): Html[] {
  const fields: Html[] = [];
  for (const [name, p] of Object.entries(list.parameters)) {
    if (p.label === undefined || (p.adminOnly === true && !opts.admin)) continue;
    const id = `${opts.idPrefix ?? ''}${name}`;
    if (p.repeat === undefined) {
      fields.push(field(id, name, p, p.label, valuesOf(values, name)[0] ?? ''));
      continue;
    }
    const given = valuesOf(values, name);
    const shown = given.length < p.repeat.max ? [...given, ''] : given;
    shown.forEach((value, i) =>
      fields.push(field(`${id}-${i + 1}`, name, p, `${p.label}, ${i + 1} of up to ${p.repeat?.max}`, value)),
    );
  }
  return fields;
}

function field(id: string, name: string, p: Parameter, label: string, value: string): Html {
  const { kind } = p;
  if (kind.kind === 'yes')
    return html`<p>
      ${
        value === 'yes'
          ? html`<input type="checkbox" id="${id}" name="${name}" value="yes" checked />`
          : html`<input type="checkbox" id="${id}" name="${name}" value="yes" />`
      }
      <label for="${id}">${label}</label>
    </p>`;
  if (kind.values !== undefined) {
    const words = p.words as Readonly<Record<string, string>> | undefined;
    const selected = value || (p.default ?? '');
    return html`<p>
      <label for="${id}">${label}</label><br />
      <select id="${id}" name="${name}">
        ${p.default === undefined ? option('', 'any', selected) : ''}
        ${kind.values.map((v) => option(v, words?.[v] ?? v, selected))}
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
    <label for="${id}">${label}</label><br />
    <input id="${id}" name="${name}" value="${value}"${placeholder}${min}${max} />
  </p>`;
}

export function option(value: string, label: string, selected: string): Html {
  return value === selected
    ? html`<option value="${value}" selected>${label}</option>`
    : html`<option value="${value}">${label}</option>`;
}
