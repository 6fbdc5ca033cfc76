/**
 * A real `paddock serve` over TLS on one port (admin.test and control.test, the fixture's
 * certificates), in this process, for the device clients' end-to-end tests: the console's
 * break-glass sign-in makes an access token, and `api` calls the JSON API as the administrator.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/config.ts';
import { memoryLogger } from '../../src/log/logger.ts';
import { type RunningServer, startServer } from '../../src/server/serve.ts';
import { freePort, httpsRequest, type TlsFixture, tlsFixture } from './tls_fixture.ts';

export interface TlsServer {
  fx: TlsFixture;
  server: RunningServer;
  /** https://admin.test:<port> */
  admin: string;
  /** The administrator's access token, as an Authorization header. */
  auth: Record<string, string>;
  /** One request to the JSON API as the administrator; the body parsed when there is one. */
  api(method: string, path: string, json?: object): Promise<{ status: number; body?: Record<string, unknown> }>;
}

/**
 * The settings of a server on 127.0.0.1:`port` with TLS on one port: the fixture's admin
 * certificate for https://admin.test:`port`, its control certificate for control.test, its data
 * in the fixture's directory.
 */
export function tlsServerEnv(fx: TlsFixture, port: number): Record<string, string> {
  return {
    PADDOCK_LISTEN: `127.0.0.1:${port}`,
    PADDOCK_DATA_DIR: join(fx.dir, 'data'),
    PADDOCK_BASE_URL: `https://admin.test:${port}`,
    PADDOCK_CONTROL_HOST: 'control.test',
    PADDOCK_TLS_CERT: fx.admin.certFile,
    PADDOCK_TLS_KEY: fx.admin.keyFile,
    PADDOCK_CONTROL_TLS_CERT: fx.control.certFile,
    PADDOCK_CONTROL_TLS_KEY: fx.control.keyFile,
  };
}

/** Starts the server; `name` names its access token (and its break-glass password). */
export async function startTlsServer(name: string): Promise<TlsServer> {
  const password = `${name} password`;
  const fx = await tlsFixture();
  const port = await freePort();
  const admin = `https://admin.test:${port}`;
  const config = loadConfig({ ...tlsServerEnv(fx, port), PADDOCK_ADMIN_PASSWORD: password });
  const server = await startServer(config, { logger: memoryLogger(), announce: () => undefined });
  const auth = { authorization: `Bearer ${await accessToken(fx, admin, password, name)}` };
  return {
    fx,
    server,
    admin,
    auth,
    async api(method, path, json) {
      const res = await httpsRequest(`${admin}/api/v1${path}`, {
        ca: fx.admin.certPem,
        method,
        headers: json === undefined ? auth : { ...auth, 'content-type': 'application/json' },
        ...(json === undefined ? {} : { body: JSON.stringify(json) }),
      });
      return {
        status: res.status,
        ...(res.body === '' ? {} : { body: JSON.parse(res.body) as Record<string, unknown> }),
      };
    },
  };
}

/** Signs in to the console and creates an access token for the API (shown once, on its page). */
async function accessToken(fx: TlsFixture, admin: string, password: string, name: string): Promise<string> {
  const ca = fx.admin.certPem;
  const login = await httpsRequest(`${admin}/login`, {
    ca,
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: 'admin', password }).toString(),
  });
  const cookie = String(login.headers['set-cookie']?.[0] ?? '').split(';')[0] ?? '';
  const page = await httpsRequest(`${admin}/tokens`, { ca, headers: { cookie } });
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
  const created = await httpsRequest(`${admin}/tokens`, {
    ca,
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf, name }).toString(),
  });
  const token = /<textarea id="token"[^>]*>([^<]+)</.exec(created.body)?.[1];
  assert.ok(token, `no token on the page (${created.status})`);
  return token;
}
