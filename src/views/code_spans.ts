/**
 * The catalogue's help texts (src/events/catalogue.ts) are written for the README, in Markdown:
 * a `code span` between backticks. On a page each becomes `<code>`, escaped like any text, so the
 * reader sees no backtick (docs/contract.md section 13: the webhook form lists the events).
 */
import { html, type Html } from './html.ts';

/** The text with each backtick-delimited span as `<code>`; an unpaired backtick is kept as text. */
export function codeSpans(text: string): Html {
  const parts = text.split('`');
  // An even count of parts means an odd count of backticks: the last one opens nothing.
  const paired =
    parts.length % 2 === 1 ? parts : [...parts.slice(0, -2), `${parts.at(-2) ?? ''}\`${parts.at(-1) ?? ''}`];
  return html`${paired.map((part, i) => (i % 2 === 1 ? html`<code>${part}</code>` : part))}`;
}
