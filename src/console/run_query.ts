/**
 * The run view's query (docs/contract.md section 21): `line` (and `part`, for the pieces of a line
 * longer than a page) opens the page holding that line; `find` lists the lines holding a text. A bad
 * value is a fault the page shows beside its field, with 400 (section 22, "Errors keep the form").
 * Other parameters are ignored, as the run view always did.
 */
import { FIND_MAX } from '../domain/run_find.ts';
import type { PageStart } from '../domain/run_pages.ts';
import type { ReadingFields } from '../views/run_lines.ts';

/** Line numbers up to nine digits: a run of 16 MiB holds at most 16,777,217 lines. */
const LINE_NUMBER = /^[1-9][0-9]{0,8}$/;

export interface RunQuery extends ReadingFields {
  want: PageStart;
  /** The text to find, trimmed, when it was given and is good. */
  find: string | undefined;
}

export function runQuery(params: URLSearchParams): RunQuery {
  const lines = params.getAll('line');
  const parts = params.getAll('part');
  const finds = params.getAll('find');
  const sent = { line: lines[0] ?? '', find: finds[0] ?? '' };
  const faults: RunQuery['faults'] = {};
  const want = { line: 1, part: 1 };
  faults.line = lineFault(lines) ?? lineFault(parts, 'part');
  if (faults.line === undefined) {
    want.line = Number(lines[0] ?? 1);
    want.part = Number(parts[0] ?? 1);
  }
  faults.find = finds.length === 0 ? undefined : findFault(finds);
  const find = finds.length === 0 || faults.find !== undefined ? undefined : sent.find.trim();
  return { want, find, sent, faults };
}

function lineFault(values: string[], name = 'line'): string | undefined {
  if (values.length > 1) return `Give ${name} once.`;
  const value = values[0];
  if (value === undefined || LINE_NUMBER.test(value)) return undefined;
  return name === 'line'
    ? 'Give a line number: a whole number from 1 (a number past the last line opens the last page).'
    : 'The part of a line is a whole number from 1.';
}

function findFault(values: string[]): string | undefined {
  if (values.length > 1) return 'Give one text to find.';
  const text = (values[0] ?? '').trim();
  if (text === '') return 'Enter the text to find.';
  const length = [...text].length;
  if (length > FIND_MAX) return `Find at most ${FIND_MAX} characters (this is ${length}).`;
  if (/[\r\n]/.test(text)) return 'Find looks within one line: the text cannot hold a line break.';
  if (!/[\p{L}\p{N}]/u.test(text)) return 'Find needs at least one letter or digit.';
  return undefined;
}
