/**
 * The shape of a row in the doors' route tables (console/routes.ts, api/routes.ts,
 * service/routes.ts), which host/interface.ts composes into the admin host's app.
 */
import type { Handler } from 'hono';
import type { Method } from '../http/router.ts';
import type { Ctx, UiEnv } from './deps.ts';

/**
 * none: anyone; token: a bearer token the handler checks itself (no session, no cookie, so no
 * CSRF); guarded: a session, and `csrf` on state changes; admin: guarded and Admin.
 */
export type Access = 'none' | 'token' | 'guarded' | 'admin';

/** A row whose access rule is one of `A`: the API's rows are all `token`, the service's never need a session. */
export interface DoorRoute<A extends Access = Access> {
  method: Method;
  /** Hono's pattern syntax: `:name` is one path segment. */
  path: string;
  access: A;
  handler: (ctx: Ctx) => Handler<UiEnv>;
}
