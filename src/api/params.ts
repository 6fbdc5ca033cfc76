/**
 * The API's parameters are checked more strictly than the console's GET forms: a parameter the
 * endpoint does not know, or one given twice, is a 400 problem naming it (a script's typo must not
 * silently list everything). A list's values go through the parser its declaration gives
 * (lists/parameters.ts, parseApi).
 */
import type { Context } from 'hono';
import { FAILURES, type FailureName } from '../http/failures.ts';
import {
  type Fault,
  type ListDeclaration,
  type Parameters,
  parseApi,
  strictFault,
  type Values,
} from '../lists/parameters.ts';
import { problem } from './problem.ts';

/** A problem for the first unknown or repeated parameter, or undefined when all are known, once. */
export function strictParameters(
  c: Context,
  known: readonly string[],
  repeatable: readonly string[] = [],
): Response | undefined {
  const fault = strictFault(known, new URL(c.req.url).searchParams, repeatable);
  return fault && parameterProblem(c, fault);
}

/** The list's parameters of the request, or the 400 problem naming the one at fault. */
export function listParameters<P extends Parameters>(c: Context, list: ListDeclaration<P>): Values<P> | Response {
  const parsed = parseApi(list, new URL(c.req.url).searchParams);
  return parsed.ok ? parsed.values : parameterProblem(c, parsed.fault);
}

/** The 400 problem for a parameter at fault, naming it in `field`. */
export function parameterProblem(c: Context, fault: Fault): Response {
  const field = { field: fault.parameter };
  if (fault.problem === 'unknown')
    return problem(c, 400, 'unknown parameter', `${fault.parameter} is not a parameter of this list`, field);
  if (fault.problem === 'repeated')
    return fault.failure === 'repeatedParameter'
      ? problem(c, 400, 'repeated parameter', `${fault.parameter} is given more than once`, field)
      : problem(c, 400, 'repeated parameter', FAILURES[fault.failure].message, field);
  const detail = fault.detail === undefined ? '' : `: ${fault.detail}`;
  return problem(c, 400, 'bad parameter', `${FAILURES[fault.failure].message}${detail}`, field);
}

/** The 400 problem for a body field the console's checks refused, with the console's message. */
export function badField(
  c: Context,
  failure: FailureName,
  field: Partial<Record<FailureName, string>>,
  detail?: string,
): Response {
  const message = detail === undefined ? FAILURES[failure].message : `${FAILURES[failure].message}: ${detail}`;
  return problem(c, 400, 'bad field', message, { field: field[failure] ?? '' });
}
