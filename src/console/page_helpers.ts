/** Helpers shared by the guarded page handlers. */
import type { Context } from 'hono';
import type { Actor, Viewer } from '../domain/accounts.ts';
import { clientAddress } from '../http/client_address.ts';
import { fail } from '../http/failures.ts';
import {
  consoleFailure,
  type ListDeclaration,
  type Parameters,
  parseConsole,
  type Values,
} from '../lists/parameters.ts';
import type { Chrome } from '../views/layout.ts';
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

/** Whether the session is the break-glass account's (the second factor is its alone: docs/contract.md section 14). */
export function isBreakGlass(ctx: Ctx, c: Context<UiEnv>): boolean {
  return c.get('session').subject === `local:${ctx.config.adminUser}`;
}
