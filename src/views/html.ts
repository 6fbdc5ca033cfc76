/**
 * HTML templating in which escaping is the default: every interpolation is escaped unless it
 * is already `Html` (produced by this tag or by `raw`). `raw` is the one reviewed door around it.
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

const entities: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

const special = /[&<>"']/;

/** Escapes text for HTML element content and double- or single-quoted attribute values. */
export function escapeHtml(text: string): string {
  // Most interpolations (ids, names, dates) have nothing to escape: test once, copy nothing.
  if (!special.test(text)) return text;
  let out = '';
  let last = 0;
  for (let i = 0; i < text.length; i++) {
    const entity = entities[text[i] as string];
    if (entity !== undefined) {
      out += text.slice(last, i) + entity;
      last = i + 1;
    }
  }
  return out + text.slice(last);
}

export type Interpolation = Html | string | number | boolean | null | undefined | Interpolation[];

function render(value: Interpolation): string {
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** Tagged template: `html\`<p>${name}</p>\`` escapes `name`. */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): Html {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) {
    out += render(values[i]) + (strings[i + 1] ?? '');
  }
  return new Html(out);
}

/** Marks markup produced elsewhere (such as the QR code SVG) as trusted. Use sparingly. */
export function raw(markup: string): Html {
  return new Html(markup);
}
