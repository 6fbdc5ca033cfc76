/** The device-facing control API of CONTRACT section 6, as a factory over its dependencies. */
import type { Hono } from 'hono';
import type { Clock } from '../clock.ts';
import { buildApp } from '../http/router.ts';
import type { Logger } from '../log/logger.ts';
import type { Store } from '../store/store.ts';
import { enroll } from './enroll.ts';
import { runUpload } from './run_upload.ts';

export interface ControlDeps {
  store: Store;
  logger: Logger;
  clock: Clock;
  /** Bytes of run uploads held in memory at once, all devices together (default 128 MiB). */
  uploadBudgetBytes?: number;
}

export function createControlApi(deps: ControlDeps): Hono {
  return buildApp(
    [
      { method: 'POST', path: '/v1/enroll', middleware: [], handler: enroll(deps) },
      { method: 'PUT', path: '/v1/runs/:id', middleware: [], handler: runUpload(deps) },
    ],
    deps.logger,
  );
}

/** True for the paths the control API serves, so one port can carry both interfaces. */
export function isControlPath(path: string): boolean {
  return path === '/v1/enroll' || path.startsWith('/v1/runs/');
}
