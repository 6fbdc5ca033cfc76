/**
 * `paddock serve`: wires the real parts (SQLite store, throttle, OIDC client, self-test, link
 * builder with the control certificate's pin) into the interface and the control API on one port.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { systemClock, type Clock } from '../clock.ts';
import type { Config } from '../config/config.ts';
import { createControlApi, isControlPath } from '../control/app.ts';
import { generatePassword, hashPassword } from '../crypto/password.ts';
import { defaultLinkBuilder } from '../link/link_builder.ts';
import type { Logger } from '../log/logger.ts';
import { createOidcClient } from '../oidc/client.ts';
import { createSelfTest } from '../selftest/selftest.ts';
import { resolveSessionKeys } from '../session/keys.ts';
import { openStore } from '../store/open.ts';
import type { Store } from '../store/store.ts';
import { storeThrottle } from '../throttle/throttle.ts';
import { loadControlIdentity } from '../tls/control_identity.ts';
import { createInterface } from '../ui/app.ts';

export interface RunningServer {
  url: string;
  pin: string;
  /** Stops accepting, drains in-flight requests, closes the store. */
  close(): Promise<void>;
}

export interface ServeOptions {
  logger: Logger;
  clock?: Clock;
  /** Where the one-time generated password is announced (stderr by default). */
  announce?: (line: string) => void;
}

export async function startServer(config: Config, opts: ServeOptions): Promise<RunningServer> {
  const clock = opts.clock ?? systemClock;
  const store = await openStore(config);
  try {
    const fetch = await buildHandler(config, store, clock, opts);
    const server = await listen(fetch.handler, config.listen);
    const address = server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    opts.logger.log('info', 'server.started', {
      listen: `${host}:${address.port}`,
      base_url: config.baseUrl,
      version: config.version,
    });
    return {
      url: `http://${host}:${address.port}`,
      pin: fetch.pin,
      close: async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          // Idle keep-alive connections would hold close() open; in-flight requests still finish.
          (server as Server).closeIdleConnections?.();
        });
        await store.close();
      },
    };
  } catch (err) {
    await store.close();
    throw err;
  }
}

async function buildHandler(config: Config, store: Store, clock: Clock, opts: ServeOptions) {
  await ensureAdminPassword(config, store, opts.announce ?? ((line) => process.stderr.write(line)));
  const sessionKeys = await resolveSessionKeys(config.sessionKeys, store);
  const control = await loadControlIdentity(store, new URL(config.controlUrl).hostname, clock.now(), config.controlTls);
  const oidc =
    config.oidc.issuer === undefined
      ? undefined
      : createOidcClient({
          issuer: config.oidc.issuer,
          clientId: config.oidc.clientId,
          clientSecret: config.oidc.clientSecret,
          clock,
        });
  const ui = createInterface({
    config: {
      adminUser: config.adminUser,
      baseUrl: config.baseUrl,
      clientId: config.oidc.clientId,
      clientSecret: config.oidc.clientSecret,
      adminGroup: config.oidc.adminGroup,
      groupsClaim: config.oidc.groupsClaim,
      oidcEnabled: config.oidc.enabled,
      secure: config.secure,
      controlUrl: config.controlUrl,
      serverName: config.serverName,
      version: config.version,
      sessionKeys,
      sessionTtlSeconds: config.sessionTtlSeconds,
      enrollTokenTtlSeconds: config.enrollTokenTtlSeconds,
    },
    store,
    linkBuilder: defaultLinkBuilder({ baseUrl: config.baseUrl, pin: control.pin }),
    throttle: storeThrottle(store, clock),
    oidc,
    selfTest: createSelfTest({
      store,
      clock,
      dataDir: config.dataDir,
      sessionKeys,
      oidc: config.oidc.enabled ? oidc : undefined,
    }),
    logger: opts.logger,
    clock,
  });
  const api = createControlApi({ store, logger: opts.logger, clock });
  const handler = (req: Request, env: unknown) =>
    isControlPath(new URL(req.url).pathname) ? api.fetch(req, env) : ui.fetch(req, env);
  return { handler, pin: control.pin };
}

/** PADDOCK_ADMIN_PASSWORD sets the hash; otherwise a first start generates one and prints it once. */
async function ensureAdminPassword(config: Config, store: Store, announce: (line: string) => void) {
  if (config.adminPassword !== undefined) {
    await store.setPasswordHash(config.adminUser, await hashPassword(config.adminPassword));
    return;
  }
  if ((await store.passwordHash(config.adminUser)) !== undefined) return;
  const password = generatePassword();
  // Two instances starting together on one database: only the one whose hash landed announces.
  if (!(await store.createPasswordHash(config.adminUser, await hashPassword(password)))) return;
  announce(`paddock: generated break-glass password for "${config.adminUser}" (shown once): ${password}\n`);
}

function listen(
  handler: (req: Request, env: unknown) => Response | Promise<Response>,
  at: { host: string; port: number },
) {
  return new Promise<ServerType>((resolve, reject) => {
    const server = serve({ fetch: handler, hostname: at.host, port: at.port }, () => resolve(server));
    server.once('error', reject);
  });
}
