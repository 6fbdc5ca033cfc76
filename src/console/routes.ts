/**
 * Every route of the operator interface, with its access rule (specification, Endpoints), read top
 * to bottom. Everything else is derived from these rows: the app (ui/app.ts), 404 and 405
 * (http/router.ts), and the generated guard test (test/console/routes_guard.test.ts). Adding a page is
 * one handler file and one row here.
 */
import { apiDevicesList } from '../api/devices_list.ts';
import { apiRunsList } from '../api/runs_list.ts';
import { apiDocument } from '../api/openapi.ts';
import { apiAccounts } from '../api/accounts.ts';
import { apiAudit } from '../api/audit.ts';
import { apiEnrollTokenMint, apiEnrollTokenRevoke, apiEnrollTokensList } from '../api/enroll_tokens.ts';
import {
  apiDeviceDelete,
  apiDeviceGet,
  apiDeviceRename,
  apiDeviceRevoke,
  apiRunDelete,
  apiRunGet,
  apiRunRaw,
} from '../api/resources.ts';
import type { Handler } from 'hono';
import type { Method } from '../http/router.ts';
import { accessTokenCreate } from './access_token_create.ts';
import { accessTokenRevoke } from './access_token_revoke.ts';
import { accessTokensList } from './access_tokens_list.ts';
import { accountsList } from './accounts_list.ts';
import { auditJsonl } from './audit_jsonl.ts';
import { auditList } from './audit_list.ts';
import { authCallback } from './auth_callback.ts';
import { authStart } from './auth_start.ts';
import { dashboard } from './dashboard.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { deviceDelete } from './device_delete.ts';
import { deviceRename } from './device_rename.ts';
import { deviceRevoke } from './device_revoke.ts';
import { deviceShow } from './device_show.ts';
import { devicesBulk } from './devices_bulk.ts';
import { devicesList } from './devices_list.ts';
import { discover } from '../service/discover.ts';
import { enrollTokenMint } from './enroll_token_mint.ts';
import { enrollTokenRevoke } from './enroll_token_revoke.ts';
import { enrollTokensList } from './enroll_tokens_list.ts';
import { healthz } from '../service/healthz.ts';
import { loginCheck } from './login_check.ts';
import { loginShow } from './login_show.ts';
import { logout } from './logout.ts';
import { metricsScrape } from '../service/metrics_scrape.ts';
import { runDelete } from './run_delete.ts';
import { runRaw } from './run_raw.ts';
import { runShow } from './run_show.ts';
import { runsBulk } from './runs_bulk.ts';
import { runsList } from './runs_list.ts';

/**
 * none: anyone; token: a bearer token the handler checks itself (no session, no cookie, so no
 * CSRF); guarded: a session, and `csrf` on state changes; admin: guarded and Admin.
 */
export type Access = 'none' | 'token' | 'guarded' | 'admin';

export interface ConsoleRoute {
  method: Method;
  /** Hono's pattern syntax: `:name` is one path segment. */
  path: string;
  access: Access;
  handler: (ctx: Ctx) => Handler<UiEnv>;
}

export const consoleRoutes: readonly ConsoleRoute[] = [
  { method: 'GET', path: '/healthz', access: 'none', handler: healthz },
  { method: 'GET', path: '/v1/discover', access: 'none', handler: discover },
  { method: 'GET', path: '/metrics', access: 'token', handler: metricsScrape },
  { method: 'GET', path: '/api/v1/devices', access: 'token', handler: apiDevicesList },
  { method: 'GET', path: '/api/v1/devices/:id', access: 'token', handler: apiDeviceGet },
  { method: 'POST', path: '/api/v1/devices/:id/rename', access: 'token', handler: apiDeviceRename },
  { method: 'POST', path: '/api/v1/devices/:id/revoke', access: 'token', handler: apiDeviceRevoke },
  { method: 'POST', path: '/api/v1/devices/:id/delete', access: 'token', handler: apiDeviceDelete },
  { method: 'GET', path: '/api/v1/enroll-tokens', access: 'token', handler: apiEnrollTokensList },
  { method: 'POST', path: '/api/v1/enroll-tokens', access: 'token', handler: apiEnrollTokenMint },
  { method: 'POST', path: '/api/v1/enroll-tokens/:id/revoke', access: 'token', handler: apiEnrollTokenRevoke },
  { method: 'GET', path: '/api/v1/runs', access: 'token', handler: apiRunsList },
  { method: 'GET', path: '/api/v1/runs/:device/:id', access: 'token', handler: apiRunGet },
  { method: 'DELETE', path: '/api/v1/runs/:device/:id', access: 'token', handler: apiRunDelete },
  { method: 'GET', path: '/api/v1/runs/:device/:id/raw', access: 'token', handler: apiRunRaw },
  { method: 'GET', path: '/api/v1/audit', access: 'token', handler: apiAudit },
  { method: 'GET', path: '/api/v1/accounts', access: 'token', handler: apiAccounts },
  { method: 'GET', path: '/api/v1/openapi.json', access: 'token', handler: apiDocument },
  { method: 'GET', path: '/login', access: 'none', handler: loginShow },
  { method: 'POST', path: '/login', access: 'none', handler: loginCheck },
  { method: 'GET', path: '/auth/start', access: 'none', handler: authStart },
  { method: 'GET', path: '/admin/callback', access: 'none', handler: authCallback },
  { method: 'POST', path: '/logout', access: 'none', handler: logout },
  { method: 'GET', path: '/', access: 'guarded', handler: dashboard },
  { method: 'GET', path: '/devices', access: 'guarded', handler: devicesList },
  { method: 'POST', path: '/devices/bulk', access: 'admin', handler: devicesBulk },
  { method: 'GET', path: '/devices/:id', access: 'guarded', handler: deviceShow },
  { method: 'POST', path: '/devices/:id/rename', access: 'guarded', handler: deviceRename },
  { method: 'POST', path: '/devices/:id/revoke', access: 'admin', handler: deviceRevoke },
  { method: 'POST', path: '/devices/:id/delete', access: 'admin', handler: deviceDelete },
  { method: 'POST', path: '/enroll-tokens', access: 'admin', handler: enrollTokenMint },
  { method: 'GET', path: '/runs', access: 'guarded', handler: runsList },
  { method: 'POST', path: '/runs/bulk', access: 'guarded', handler: runsBulk },
  { method: 'GET', path: '/runs/:device/:id', access: 'guarded', handler: runShow },
  { method: 'GET', path: '/runs/:device/:id/raw', access: 'guarded', handler: runRaw },
  { method: 'POST', path: '/runs/:device/:id/delete', access: 'guarded', handler: runDelete },
  { method: 'GET', path: '/enroll-tokens', access: 'admin', handler: enrollTokensList },
  { method: 'POST', path: '/enroll-tokens/:id/revoke', access: 'admin', handler: enrollTokenRevoke },
  { method: 'GET', path: '/audit', access: 'admin', handler: auditList },
  { method: 'GET', path: '/audit.jsonl', access: 'admin', handler: auditJsonl },
  { method: 'GET', path: '/accounts', access: 'admin', handler: accountsList },
  { method: 'GET', path: '/tokens', access: 'guarded', handler: accessTokensList },
  { method: 'POST', path: '/tokens', access: 'guarded', handler: accessTokenCreate },
  { method: 'POST', path: '/tokens/:id/revoke', access: 'guarded', handler: accessTokenRevoke },
];
