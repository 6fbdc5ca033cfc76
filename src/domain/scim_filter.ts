/**
 * SCIM filters (RFC 7644 section 3.4.2.2), the part Paddock answers: comparisons `attrPath eq
 * value` joined by `and`, operators in any case. The same parser reads a list's `filter` parameter
 * and the filter of a PATCH path (`members[value eq "…"]`). Anything else (`or`, `not`, brackets,
 * `co`, `sw`, a value that is not a JSON string, true, false or null) is refused, never half-read.
 */
import { invalid, type ScimFailure } from './scim_failure.ts';

/** One comparison of a filter: the attribute path as written, and the value it must equal. */
export interface Comparison {
  readonly path: string;
  readonly value: string | boolean | null;
}

/** The longest filter read: a provider's filters are one or two comparisons. */
export const FILTER_MAX = 1024;

const ATTR_PATH = /^(?:urn:[A-Za-z0-9:._-]+:)?[A-Za-z$][\w$-]*(?:\.[A-Za-z$][\w$-]*)?/i;
const OPERATORS = new Set(['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'lt', 'ge', 'le', 'pr']);

/** The comparisons of `text`, all of which must hold, or an invalidFilter failure naming what is wrong. */
export function parseFilter(text: string): Comparison[] | ScimFailure {
  if (text.length > FILTER_MAX) return invalid('invalidFilter', `the filter is longer than ${FILTER_MAX} characters`);
  const comparisons: Comparison[] = [];
  let rest = text.trim();
  for (;;) {
    const path = ATTR_PATH.exec(rest)?.[0];
    if (path === undefined) return invalid('invalidFilter', `expected an attribute at: ${excerpt(rest)}`);
    rest = rest.slice(path.length);
    const op = /^ +([A-Za-z]+)/.exec(rest);
    if (!op?.[1] || !OPERATORS.has(op[1].toLowerCase()))
      return invalid('invalidFilter', `expected an operator after ${path}`);
    if (op[1].toLowerCase() !== 'eq')
      return invalid('invalidFilter', `the operator ${op[1]} is not supported: only eq, joined by and`);
    rest = rest.slice(op[0].length);
    const value = compValue(rest);
    if (value === undefined) return invalid('invalidFilter', `expected a value after ${path} ${op[1]}`);
    comparisons.push({ path, value: value.value });
    rest = rest.slice(value.length);
    if (rest.trim() === '') return comparisons;
    const and = /^ +and +/i.exec(rest);
    if (!and) return invalid('invalidFilter', `expected "and" at: ${excerpt(rest)} (only eq, joined by and)`);
    rest = rest.slice(and[0].length);
  }
}

/** A JSON string, true, false or null at the start of `text`, and how many characters it took. */
function compValue(text: string): { value: string | boolean | null; length: number } | undefined {
  const rest = text.replace(/^ +/, '');
  const skipped = text.length - rest.length;
  if (skipped === 0) return undefined;
  const literal = /^(true|false|null)(?![\w$])/i.exec(rest)?.[1];
  if (literal !== undefined) {
    const lower = literal.toLowerCase();
    return { value: lower === 'null' ? null : lower === 'true', length: skipped + literal.length };
  }
  const quoted = /^"(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9A-Fa-f]{4})*"/.exec(rest)?.[0];
  if (quoted === undefined) return undefined;
  return { value: JSON.parse(quoted) as string, length: skipped + quoted.length };
}

function excerpt(text: string): string {
  return JSON.stringify(text.slice(0, 40));
}
