/** The device-facing control app of docs/contract.md section 6, as a factory over its dependencies: the rows of routes.ts. */
import type { Hono } from 'hono';
import { buildApp } from '../http/router.ts';
import type { ControlDeps } from './deps.ts';
import { controlRoutes } from './routes.ts';
import { allowWhilePending } from './device_auth.ts';
import { requestHub } from '../collections/hub.ts';
import { pinsHeader } from './pins.ts';
import { credentialRules } from './credential_rules.ts';

export function createControlApp(given: ControlDeps): Hono {
  // One hub of held requests for the app's routes (the server passes its own, to drain it).
  const deps = { ...given, requests: given.requests ?? requestHub(given.store, given.clock) };
  const routes = controlRoutes.map(({ method, path, handler, whilePending }) => ({
    method,
    path,
    middleware: whilePending ? [allowWhilePending] : [],
    handler: handler(deps),
  }));
  return buildApp(routes, deps.logger, [
    deps.metrics?.http('control'),
    deps.pins && pinsHeader(deps.pins),
    credentialRules(deps),
  ]);
}
