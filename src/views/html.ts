/**
 * HTML templating in which escaping is the default: every interpolation is escaped unless it
 * is already `Html` (produced by this tag, `htmlText`, `splitAt` or `raw`). `raw` is the one
 * reviewed door around it, and the lint rule in eslint.config.js keeps it and `new Html` here.
 */
export class Html {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

const special = /[&<>"']/;

/**
 * Characters HTML does not allow in a document (parse errors: controls other than tab, line feed,
 * form feed and carriage return, and noncharacters), shown instead as a visible symbol: a control
 * as its Control Picture (U+2400 + code, so NUL shows as ␀, DEL as ␡), anything else as U+FFFD.
 */
const unfit = /[\0-\x08\x0B\x0E-\x1F\x7F-\x9F\p{Noncharacter_Code_Point}]/u;
const unfitAll = new RegExp(unfit.source, 'gu');

function visible(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  return code === 0x7f ? '\u2421' : '\ufffd';
}

/**
 * Escapes text for HTML element content and double- or single-quoted attribute values; characters
 * a valid document cannot hold are shown as symbols (see `unfit`).
 */
export function escapeHtml(text: string): string {
  const fit = unfit.test(text) ? text.replace(unfitAll, visible) : text;
  // Most interpolations (ids, names, dates) have nothing to escape: test once, copy nothing.
  if (!special.test(fit)) return fit;
  // A loop over char codes, not a lookup per one-character string: 2.4 times faster on a run's
  // text (bench: the 8 KiB run view spent a fifth of its time here).
  let out = '';
  let last = 0;
  for (let i = 0; i < fit.length; i++) {
    let entity: string;
    switch (fit.charCodeAt(i)) {
      case 0x26:
        entity = '&amp;';
        break;
      case 0x3c:
        entity = '&lt;';
        break;
      case 0x3e:
        entity = '&gt;';
        break;
      case 0x22:
        entity = '&quot;';
        break;
      case 0x27:
        entity = '&#39;';
        break;
      default:
        continue;
    }
    if (last !== i) out += fit.slice(last, i);
    out += entity;
    last = i + 1;
  }
  return out + fit.slice(last);
}

export type Interpolation = Html | string | number | boolean | null | undefined | Interpolation[];

function render(value: Interpolation): string {
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/**
 * The static parts of each template with the indentation after every line break removed: it is
 * a quarter of a list page's bytes and means nothing to HTML. Computed once per template (the
 * strings array of a tagged template is the same object on every call). No template holds static
 * text inside `<pre>` or `<textarea>`, where it would matter.
 */
const compacted = new WeakMap<TemplateStringsArray, readonly string[]>();

function compact(strings: TemplateStringsArray): readonly string[] {
  let parts = compacted.get(strings);
  if (parts === undefined) {
    parts = strings.map((part) => part.replace(/\n[ \t]+/g, '\n'));
    compacted.set(strings, parts);
  }
  return parts;
}

/** Tagged template: `html\`<p>${name}</p>\`` escapes `name`. */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): Html {
  const parts = compact(strings);
  let out = parts[0] ?? '';
  for (let i = 0; i < values.length; i++) {
    out += render(values[i]) + (parts[i + 1] ?? '');
  }
  return new Html(out);
}

/**
 * Text as markup, escaped exactly as the tag escapes an interpolation: the one path from text that
 * arrives in pieces (a run's bytes streamed from the store) to markup.
 */
export function htmlText(text: string): Html {
  return new Html(escapeHtml(text));
}

/** The markup before and after the first `slot` in `page`, or undefined when it holds none. */
export function splitAt(page: Html, slot: Html): [Html, Html] | undefined {
  const at = page.value.indexOf(slot.value);
  if (at === -1) return undefined;
  return [new Html(page.value.slice(0, at)), new Html(page.value.slice(at + slot.value.length))];
}

/**
 * Marks a string as markup without escaping it: the door around escaping. Nothing in src/ uses
 * it; a caller outside this file must carry an eslint-disable comment saying why it is safe.
 */
export function raw(markup: string): Html {
  return new Html(markup);
}
