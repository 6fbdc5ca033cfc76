/** Helpers shared by the guarded page handlers. */
import type { Context } from 'hono';
import type { Actor, Viewer } from '../domain/accounts.ts';
import { clientAddress } from '../http/client_address.ts';
import type { Chrome } from '../views/layout.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { takeNotice } from './notice.ts';

export function chrome(ctx: Ctx, c: Context<UiEnv>): Chrome {
  const session = c.get('session');
  return { session, csrf: ctx.sessions.csrfToken(session), now: ctx.clock.now(), notice: takeNotice(ctx, c) };
}

export function viewer(c: Context<UiEnv>): Viewer {
  const { subject, admin } = c.get('session');
  return { subject, admin };
}

/** The signed-in account as the actor of an action (actions/), with the client it acts from. */
export function actor(c: Context<UiEnv>): Actor {
  const { subject, admin } = c.get('session');
  return { subject, admin, client: clientAddress(c) };
}

/** The keyset cursor `before`: absent, or a positive integer; undefined result means malformed. */
export function pageCursor(c: Context<UiEnv>): { before: string | undefined } | undefined {
  const values = c.req.queries('before');
  if (values === undefined) return { before: undefined };
  const [value] = values;
  return values.length === 1 && value !== undefined && /^[1-9][0-9]{0,14}$/.test(value) ? { before: value } : undefined;
}
