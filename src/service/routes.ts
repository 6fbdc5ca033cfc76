/**
 * The service's routes on the admin host, for machines rather than operators: the health check,
 * the devices' discovery document (docs/contract.md section 6) and the Prometheus scrape, which checks
 * its own bearer token (docs/contract.md section 11). None needs a session.
 */
import type { DoorRoute } from '../context/routes.ts';
import { discover } from './discover.ts';
import { healthz } from './healthz.ts';
import { metricsScrape } from './metrics_scrape.ts';

export const serviceRoutes: readonly DoorRoute<'none' | 'token'>[] = [
  { method: 'GET', path: '/healthz', access: 'none', handler: healthz },
  { method: 'GET', path: '/v1/discover', access: 'none', handler: discover },
  { method: 'GET', path: '/metrics', access: 'token', handler: metricsScrape },
];
