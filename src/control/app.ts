/** The device-facing control API of CONTRACT section 6, as a factory over its dependencies: the rows of routes.ts. */
import type { Hono } from 'hono';
import type { Clock } from '../clock.ts';
import { buildApp } from '../http/router.ts';
import type { Logger } from '../log/logger.ts';
import type { Store } from '../store/store.ts';
import { controlRoutes } from './routes.ts';

export interface ControlDeps {
  store: Store;
  logger: Logger;
  clock: Clock;
  /** Bytes of run uploads held in memory at once, all devices together (default 128 MiB). */
  uploadBudgetBytes?: number;
}

export function createControlApi(deps: ControlDeps): Hono {
  const routes = controlRoutes.map(({ method, path, handler }) => ({
    method,
    path,
    middleware: [],
    handler: handler(deps),
  }));
  return buildApp(routes, deps.logger);
}
