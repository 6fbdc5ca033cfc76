/**
 * The run view's content (docs/contract.md section 21): a page of numbered lines with the links
 * between pages, the lines a find matched, the forms that ask for them, and the hex view of a
 * binary run.
 */
import { findExpression, type FindResult } from '../domain/run_find.ts';
import type { BinaryRun, PageStart, TextPage } from '../domain/run_pages.ts';
import { size } from './format.ts';
import { html, type Html, htmlText, raw } from './html.ts';

/** "30,000": counts in the page's words, without a locale lookup per call. */
export function count(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+$)/g, ',');
}

/** The link that opens the page beginning at `start`. */
export function pageHref(path: string, start: PageStart): string {
  return start.part === 1 ? `${path}?line=${start.line}` : `${path}?line=${start.line}&part=${start.part}`;
}

/**
 * HTML drops one line feed right after `<pre>`: this one, so content that begins with a line feed
 * keeps it (HTML Standard, "in body" insertion mode, the `pre` start tag).
 */
const PRE_NEWLINE = '\n';

/* eslint-disable no-restricted-syntax -- The two views below build one string for up to 1,000 lines
   (a template per line costs a measurable part of the page): the run's text passes htmlText, which
   escapes it exactly as the tag does and leaves line feeds as they are, and the only markup added
   is a line number (digits) in a link and <mark> around matches that were escaped too. */

/**
 * The page's lines, each after its number, which is an anchor (`id="L12"`) and links to itself:
 * the text is escaped whole and numbered at its line feeds, the bytes otherwise as stored.
 */
export function numberedLines(text: string, first: number): Html {
  const escaped = htmlText(text).value;
  let lines = 0;
  for (let at = escaped.indexOf('\n'); at !== -1 && at < escaped.length - 1; at = escaped.indexOf('\n', at + 1))
    lines++;
  const width = String(first + lines).length;
  let out = PRE_NEWLINE;
  let n = first;
  for (let at = 0; at < escaped.length; n++) {
    const newline = escaped.indexOf('\n', at);
    const end = newline === -1 ? escaped.length : newline + 1;
    const number = String(n);
    out += `${' '.repeat(width - number.length)}<a id="L${number}" href="#L${number}">${number}</a>  ${escaped.slice(at, end)}`;
    at = end;
  }
  return raw(`<pre>${out}</pre>`);
}

/** The lines a find matched, each after its number (a link to its page), every match in `<mark>`. */
function foundLines(path: string, result: Extract<FindResult, { kind: 'text' }>, text: string): Html {
  const expression = findExpression(text);
  const last = result.found[result.found.length - 1]?.line ?? 0;
  const width = String(last).length;
  let out = PRE_NEWLINE;
  for (const found of result.found) {
    const number = String(found.line);
    out += `${' '.repeat(width - number.length)}<a href="${path}?line=${number}#L${number}">${number}</a>  `;
    if (found.cutBefore) out += '…';
    let at = 0;
    for (const m of found.text.matchAll(expression)) {
      out += `${htmlText(found.text.slice(at, m.index)).value}<mark>${htmlText(m[0]).value}</mark>`;
      at = m.index + m[0].length;
    }
    out += htmlText(found.text.slice(at)).value;
    out += found.cutAfter ? '…\n' : '\n';
  }
  return raw(`<pre>${out}</pre>`);
}

/* eslint-enable no-restricted-syntax */

/** The reading forms' values as sent, and what is wrong with them (shown beside the field, with 400). */
export interface ReadingFields {
  sent: { line: string; find: string };
  faults: { line?: string | undefined; find?: string | undefined };
}

/** The forms that find in the run and open a line's page; a bad value is shown beside its field. */
export function readingForms(path: string, { sent, faults }: ReadingFields): Html {
  return html`<form method="get" action="${path}" role="search">
      <p>
        <label for="find">Find in this run</label>
        <input id="find" name="find" type="search" value="${sent.find}" ${field('find', faults.find)} />
        <button type="submit">Find lines</button>
        ${error('find', faults.find)}
      </p>
    </form>
    <form method="get" action="${path}">
      <p>
        <label for="line">Go to line</label>
        <input id="line" name="line" inputmode="numeric" value="${sent.line}" ${field('line', faults.line)} />
        <input type="hidden" name="go" value="line" />
        <button type="submit">Open its page</button>
        ${error('line', faults.line)}
      </p>
    </form>`;
}

function field(name: string, fault: string | undefined): Html {
  return fault === undefined ? html`` : html`aria-invalid="true" aria-describedby="${name}-error"`;
}

function error(name: string, fault: string | undefined): Html {
  return fault === undefined ? html`` : html`<strong id="${name}-error">${fault}</strong>`;
}

/**
 * The links to the first, previous, next and last pages, above the lines and below them; each
 * `nav` is labelled by where it is, as two landmarks of one name could not be told apart.
 */
function pageLinks(path: string, page: TextPage, where: 'above' | 'below'): Html {
  const link = (label: string, to: PageStart | undefined) =>
    to === undefined ? html`<span>${label}</span>` : html`<a href="${pageHref(path, to)}">${label}</a>`;
  const first = page.index === 0 ? undefined : { line: 1, part: 1 };
  const last = page.index === page.pages - 1 ? undefined : page.last;
  return html`<nav aria-label="Pages of the run, ${where} its lines">
    <p>
      ${link('First page', first)} · ${link('Previous page', page.previous)} · ${link('Next page', page.next)} ·
      ${link('Last page', last)}
    </p>
  </nav>`;
}

/** "Lines 1,001–2,000 of 30,000 · 2.3 MiB (page 2 of 30)", and where a line cut by the page goes on. */
function pageSummary(page: TextPage, shown: number): Html {
  const from = page.start.line;
  const to = from + Math.max(0, shown - 1);
  const lines = shown === 0 ? 'No lines' : from === to ? `Line ${count(from)}` : `Lines ${count(from)}–${count(to)}`;
  return html`<p>
      ${lines} of ${count(page.lines)} · ${size(page.bytes)} (${count(page.bytes)} bytes) · page ${count(page.index + 1)}
      of ${count(page.pages)}
    </p>
    ${
      page.start.part > 1
        ? html`<p>Line ${count(from)} is longer than a page: this page begins with its part ${page.start.part}.</p>`
        : ''
    }
    ${page.endsInLine ? html`<p>Line ${count(to)} goes on on the next page.</p>` : ''}`;
}

export function textPage(path: string, page: TextPage): Html {
  const text = Buffer.from(page.body.buffer, page.body.byteOffset, page.body.byteLength).toString('utf8');
  let shown = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) shown++;
  if (text.length > 0 && !text.endsWith('\n')) shown++;
  if (page.lines === 0) return html`<p>The run is empty.</p>`;
  return html`${pageSummary(page, shown)} ${pageLinks(path, page, 'above')} ${numberedLines(text, page.start.line)}
  ${pageLinks(path, page, 'below')}`;
}

export function foundPage(path: string, result: Extract<FindResult, { kind: 'text' }>, text: string): Html {
  const matched = result.found.length + result.more;
  return html`<h3>Lines that hold “${text}”</h3>
    <p>
      ${
        matched === 0
          ? html`No line of the run's ${count(result.lines)} holds it.`
          : html`${count(matched)} of the run's ${count(result.lines)} lines hold it${
              result.more > 0
                ? html`; the first ${count(result.found.length)} are listed, and ${count(result.more)} more lines hold it`
                : ''
            }.`
      }
      Each number opens the line's page. <a href="${path}">Back to the first page</a>
    </p>
    ${matched === 0 ? '' : foundLines(path, result, text)}`;
}

/** A binary run: its first bytes as hex, 16 a row, with their offset and the printable ASCII ones. */
export function hexPage(run: BinaryRun, contentType: string): Html {
  let dump = '';
  for (let row = 0; row < run.head.byteLength; row += 16) {
    const bytes = run.head.subarray(row, row + 16);
    let hex = '';
    let ascii = '';
    for (let i = 0; i < 16; i++) {
      const byte = bytes[i];
      hex += (byte === undefined ? '  ' : byte.toString(16).padStart(2, '0')) + (i === 7 ? '  ' : ' ');
      if (byte !== undefined) ascii += byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : '.';
    }
    dump += `${row.toString(16).padStart(8, '0')}  ${hex} |${ascii}|\n`;
  }
  return html`<p>
      This run is not UTF-8 text (its content type says <code>${contentType}</code>), so it is shown as hex: its first
      ${count(run.head.byteLength)} of ${count(run.bytes)} bytes (${size(run.bytes)}), with their offset and, on the
      right, the bytes that are printable ASCII. It has no lines to page through or find in; download it to read it
      whole.
    </p>
    <pre>${PRE_NEWLINE}${dump}</pre>`;
}
