/**
 * Tables for people in a terminal. Every value comes from the server, and a device name could
 * carry escape sequences that rewrite the terminal, or a bidi override that reorders what is shown.
 */
import { logText } from '../log/log_text.ts';

/** The text as a log writes it (log/log_text.ts): controls, bidi overrides and `\` escaped, visibly. */
export function printable(value: unknown): string {
  const text = value === null || value === undefined ? '-' : String(value);
  return logText(text);
}

/** Columns padded to their widest cell, a header first; the last column is not padded. */
export function table(headers: readonly string[], rows: ReadonlyArray<readonly unknown[]>): string {
  const cells = [headers.map(String), ...rows.map((r) => r.map(printable))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => [...(r[i] ?? '')].length)));
  return cells
    .map((r) =>
      r
        .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd((widths[i] ?? 0) + cell.length - [...cell].length)))
        .join('  ')
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join('');
}

/** One record as `key: value` lines. */
export function record(fields: Record<string, unknown>): string {
  const width = Math.max(...Object.keys(fields).map((k) => k.length));
  return Object.entries(fields)
    .map(([k, v]) => `${`${k}:`.padEnd(width + 1)} ${printable(pairs(v))}\n`)
    .join('');
}

/** An object (a device's labels) as `key=value,key=value`, `-` when empty; anything else as it is. */
export function pairs(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const text = Object.entries(value)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(',');
  return text === '' ? '-' : text;
}
