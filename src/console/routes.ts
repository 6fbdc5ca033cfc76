/**
 * Every route of the operator console, with its access rule (specification, Endpoints), read top
 * to bottom. host/interface.ts composes these rows with the API's (api/routes.ts) and the
 * service's (service/routes.ts); everything else is derived from the composed table: the app,
 * 404 and 405 (http/router.ts), and the generated guard test (test/console/routes_guard.test.ts).
 * Adding a page is one handler file and one row here.
 */
import type { DoorRoute } from '../context/routes.ts';
import { accessTokenCreate } from './access_token_create.ts';
import { accessTokenRevoke } from './access_token_revoke.ts';
import { accessTokensList } from './access_tokens_list.ts';
import { accountDisable, accountEnable } from './account_disable.ts';
import { accountDisableConfirm } from './account_disable_confirm.ts';
import { accountShow } from './account_show.ts';
import { accountsList } from './accounts_list.ts';
import { auditJsonl } from './audit_jsonl.ts';
import { auditList } from './audit_list.ts';
import { authCallback } from './auth_callback.ts';
import { authStart } from './auth_start.ts';
import { collectionCancel } from './collection_cancel.ts';
import { collectionCreate } from './collection_create.ts';
import { collectionCreateConfirm } from './collection_create_confirm.ts';
import { collectionShow } from './collection_show.ts';
import { collectionsList } from './collections_list.ts';
import { dashboard } from './dashboard.ts';
import { deviceApprove, deviceReject } from './device_approval.ts';
import { deviceDelete } from './device_delete.ts';
import { deviceDeleteConfirm } from './device_delete_confirm.ts';
import { deviceRejectConfirm } from './device_reject_confirm.ts';
import { deviceLabels } from './device_labels.ts';
import { deviceOwner } from './device_owner.ts';
import { groupShow } from './group_show.ts';
import { groupsList } from './groups_list.ts';
import { deviceRename } from './device_rename.ts';
import { deviceRevoke } from './device_revoke.ts';
import { deviceRevokeConfirm } from './device_revoke_confirm.ts';
import { deviceRotate } from './device_rotate.ts';
import { deviceShow } from './device_show.ts';
import { devicesBulk } from './devices_bulk.ts';
import { devicesBulkConfirm } from './devices_bulk_confirm.ts';
import { devicesList } from './devices_list.ts';
import { enrollTokenMint } from './enroll_token_mint.ts';
import { enrollTokenRevoke } from './enroll_token_revoke.ts';
import { enrollTokensList } from './enroll_tokens_list.ts';
import { loginCheck } from './login_check.ts';
import { loginShow } from './login_show.ts';
import { logout } from './logout.ts';
import { runCompare } from './run_compare.ts';
import { runDelete } from './run_delete.ts';
import { runDeleteConfirm } from './run_delete_confirm.ts';
import { runRaw } from './run_raw.ts';
import { runShow } from './run_show.ts';
import { runsBulk } from './runs_bulk.ts';
import { runsBulkConfirm } from './runs_bulk_confirm.ts';
import { runsList } from './runs_list.ts';
import { totpConfirm } from './totp_confirm.ts';
import { totpDisable } from './totp_disable.ts';
import { totpShow } from './totp_show.ts';
import { sessionEnd } from './session_end.ts';
import { sessionsEndOthers } from './sessions_end_others.ts';
import { sessionsList } from './sessions_list.ts';
import { webhookCreate } from './webhook_create.ts';
import { webhookDelete } from './webhook_delete.ts';
import { webhookDeleteConfirm } from './webhook_delete_confirm.ts';
import { webhookDisable } from './webhook_disable.ts';
import { webhookEnable } from './webhook_enable.ts';
import { webhookRedeliver } from './webhook_redeliver.ts';
import { webhookRotate } from './webhook_rotate.ts';
import { backchannelLogout } from './backchannel_logout.ts';
import { webhookShow } from './webhook_show.ts';
import { webhookTest } from './webhook_test.ts';
import { webhooksList } from './webhooks_list.ts';

/** No console row is checked by a bearer token: those are the API's and the service's. */
export const consoleRoutes: readonly DoorRoute<'none' | 'guarded' | 'admin'>[] = [
  { method: 'GET', path: '/login', access: 'none', handler: loginShow },
  { method: 'POST', path: '/login', access: 'none', handler: loginCheck },
  { method: 'GET', path: '/auth/start', access: 'none', handler: authStart },
  { method: 'GET', path: '/admin/callback', access: 'none', handler: authCallback },
  { method: 'POST', path: '/oidc/backchannel-logout', access: 'none', handler: backchannelLogout },
  { method: 'POST', path: '/logout', access: 'none', handler: logout },
  { method: 'GET', path: '/', access: 'guarded', handler: dashboard },
  { method: 'GET', path: '/devices', access: 'guarded', handler: devicesList },
  { method: 'POST', path: '/devices/bulk', access: 'admin', handler: devicesBulk },
  // docs/contract.md section 22: the confirmation pages of irreversible actions, each guarded as its action.
  { method: 'POST', path: '/devices/bulk/confirm', access: 'admin', handler: devicesBulkConfirm },
  { method: 'GET', path: '/devices/:id', access: 'guarded', handler: deviceShow },
  { method: 'POST', path: '/devices/:id/rename', access: 'guarded', handler: deviceRename },
  { method: 'POST', path: '/devices/:id/labels', access: 'guarded', handler: deviceLabels },
  { method: 'GET', path: '/devices/:id/revoke', access: 'admin', handler: deviceRevokeConfirm },
  { method: 'POST', path: '/devices/:id/revoke', access: 'admin', handler: deviceRevoke },
  { method: 'POST', path: '/devices/:id/rotate', access: 'admin', handler: deviceRotate },
  // docs/contract.md section 16.
  { method: 'POST', path: '/devices/:id/approve', access: 'admin', handler: deviceApprove },
  { method: 'GET', path: '/devices/:id/reject', access: 'admin', handler: deviceRejectConfirm },
  { method: 'POST', path: '/devices/:id/reject', access: 'admin', handler: deviceReject },
  { method: 'GET', path: '/devices/:id/delete', access: 'admin', handler: deviceDeleteConfirm },
  { method: 'POST', path: '/devices/:id/delete', access: 'admin', handler: deviceDelete },
  // docs/contract.md section 19: handing over, and the groups.
  { method: 'POST', path: '/devices/:id/owner', access: 'admin', handler: deviceOwner },
  { method: 'POST', path: '/enroll-tokens', access: 'admin', handler: enrollTokenMint },
  { method: 'GET', path: '/runs', access: 'guarded', handler: runsList },
  { method: 'POST', path: '/runs/bulk', access: 'guarded', handler: runsBulk },
  { method: 'POST', path: '/runs/bulk/confirm', access: 'guarded', handler: runsBulkConfirm },
  { method: 'GET', path: '/runs/:device/:id', access: 'guarded', handler: runShow },
  { method: 'GET', path: '/runs/:device/:id/raw', access: 'guarded', handler: runRaw },
  // docs/contract.md section 21: the path's run is the old side, ?with=DEVICE/ID the new.
  { method: 'GET', path: '/runs/:device/:id/compare', access: 'guarded', handler: runCompare },
  { method: 'GET', path: '/runs/:device/:id/delete', access: 'guarded', handler: runDeleteConfirm },
  { method: 'POST', path: '/runs/:device/:id/delete', access: 'guarded', handler: runDelete },
  { method: 'GET', path: '/enroll-tokens', access: 'admin', handler: enrollTokensList },
  { method: 'POST', path: '/enroll-tokens/:id/revoke', access: 'admin', handler: enrollTokenRevoke },
  { method: 'GET', path: '/audit', access: 'admin', handler: auditList },
  { method: 'GET', path: '/audit.jsonl', access: 'admin', handler: auditJsonl },
  { method: 'GET', path: '/accounts', access: 'admin', handler: accountsList },
  { method: 'GET', path: '/accounts/:subject', access: 'admin', handler: accountShow },
  { method: 'GET', path: '/accounts/:subject/disable', access: 'admin', handler: accountDisableConfirm },
  { method: 'POST', path: '/accounts/:subject/disable', access: 'admin', handler: accountDisable },
  { method: 'POST', path: '/accounts/:subject/enable', access: 'admin', handler: accountEnable },
  // docs/contract.md section 19.
  { method: 'GET', path: '/groups', access: 'admin', handler: groupsList },
  { method: 'GET', path: '/groups/:name', access: 'admin', handler: groupShow },
  { method: 'GET', path: '/tokens', access: 'guarded', handler: accessTokensList },
  { method: 'POST', path: '/tokens', access: 'guarded', handler: accessTokenCreate },
  { method: 'POST', path: '/tokens/:id/revoke', access: 'guarded', handler: accessTokenRevoke },
  // docs/contract.md section 13.
  { method: 'GET', path: '/webhooks', access: 'admin', handler: webhooksList },
  { method: 'POST', path: '/webhooks', access: 'admin', handler: webhookCreate },
  { method: 'GET', path: '/webhooks/:id', access: 'admin', handler: webhookShow },
  { method: 'POST', path: '/webhooks/:id/test', access: 'admin', handler: webhookTest },
  { method: 'POST', path: '/webhooks/:id/disable', access: 'admin', handler: webhookDisable },
  { method: 'POST', path: '/webhooks/:id/enable', access: 'admin', handler: webhookEnable },
  { method: 'GET', path: '/webhooks/:id/delete', access: 'admin', handler: webhookDeleteConfirm },
  { method: 'POST', path: '/webhooks/:id/delete', access: 'admin', handler: webhookDelete },
  { method: 'POST', path: '/webhooks/:id/rotate-secret', access: 'admin', handler: webhookRotate },
  { method: 'POST', path: '/webhooks/:id/deliveries/:delivery/redeliver', access: 'admin', handler: webhookRedeliver },
  // docs/contract.md section 15: the handlers and the store keep each to its creator or an admin.
  { method: 'GET', path: '/collections', access: 'guarded', handler: collectionsList },
  { method: 'POST', path: '/collections', access: 'guarded', handler: collectionCreate },
  { method: 'POST', path: '/collections/confirm', access: 'guarded', handler: collectionCreateConfirm },
  { method: 'GET', path: '/collections/:id', access: 'guarded', handler: collectionShow },
  { method: 'POST', path: '/collections/:id/cancel', access: 'guarded', handler: collectionCancel },
  // The break-glass account's alone (docs/contract.md section 14): the handlers refuse other admins.
  { method: 'GET', path: '/totp', access: 'admin', handler: totpShow },
  { method: 'POST', path: '/totp', access: 'admin', handler: totpConfirm },
  { method: 'POST', path: '/totp/disable', access: 'admin', handler: totpDisable },
  { method: 'GET', path: '/sessions', access: 'guarded', handler: sessionsList },
  { method: 'POST', path: '/sessions/end-others', access: 'guarded', handler: sessionsEndOthers },
  { method: 'POST', path: '/sessions/:id/end', access: 'guarded', handler: sessionEnd },
];
