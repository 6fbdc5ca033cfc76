/**
 * The operator interface of the specification, as a factory over its dependencies: the admin
 * host's app, composed of the service's rows (service/routes.ts), the JSON API's (api/routes.ts),
 * SCIM's (scim/routes.ts) and the console's (console/routes.ts), in that order, each behind the guard its access rule
 * names. Only console rows are guarded: the other tables' rows are typed `none` or `token`.
 */
import type { Hono } from 'hono';
import { apiRoutes } from '../api/routes.ts';
import { guard } from '../console/guard.ts';
import { consoleRoutes } from '../console/routes.ts';
import type { Ctx, InterfaceDeps, UiEnv } from '../context/deps.ts';
import type { DoorRoute } from '../context/routes.ts';
import { buildApp } from '../http/router.ts';
import { scimRoutes } from '../scim/routes.ts';
import { serviceRoutes } from '../service/routes.ts';
import { oidcStateCodec } from '../session/oidc_state.ts';
import { sessionCodec } from '../session/session.ts';
import { semaphore } from '../throttle/throttle.ts';

/** Sign-in attempts (of all addresses) that may wait for one of the two password-hash slots. */
const MAX_WAITING_HASHES = 64;

/** Every route of the admin host: the one table the app, 404/405 and the generated guard test derive from. */
export const interfaceRoutes: readonly DoorRoute[] = [...serviceRoutes, ...apiRoutes, ...scimRoutes, ...consoleRoutes];

export function createInterface(deps: InterfaceDeps): Hono<UiEnv> {
  const { config } = deps;
  // The specification: BaseURL "with trailing `/` removed", followed by /admin/callback.
  const baseUrl = config.baseUrl.replace(/\/$/, '');
  const ctx: Ctx = {
    ...deps,
    sessions: sessionCodec(config.sessionKeys, config.sessionTtlSeconds),
    oidcStates: oidcStateCodec(config.sessionKeys),
    oidcAvailable: deps.oidc !== undefined && config.oidcEnabled && baseUrl !== '',
    redirectUri: `${baseUrl}/admin/callback`,
    hashSlot: semaphore(2, MAX_WAITING_HASHES),
  };
  const routes = interfaceRoutes.map(({ method, path, access, handler }) => ({
    method,
    path,
    middleware: access === 'none' || access === 'token' ? [] : [guard(ctx, access)],
    handler: handler(ctx),
  }));
  return buildApp(routes, deps.logger, deps.metrics?.http('console'));
}
