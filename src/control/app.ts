/** The device-facing control app of docs/contract.md section 6, as a factory over its dependencies: the rows of routes.ts. */
import type { Hono } from 'hono';
import { buildApp } from '../http/router.ts';
import type { ControlDeps } from './deps.ts';
import { controlRoutes } from './routes.ts';

export function createControlApp(deps: ControlDeps): Hono {
  const routes = controlRoutes.map(({ method, path, handler }) => ({
    method,
    path,
    middleware: [],
    handler: handler(deps),
  }));
  return buildApp(routes, deps.logger, deps.metrics?.http('control'));
}
