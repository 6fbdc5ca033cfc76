/**
 * Every route of the JSON API under /api/v1 (docs/contract.md section 11). Each checks a bearer token
 * itself (api/auth.ts), so every row's access is `token`: no session, no cookie, no CSRF.
 * host/interface.ts mounts them on the admin host; the OpenAPI document describes each one
 * (test/api/openapi.test.ts checks that it does).
 */
import type { DoorRoute } from '../context/routes.ts';
import { apiAccessTokenCreate, apiAccessTokenRevoke, apiAccessTokensList } from './access_tokens.ts';
import { apiAccounts } from './accounts.ts';
import { apiAudit } from './audit.ts';
import {
  apiCollectionCancel,
  apiCollectionCreate,
  apiCollectionGet,
  apiCollectionsList,
  apiCollectionTargets,
} from './collections.ts';
import { apiDevicesList } from './devices_list.ts';
import { apiDeviceRotate } from './device_rotate.ts';
import { apiDeviceOwner } from './device_owner.ts';
import { apiDeviceApprove, apiDeviceReject } from './device_approval.ts';
import { apiEnrollTokenMint, apiEnrollTokenRevoke, apiEnrollTokensList } from './enroll_tokens.ts';
import { apiDocument } from './openapi.ts';
import {
  apiDeviceDelete,
  apiDeviceGet,
  apiDeviceRename,
  apiDeviceLabels,
  apiDeviceRevoke,
  apiRunDelete,
  apiRunGet,
  apiRunRaw,
} from './resources.ts';
import { apiRunCompare } from './run_compare.ts';
import { apiRunsList } from './runs_list.ts';
import {
  apiWebhookCreate,
  apiWebhookDelete,
  apiWebhookDisable,
  apiWebhookEnable,
  apiWebhookGet,
  apiWebhookRedeliver,
  apiWebhookRotate,
  apiWebhooksList,
  apiWebhookTest,
} from './webhooks.ts';

export const apiRoutes: readonly DoorRoute<'token'>[] = [
  { method: 'GET', path: '/api/v1/devices', access: 'token', handler: apiDevicesList },
  { method: 'GET', path: '/api/v1/devices/:id', access: 'token', handler: apiDeviceGet },
  { method: 'POST', path: '/api/v1/devices/:id/rename', access: 'token', handler: apiDeviceRename },
  { method: 'POST', path: '/api/v1/devices/:id/labels', access: 'token', handler: apiDeviceLabels },
  { method: 'POST', path: '/api/v1/devices/:id/revoke', access: 'token', handler: apiDeviceRevoke },
  { method: 'POST', path: '/api/v1/devices/:id/rotate', access: 'token', handler: apiDeviceRotate },
  { method: 'POST', path: '/api/v1/devices/:id/approve', access: 'token', handler: apiDeviceApprove },
  { method: 'POST', path: '/api/v1/devices/:id/reject', access: 'token', handler: apiDeviceReject },
  { method: 'POST', path: '/api/v1/devices/:id/delete', access: 'token', handler: apiDeviceDelete },
  { method: 'POST', path: '/api/v1/devices/:id/owner', access: 'token', handler: apiDeviceOwner },
  { method: 'GET', path: '/api/v1/enroll-tokens', access: 'token', handler: apiEnrollTokensList },
  { method: 'POST', path: '/api/v1/enroll-tokens', access: 'token', handler: apiEnrollTokenMint },
  { method: 'POST', path: '/api/v1/enroll-tokens/:id/revoke', access: 'token', handler: apiEnrollTokenRevoke },
  { method: 'GET', path: '/api/v1/runs', access: 'token', handler: apiRunsList },
  { method: 'GET', path: '/api/v1/runs/:device/:id', access: 'token', handler: apiRunGet },
  { method: 'DELETE', path: '/api/v1/runs/:device/:id', access: 'token', handler: apiRunDelete },
  { method: 'GET', path: '/api/v1/runs/:device/:id/raw', access: 'token', handler: apiRunRaw },
  { method: 'GET', path: '/api/v1/runs/:device/:id/compare', access: 'token', handler: apiRunCompare },
  { method: 'GET', path: '/api/v1/audit', access: 'token', handler: apiAudit },
  { method: 'GET', path: '/api/v1/accounts', access: 'token', handler: apiAccounts },
  { method: 'GET', path: '/api/v1/tokens', access: 'token', handler: apiAccessTokensList },
  { method: 'POST', path: '/api/v1/tokens', access: 'token', handler: apiAccessTokenCreate },
  { method: 'POST', path: '/api/v1/tokens/:id/revoke', access: 'token', handler: apiAccessTokenRevoke },
  { method: 'GET', path: '/api/v1/webhooks', access: 'token', handler: apiWebhooksList },
  { method: 'POST', path: '/api/v1/webhooks', access: 'token', handler: apiWebhookCreate },
  { method: 'GET', path: '/api/v1/webhooks/:id', access: 'token', handler: apiWebhookGet },
  { method: 'POST', path: '/api/v1/webhooks/:id/test', access: 'token', handler: apiWebhookTest },
  { method: 'POST', path: '/api/v1/webhooks/:id/disable', access: 'token', handler: apiWebhookDisable },
  { method: 'POST', path: '/api/v1/webhooks/:id/enable', access: 'token', handler: apiWebhookEnable },
  { method: 'POST', path: '/api/v1/webhooks/:id/delete', access: 'token', handler: apiWebhookDelete },
  { method: 'POST', path: '/api/v1/webhooks/:id/rotate-secret', access: 'token', handler: apiWebhookRotate },
  {
    method: 'POST',
    path: '/api/v1/webhooks/:id/deliveries/:delivery/redeliver',
    access: 'token',
    handler: apiWebhookRedeliver,
  },
  { method: 'GET', path: '/api/v1/collections', access: 'token', handler: apiCollectionsList },
  { method: 'POST', path: '/api/v1/collections', access: 'token', handler: apiCollectionCreate },
  { method: 'GET', path: '/api/v1/collections/:id', access: 'token', handler: apiCollectionGet },
  { method: 'GET', path: '/api/v1/collections/:id/targets', access: 'token', handler: apiCollectionTargets },
  { method: 'POST', path: '/api/v1/collections/:id/cancel', access: 'token', handler: apiCollectionCancel },
  { method: 'GET', path: '/api/v1/openapi.json', access: 'token', handler: apiDocument },
];
