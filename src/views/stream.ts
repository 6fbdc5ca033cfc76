/**
 * A page whose middle is untrusted text streamed from the store: the head, then each chunk decoded
 * and escaped by `htmlText`, then the tail. Memory stays at about one chunk per view, whatever the
 * size.
 */
import { randomUUID } from 'node:crypto';
import { TextDecoder } from 'node:util';
import { html, type Html, htmlText, splitAt } from './html.ts';

/** Marks where the streamed text goes; the random part cannot occur in escaped content. */
export const STREAM_SLOT: Html = html`<!--stream-${randomUUID()}-->`;

/** Marks where a note goes should the content end short (the run deleted while it is sent). */
export const SHORT_NOTE_SLOT: Html = html`<!--short-${randomUUID()}-->`;

const SHORT_NOTE = html`<p><strong>The content above is incomplete: the run was deleted while this page was being sent.</strong></p>`;

/** The page around the slot; `tail(shown)` closes it, with the note when fewer bytes than `size` were shown. */
function split(page: Html, size: number): [Html, (shown: number) => Html] {
  const parts = splitAt(page, STREAM_SLOT);
  if (parts === undefined) throw new TypeError('streamedPage: the page has no STREAM_SLOT');
  const [head, tail] = parts;
  const around = splitAt(tail, SHORT_NOTE_SLOT);
  if (around === undefined) return [head, () => tail];
  return [head, (shown) => html`${around[0]}${shown < size ? SHORT_NOTE : ''}${around[1]}`];
}

/**
 * The decoder for a run's bytes: the charset its content type names, when it is one the Encoding
 * Standard knows, else UTF-8. Never fatal: bytes that are not text in it show as U+FFFD, and the
 * stored bytes are never changed.
 */
export function textDecoderFor(contentType: string): TextDecoder {
  const label = /;\s*charset\s*=\s*"?([A-Za-z0-9._:+-]{1,40})"?\s*(;|$)/i.exec(contentType)?.[1];
  if (label !== undefined) {
    try {
      return new TextDecoder(label, { fatal: false });
    } catch {
      // An unknown label: UTF-8, as for none.
    }
  }
  return new TextDecoder('utf-8', { fatal: false });
}

/** The same page rendered whole: for small content a stream costs more than it saves. */
export async function wholePage(
  page: Html,
  text: AsyncIterable<Uint8Array>,
  decoder: TextDecoder,
  size: number,
): Promise<string> {
  const [head, tail] = split(page, size);
  const middle: Html[] = [];
  let shown = 0;
  for await (const chunk of text) {
    shown += chunk.byteLength;
    middle.push(htmlText(decoder.decode(chunk, { stream: true })));
  }
  return html`${head}${middle}${htmlText(decoder.decode())}${tail(shown)}`.value;
}

/**
 * Stored chunks are escaped this much at a time: escaping can multiply text sixfold and each step
 * holds the bytes, the decoded text, the escaped text and its encoding at once.
 */
const STEP = 64 * 1024;

export function streamedPage(
  page: Html,
  text: AsyncIterable<Uint8Array>,
  decoder: TextDecoder,
  size: number,
): ReadableStream<Uint8Array> {
  const [head, tail] = split(page, size);
  const encoder = new TextEncoder();
  const chunks = text[Symbol.asyncIterator]();
  let headSent = false;
  let shown = 0;
  let pending: Uint8Array = new Uint8Array(0);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headSent) {
        headSent = true;
        controller.enqueue(encoder.encode(head.value));
        return;
      }
      if (pending.byteLength === 0) {
        const { done, value } = await chunks.next();
        if (done) {
          controller.enqueue(encoder.encode(html`${htmlText(decoder.decode())}${tail(shown)}`.value));
          controller.close();
          return;
        }
        pending = value;
        shown += value.byteLength;
      }
      const step = pending.subarray(0, STEP);
      pending = pending.subarray(step.byteLength);
      controller.enqueue(encoder.encode(htmlText(decoder.decode(step, { stream: true })).value));
    },
    async cancel() {
      await chunks.return?.();
    },
  });
}
