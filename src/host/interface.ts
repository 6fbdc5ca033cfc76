/**
 * The operator interface of the specification, as a factory over its dependencies: the rows of
 * routes.ts, each behind the guard its access rule names, in the order of the table.
 */
import type { Hono } from 'hono';
import { buildApp } from '../http/router.ts';
import { sessionCodec } from '../session/session.ts';
import { semaphore } from '../throttle/throttle.ts';
import type { Ctx, InterfaceDeps, UiEnv } from '../context/deps.ts';
import { guard } from '../console/guard.ts';
import { consoleRoutes } from '../console/routes.ts';

/** Sign-in attempts (of all addresses) that may wait for one of the two password-hash slots. */
const MAX_WAITING_HASHES = 64;

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
  const routes = consoleRoutes.map(({ method, path, access, handler }) => ({
    method,
    path,
    middleware: access === 'none' || access === 'token' ? [] : [guard(ctx, access)],
    handler: handler(ctx),
  }));
  return buildApp(routes, deps.logger, deps.metrics?.http('console'));
}
