/**
 * A stored run's bytes as text (docs/contract.md section 21): a run is text when its bytes are
 * valid UTF-8, whatever its content type says, and binary otherwise (shown as hex, never indexed
 * nor compared). Read a chunk at a time, as the store hands them out.
 */
import { isUtf8 } from 'node:buffer';
import type { StoredRun } from './runs.ts';

/** The run's bytes whole, or undefined when it is larger than `max` bytes. */
export async function readUpTo(run: Pick<StoredRun, 'read' | 'size'>, max: number): Promise<Uint8Array | undefined> {
  if (run.size > max) return undefined;
  const parts: Uint8Array[] = [];
  for await (const chunk of run.read()) parts.push(chunk);
  return parts.length === 1 ? parts[0] : Buffer.concat(parts);
}

/** The bytes as a string when they are valid UTF-8 (a byte order mark kept as it is), else undefined. */
export function utf8Text(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** Whether the whole run is valid UTF-8, read a chunk at a time (a character may span two chunks). */
export async function isUtf8Run(run: Pick<StoredRun, 'read'>): Promise<boolean> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  try {
    for await (const chunk of run.read()) decoder.decode(chunk, { stream: true });
    decoder.decode();
    return true;
  } catch {
    return false;
  }
}

/** The length of the UTF-8 sequence a lead byte begins (1 for ASCII and for bytes no sequence begins with). */
function sequenceLength(lead: number): number {
  return lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
}

/**
 * Decides whether a run is valid UTF-8 as its chunks go by, without decoding them: `isUtf8` is about
 * thirty times faster than a fatal TextDecoder, which matters because the run view checks the whole
 * run on every page. A character cut by a chunk boundary is checked once its bytes are joined.
 */
export interface Utf8Check {
  /** Takes the next chunk; false once the bytes so far cannot be valid UTF-8. */
  push(chunk: Uint8Array): boolean;
  /** Whether every byte pushed was valid UTF-8, with no character left unfinished. */
  end(): boolean;
}

export function utf8Check(): Utf8Check {
  let valid = true;
  /** The unfinished character at the end of the last chunk (at most 3 bytes). */
  let pending: Uint8Array = new Uint8Array(0);
  return {
    push(chunk) {
      if (!valid) return false;
      let from = 0;
      if (pending.byteLength > 0) {
        const lead = pending[0] ?? 0;
        while (from < 3 && from < chunk.byteLength && ((chunk[from] ?? 0) & 0xc0) === 0x80) from++;
        const joined = Buffer.concat([pending, chunk.subarray(0, from)]);
        if (joined.byteLength < sequenceLength(lead) && from === chunk.byteLength) {
          pending = joined;
          return true;
        }
        if (!isUtf8(joined)) return (valid = false);
      }
      let end = chunk.byteLength;
      for (let back = 1; back <= 3 && end - back >= from; back++) {
        const byte = chunk[end - back] ?? 0;
        if ((byte & 0xc0) === 0x80) continue;
        if (byte >= 0xc0 && back < sequenceLength(byte)) end -= back;
        break;
      }
      if (!isUtf8(chunk.subarray(from, end))) return (valid = false);
      pending = chunk.slice(end);
      return true;
    },
    end() {
      return valid && pending.byteLength === 0;
    },
  };
}
