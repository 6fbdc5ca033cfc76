/**
 * The API's parameters are checked more strictly than the console's GET forms: a parameter the
 * endpoint does not know, or one given twice, is a 400 problem naming it (a script's typo must not
 * silently list everything). Values go through the console's own parsers (ui/list_query.ts).
 */
import type { Context } from 'hono';
import { FAILURES, type FailureName } from '../http/failures.ts';
import { problem } from './problem.ts';

/** A problem for the first unknown or repeated parameter, or undefined when all are known, once. */
export function strictParameters(c: Context, known: readonly string[]): Response | undefined {
  const params = new URL(c.req.url).searchParams;
  for (const name of params.keys()) {
    if (!known.includes(name))
      return problem(c, 400, 'unknown parameter', `${name} is not a parameter of this list`, { field: name });
    if (params.getAll(name).length > 1)
      return problem(c, 400, 'repeated parameter', `${name} is given more than once`, { field: name });
  }
  return undefined;
}

/** The 400 problem for a failure of the console's parsers, naming the parameter it is about. */
export function badParameter(c: Context, failure: FailureName, field: Partial<Record<FailureName, string>>): Response {
  return problem(c, 400, 'bad parameter', FAILURES[failure].message, { field: field[failure] ?? '' });
}

/** The 400 problem for a body field the console's checks refused, with the console's message. */
export function badField(c: Context, failure: FailureName, field: Partial<Record<FailureName, string>>): Response {
  return problem(c, 400, 'bad field', FAILURES[failure].message, { field: field[failure] ?? '' });
}
