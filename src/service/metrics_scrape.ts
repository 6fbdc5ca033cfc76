/**
 * GET /metrics (docs/contract.md section 11): the Prometheus text format, answered only to
 * `Authorization: Bearer $PADDOCK_METRICS_TOKEN`; 404 while the token is unset, so the route is
 * as absent as any unknown path. The token is compared in constant time (over digests, which have
 * one length whatever the guess).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Handler } from 'hono';
import { fail } from '../http/failures.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';

const BEARER = /^Bearer ([\x21-\x7e]{1,256})$/;
const digest = (text: string) => createHash('sha256').update(text).digest();

export function metricsScrape(ctx: Ctx): Handler<UiEnv> {
  const expected = ctx.config.metricsToken === undefined ? undefined : digest(ctx.config.metricsToken);
  return async function metricsScrapeHandler(c) {
    const metrics = ctx.metrics;
    if (expected === undefined || metrics === undefined) return fail(c, 'notFound');
    const given = BEARER.exec(c.req.header('authorization') ?? '')?.[1];
    if (given === undefined || !timingSafeEqual(digest(given), expected)) {
      c.header('WWW-Authenticate', 'Bearer');
      return fail(c, 'metricsToken');
    }
    return c.body(await metrics.registry.metrics(), 200, { 'Content-Type': metrics.registry.contentType });
  };
}
