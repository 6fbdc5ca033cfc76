/** Helpers shared by the guarded page handlers. */
import type { Context } from 'hono';
import type { Actor, Viewer } from '../domain/accounts.ts';
import { clientAddress } from '../http/client_address.ts';
import { FAILURES, type FailureName, fail, failureText } from '../http/failures.ts';
import {
  consoleFailure,
  type ListDeclaration,
  type Parameters,
  parseConsole,
  sentValues,
  type Values,
} from '../lists/parameters.ts';
import type { Chrome } from '../views/layout.ts';
import type { FilterError } from '../views/list_parts.ts';
import type { Refused } from '../views/form_errors.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { takeNotice } from './notice.ts';

export function chrome(ctx: Ctx, c: Context<UiEnv>): Chrome {
  const session = c.get('session');
  return { session, csrf: ctx.sessions.csrfToken(session), now: ctx.clock.now(), notice: takeNotice(ctx, c) };
}

/** The signed-in account as a viewer: its subject, admin flag and groups (set by the guard). */
export function viewer(c: Context<UiEnv>): Viewer {
  const { subject, admin } = c.get('session');
  return { subject, admin, groups: c.get('groups') ?? [] };
}

/** The signed-in account as the actor of an action (actions/), with the client it acts from. */
export function actor(c: Context<UiEnv>): Actor {
  return { ...viewer(c), client: clientAddress(c) };
}

/**
 * The list's parameters of the request (lists/), or the plain-text 400 for the first at fault;
 * parameters the list does not declare are ignored.
 */
export function listParameters<P extends Parameters>(c: Context, list: ListDeclaration<P>): Values<P> | Response {
  const parsed = parseConsole(list, new URL(c.req.url).searchParams);
  if (parsed.ok) return parsed.values;
  const { failure, detail } = consoleFailure(list, parsed.fault);
  return fail(c, failure, detail);
}

/** A list's query read for its page: the values, or the values as sent and what is wrong with them. */
export type ListQuery<P extends Parameters> =
  { ok: true; values: Values<P> } | { ok: false; sent: Values<P>; error: FilterError };

/**
 * The list's parameters of the request for a page that answers a bad one with itself (docs/contract.md
 * section 22: the form filled in as sent, the message beside the field at fault, status 400);
 * parameters the list does not declare are ignored.
 */
export function listQuery<P extends Parameters>(c: Context, list: ListDeclaration<P>): ListQuery<P> {
  const params = new URL(c.req.url).searchParams;
  const parsed = parseConsole(list, params);
  if (parsed.ok) return parsed;
  const { fault } = parsed;
  // A bad value's own explanation (the rule it broke) when its kind gives one, else its failure's message.
  const message =
    fault.problem === 'bad' && fault.detail !== undefined ? fault.detail : FAILURES[fault.failure].message;
  return { ok: false, sent: sentValues(list, params), error: { parameter: fault.parameter, message } };
}

/**
 * The posted form refused for the value of its field `field` (docs/contract.md section 22): what it
 * sent, to fill the form in again, and the failure's message (with its detail) to show beside it.
 */
export function refusedForm(c: Context<UiEnv>, field: string, failure: FailureName, detail?: string): Refused {
  return { sent: c.get('form'), error: { field, message: failureText(failure, detail).trimEnd() } };
}

/** Whether the session is the break-glass account's (the second factor is its alone: docs/contract.md section 14). */
export function isBreakGlass(ctx: Ctx, c: Context<UiEnv>): boolean {
  return c.get('session').subject === `local:${ctx.config.adminUser}`;
}

/**
 * The position of a later page's first row, as the "Older" link says it (`from`): only for the range
 * a list says it shows, so a missing or bad one is not an error (the page then says "50 older devices").
 */
export function pagePosition(params: URLSearchParams): number | undefined {
  const given = params.getAll('from');
  return given.length === 1 && /^[1-9][0-9]{0,8}$/.test(given[0] ?? '') ? Number(given[0]) : undefined;
}

/** The position of a page's first row: 1 on the first page, else as its link says (pagePosition). */
export function pageFrom(c: Context, first: boolean): number | undefined {
  return first ? 1 : pagePosition(new URL(c.req.url).searchParams);
}
