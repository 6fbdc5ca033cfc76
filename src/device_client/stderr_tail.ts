/**
 * The end of a failed command's standard error, as a decline carries it (docs/contract.md section
 * 15, `stderr`): the last DECLINE_STDERR_MAX bytes it wrote, kept while it runs (never more in
 * memory), then made what the server accepts: valid UTF-8 (a character cut at the start dropped, an
 * invalid sequence U+FFFD) with no control character but line feed and tab (each other one `?`).
 */
import { DECLINE_STDERR_MAX } from '../domain/collections.ts';

/** Keeps the last `max` bytes written to it. */
export class TailBuffer {
  readonly #max: number;
  #kept: Buffer = Buffer.alloc(0);
  constructor(max = DECLINE_STDERR_MAX) {
    this.#max = max;
  }
  push(chunk: Buffer): void {
    const joined = Buffer.concat([this.#kept, chunk.subarray(Math.max(0, chunk.length - this.#max))]);
    this.#kept = joined.subarray(Math.max(0, joined.length - this.#max));
  }
  /** The kept bytes as the `stderr` of a decline; empty when nothing was written. */
  text(): string {
    return declineStderr(this.#kept, this.#max);
  }
}

const CONTROL = /[\0-\x08\x0b-\x1f\x7f-\x9f]/g;

/** `bytes` (the end of a stream) as a decline's `stderr` of at most `max` bytes of UTF-8. */
export function declineStderr(bytes: Buffer, max = DECLINE_STDERR_MAX): string {
  let start = 0;
  // A character cut by the tail: its continuation bytes (10xxxxxx) at the start go.
  while (start < bytes.length && start < 3 && ((bytes[start] ?? 0) & 0xc0) === 0x80) start++;
  let text = new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(start)).replace(CONTROL, '?');
  // U+FFFD is 3 bytes where an invalid byte was 1: drop whole characters from the start to fit again.
  while (Buffer.byteLength(text, 'utf8') > max) text = text.slice((text.codePointAt(0) ?? 0) > 0xffff ? 2 : 1);
  return text;
}
