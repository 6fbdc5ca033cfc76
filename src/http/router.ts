/**
 * Builds a Hono app from a routes table: security headers on everything, plain-text 404 for an
 * unknown path, 405 with Allow for a known path with another method, and no stack trace ever.
 */
import { fail } from './failures.ts';
import { Hono, type Env, type Handler, type MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { Logger } from '../log/logger.ts';
import { isStorageFull, StoreError } from '../store/errors.ts';

import { securityHeaders } from './security_headers.ts';
import { EVENTS } from '../events/catalogue.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Route<E extends Env> {
  method: Method;
  path: string;
  middleware: MiddlewareHandler<E>[];
  handler: Handler<E>;
}

export function buildApp<E extends Env>(
  routes: Route<E>[],
  logger: Logger,
  /** Run first on every request, in order (the metrics' timer; the control app's Paddock-Pins). */
  outer?: MiddlewareHandler | ReadonlyArray<MiddlewareHandler | undefined>,
): Hono<E> {
  const app = new Hono<E>();
  for (const middleware of [outer].flat()) if (middleware) app.use(middleware);
  app.use(securityHeaders());
  for (const route of routes) app.on(route.method, [route.path], ...route.middleware, route.handler);

  const patterns = routes.map((r) => ({ method: r.method, pattern: toRegExp(r.path) }));
  app.notFound((c) => {
    const allowed: string[] = patterns.filter((p) => p.pattern.test(c.req.path)).map((p) => p.method);
    if (allowed.length === 0) return fail(c, 'notFound');
    if (allowed.includes('GET')) allowed.push('HEAD');
    c.header('Allow', [...new Set(allowed)].join(', '));
    return fail(c, 'methodNotAllowed');
  });

  app.onError((err, c) => {
    // An answer decided deep in a handler (control/device_auth.ts: a device waiting for approval).
    if (err instanceof HTTPException) return err.getResponse();
    if (isStorageFull(err)) {
      logger.emit(EVENTS.storeFull, { error: `the store's disk is full: ${err.message}`, path: c.req.path });
      return fail(c, 'storeFull');
    }
    if (err instanceof StoreError || (err as { code?: unknown }).code === 'ERR_SQLITE_ERROR') {
      logger.emit(EVENTS.storeUnavailable, { error: err.message, path: c.req.path });
      return fail(c, 'storeUnavailable');
    }
    logger.emit(EVENTS.requestFailed, { error: err.message, stack: err.stack, path: c.req.path });
    return fail(c, 'internal');
  });
  return app;
}

/** A test of a request path against the paths of `routes` (any method). */
export function pathMatcher(routes: ReadonlyArray<{ path: string }>): (path: string) => boolean {
  const patterns = routes.map((r) => toRegExp(r.path));
  return function matchesRoute(path) {
    return patterns.some((p) => p.test(path));
  };
}

/** Hono's `:name` segments as `[^/]+`; everything else literal. */
function toRegExp(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}$`);
}
