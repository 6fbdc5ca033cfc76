/**
 * The operator interface of the specification, as a factory over its dependencies. Every route,
 * its access rule and its middleware order is in the one table below, read top to bottom.
 */
import type { Hono } from 'hono';
import { buildApp, type Route } from '../http/router.ts';
import { sessionCodec } from '../session/session.ts';
import { semaphore } from '../throttle/throttle.ts';
import { authCallback } from './auth_callback.ts';
import { authStart } from './auth_start.ts';
import { dashboard } from './dashboard.ts';
import type { Ctx, InterfaceDeps, UiEnv } from './deps.ts';
import { deviceRevoke } from './device_revoke.ts';
import { devicesList } from './devices_list.ts';
import { discover } from './discover.ts';
import { enrollTokenMint } from './enroll_token_mint.ts';
import { type Access, guard } from './guard.ts';
import { healthz } from './healthz.ts';
import { loginCheck } from './login_check.ts';
import { loginShow } from './login_show.ts';
import { logout } from './logout.ts';
import { runDelete } from './run_delete.ts';
import { runShow } from './run_show.ts';
import { runsList } from './runs_list.ts';

/** Sign-in attempts (of all addresses) that may wait for one of the two password-hash slots. */
const MAX_WAITING_HASHES = 64;

type Handler = Route<UiEnv>['handler'];

export function createInterface(deps: InterfaceDeps): Hono<UiEnv> {
  const { config } = deps;
  // The specification: BaseURL "with trailing `/` removed", followed by /admin/callback.
  const baseUrl = config.baseUrl.replace(/\/$/, '');
  const ctx: Ctx = {
    ...deps,
    sessions: sessionCodec(config.sessionKeys, config.sessionTtlSeconds),
    oidcAvailable: deps.oidc !== undefined && config.oidcEnabled && baseUrl !== '',
    redirectUri: `${baseUrl}/admin/callback`,
    hashSlot: semaphore(2, MAX_WAITING_HASHES),
  };

  const table: Array<[Route<UiEnv>['method'], string, Access, (ctx: Ctx) => Handler]> = [
    ['GET', '/healthz', 'none', healthz],
    ['GET', '/v1/discover', 'none', discover],
    ['GET', '/login', 'none', loginShow],
    ['POST', '/login', 'none', loginCheck],
    ['GET', '/auth/start', 'none', authStart],
    ['GET', '/admin/callback', 'none', authCallback],
    ['POST', '/logout', 'none', logout],
    ['GET', '/', 'guarded', dashboard],
    ['GET', '/devices', 'guarded', devicesList],
    ['GET', '/runs', 'guarded', runsList],
    ['GET', '/runs/:device/:id', 'guarded', runShow],
    ['POST', '/runs/:device/:id/delete', 'guarded', runDelete],
    ['POST', '/devices/:id/revoke', 'admin', deviceRevoke],
    ['POST', '/enroll-tokens', 'admin', enrollTokenMint],
  ];

  const routes = table.map(([method, path, access, handler]) => ({
    method,
    path,
    middleware: access === 'none' ? [] : [guard(ctx, access)],
    handler: handler(ctx),
  }));
  return buildApp(routes, deps.logger);
}
