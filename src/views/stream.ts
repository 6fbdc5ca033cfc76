/**
 * A page whose middle is untrusted text streamed from the store: the head, then each chunk decoded
 * as UTF-8 and escaped, then the tail. Memory stays at about one chunk per view, whatever the size.
 */
import { randomUUID } from 'node:crypto';
import { escapeHtml, type Html, raw } from './html.ts';

/** Marks where the streamed text goes; the random part cannot occur in escaped content. */
export const STREAM_SLOT: Html = raw(`<!--stream-${randomUUID()}-->`);

function split(page: Html): [string, string] {
  const at = page.value.indexOf(STREAM_SLOT.value);
  if (at === -1) throw new TypeError('streamedPage: the page has no STREAM_SLOT');
  return [page.value.slice(0, at), page.value.slice(at + STREAM_SLOT.value.length)];
}

/** The same page rendered whole: for small content a stream costs more than it saves. */
export async function wholePage(page: Html, text: AsyncIterable<Uint8Array>): Promise<string> {
  const [head, tail] = split(page);
  const decoder = new TextDecoder('utf-8', { fatal: false });
  let out = head;
  for await (const chunk of text) out += escapeHtml(decoder.decode(chunk, { stream: true }));
  return out + escapeHtml(decoder.decode()) + tail;
}

export function streamedPage(page: Html, text: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const [head, tail] = split(page);
  const encoder = new TextEncoder();
  // Not fatal: bytes that are not UTF-8 show as U+FFFD; the stored bytes are never changed.
  const decoder = new TextDecoder('utf-8', { fatal: false });
  const chunks = text[Symbol.asyncIterator]();
  let headSent = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headSent) {
        headSent = true;
        controller.enqueue(encoder.encode(head));
        return;
      }
      const { done, value } = await chunks.next();
      if (done) {
        controller.enqueue(encoder.encode(escapeHtml(decoder.decode()) + tail));
        controller.close();
        return;
      }
      controller.enqueue(encoder.encode(escapeHtml(decoder.decode(value, { stream: true }))));
    },
    async cancel() {
      await chunks.return?.();
    },
  });
}
