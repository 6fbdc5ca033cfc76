/**
 * Every route of the device-facing control API (docs/contract.md sections 6 and 15). The control app
 * (control/app.ts) and the host router's idea of a control path (server/host_router.ts) are both
 * derived from these rows, so a route added here answers on every host setup.
 */
import type { Handler } from 'hono';
import { type Method, pathMatcher } from '../http/router.ts';
import type { ControlDeps } from './deps.ts';
import { enroll } from './enroll.ts';
import { runUpload } from './run_upload.ts';
import { deviceRequests } from './requests.ts';
import { requestDecline } from './request_decline.ts';
import { credentialRotate } from './credential_rotate.ts';
import { pins } from './pins.ts';
import { deviceFacts } from './device_facts.ts';

export interface ControlRoute {
  method: Method;
  path: string;
  handler: (deps: ControlDeps) => Handler;
  /**
   * A device waiting for approval may call it (docs/contract.md section 16: its facts); every
   * other route answers such a device 403 (device_auth.ts).
   */
  whilePending?: true;
  /**
   * Open without a credential: its body is read before any is checked, so its bodies in flight are
   * capped per client address (docs/contract.md section 23; server/open_bodies.ts).
   */
  open?: true;
}

export const controlRoutes: readonly ControlRoute[] = [
  { method: 'POST', path: '/v1/enroll', handler: enroll, open: true },
  { method: 'PUT', path: '/v1/runs/:id', handler: runUpload },
  { method: 'GET', path: '/v1/requests', handler: deviceRequests },
  { method: 'POST', path: '/v1/requests/:id/decline', handler: requestDecline },
  { method: 'POST', path: '/v1/credential', handler: credentialRotate },
  { method: 'GET', path: '/v1/pins', handler: pins },
  { method: 'PUT', path: '/v1/device/facts', handler: deviceFacts, whilePending: true },
];

/** True for a path some control route serves (any method), so one port can carry both interfaces. */
export const isControlPath = pathMatcher(controlRoutes);
