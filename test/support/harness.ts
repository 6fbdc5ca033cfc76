/**
 * Builds the operator interface and control API in-process on a fresh in-memory store, with a
 * fake clock, a memory logger and (optionally) an OIDC client, and signs accounts in by minting
 * real session cookies with the same keys.
 */
import { randomBytes } from 'node:crypto';
import type { Hono } from 'hono';
import { loadConfig } from '../../src/config/config.ts';
import { createControlApp } from '../../src/control/app.ts';
import type { CredentialRules } from '../../src/domain/credentials.ts';
import { type LevelCheck, levelCheck } from '../../src/control/level_check.ts';
import { hashPassword } from '../../src/crypto/password.ts';
import { defaultLinkBuilder, type LinkBuilder } from '../../src/link/link_builder.ts';
import { auditTrail } from '../../src/audit/audit_logger.ts';
import { eventBus } from '../../src/events/bus.ts';
import { createMetrics } from '../../src/metrics/metrics.ts';
import { type Logger, memoryLogger } from '../../src/log/logger.ts';
import type { OidcClient } from '../../src/oidc/client.ts';
import { createSelfTest, type SelfTest } from '../../src/selftest/selftest.ts';
import { type Session, sessionCodec } from '../../src/session/session.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import type { Store } from '../../src/store/store.ts';
import { storeThrottle } from '../../src/throttle/throttle.ts';
import { createInterface } from '../../src/host/interface.ts';
import { type InterfaceConfig, interfaceConfig, type UiEnv } from '../../src/context/deps.ts';
import { type FakeClock, fakeClock } from './fake_clock.ts';

export const ADMIN_PASSWORD = 'correct horse battery staple';
export const TEST_PIN = 'sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

/** The environment every harness is configured from; a test overrides the result by `config`. */
const testEnvironment = {
  PADDOCK_BASE_URL: 'http://127.0.0.1:8080',
  PADDOCK_OIDC_CLIENT_ID: 'paddock-test',
  PADDOCK_OIDC_CLIENT_SECRET: 'test-secret',
  PADDOCK_OIDC_ADMIN_GROUP: 'paddock-admins',
  PADDOCK_CONTROL_URL: 'https://control.example:8443',
  PADDOCK_SERVER_NAME: 'Test Paddock',
};

export interface Harness {
  ui: Hono<UiEnv>;
  controlApp: Hono;
  store: Store;
  clock: FakeClock;
  logs: ReturnType<typeof memoryLogger>['records'];
  /** The server's logger (the log, the audit trail and the metrics): actions called directly emit on it. */
  logger: Logger;
  config: InterfaceConfig;
  /**
   * A valid session cookie header value (`service_admin=…`) and the session's CSRF token; the
   * session is recorded in the store, as a sign-in records it, before the next request is sent.
   */
  signIn(who: { subject: string; display?: string; admin: boolean }): {
    cookie: string;
    csrf: string;
    session: Session;
  };
  /** Sends a request to the interface from `client` (the socket's remote address). */
  request(path: string, init?: RequestInit, client?: string): Promise<Response>;
  /** Sends a request to the control API. */
  control(path: string, init?: RequestInit): Promise<Response>;
  /** Waits until the audit records of everything done so far are stored. */
  flushAudit(): Promise<void>;
  /** The level check of uploaded runs (docs/contract.md section 10): `idle()` waits for its records. */
  levelCheck: LevelCheck;
  close(): Promise<void>;
}

export interface HarnessOptions {
  config?: Partial<InterfaceConfig>;
  oidc?: OidcClient;
  linkBuilder?: LinkBuilder;
  selfTest?: SelfTest;
  /** A clock shared with other fakes (such as the OIDC provider); a fresh one by default. */
  clock?: FakeClock;
  /** Store the break-glass hash for `admin` (default true). */
  withPassword?: boolean;
  /** PADDOCK_DEVICE_QUOTA for the control API, in bytes. */
  deviceQuotaBytes?: number;
  /** PADDOCK_CREDENTIAL_ROTATE_AFTER and PADDOCK_CREDENTIAL_MAX_AGE for the control API (30 days and none by default). */
  credentialRules?: CredentialRules;
  /** The store to run on (closed with the harness); an in-memory SQLite store by default. */
  store?: Store;
  /** The audit queue's bound (AUDIT_QUEUE_MAX by default). */
  auditQueueMax?: number;
}

export async function harness(opts: HarnessOptions = {}): Promise<Harness> {
  const store = opts.store ?? openSqliteStore(':memory:');
  const clock = opts.clock ?? fakeClock();
  const memory = memoryLogger();
  // As `paddock serve` does: the audited events are also stored (audit/audit_logger.ts).
  const audit = auditTrail(store, clock, memory, opts.auditQueueMax);
  const config: InterfaceConfig = {
    ...interfaceConfig({ ...loadConfig(testEnvironment), version: '9.8.7-test' }, [randomBytes(32)]),
    ...opts.config,
  };
  // As `paddock serve` does: events are counted for GET /metrics (metrics/metrics.ts).
  const metrics = createMetrics({ store, clock, staleAfterMs: config.staleAfterMs });
  const logger = { ...eventBus(memory, audit, metrics.subscriber), flush: () => audit.flush() };
  if (opts.withPassword !== false) await store.setPasswordHash('admin', await hashPassword(ADMIN_PASSWORD));
  const ui = createInterface({
    config,
    store,
    linkBuilder:
      opts.linkBuilder ??
      defaultLinkBuilder({ baseUrl: config.baseUrl || 'http://127.0.0.1:8080', pins: () => [TEST_PIN] }),
    throttle: storeThrottle(store, clock, (ms) => metrics.throttleDelay(ms)),
    oidc: opts.oidc,
    selfTest:
      opts.selfTest ??
      createSelfTest({
        store,
        clock,
        sessionKeys: config.sessionKeys,
        oidc: opts.oidc,
        cacheMs: 0,
      }),
    logger,
    clock,
    metrics,
    webhookSealKey: randomBytes(32),
  });
  const checks = levelCheck({ store, logger });
  const controlApp = createControlApp({
    store,
    logger,
    clock,
    levelCheck: checks,
    deviceQuotaBytes: opts.deviceQuotaBytes,
    metrics,
    pins: () => [TEST_PIN],
    credentialRules: opts.credentialRules,
  });
  const codec = sessionCodec(config.sessionKeys, config.sessionTtlSeconds);
  // Sessions signed in but not yet recorded: a request waits for them (the store refuses unrecorded ones).
  let recording: Promise<unknown> = Promise.resolve();
  const recorded = () => recording;
  return {
    ui,
    controlApp,
    store,
    clock,
    logs: memory.records,
    logger,
    config,
    signIn(who) {
      const session = codec.newSession(
        { subject: who.subject, display: who.display ?? who.subject, admin: who.admin },
        clock.now(),
      );
      const record = store.recordSession({
        id: session.id,
        subject: session.subject,
        admin: session.admin,
        startedAt: clock.now(),
        expiresAt: session.expires,
        client: '203.0.113.7',
        browser: 'unknown',
      });
      recording = Promise.all([recording, record]);
      return {
        cookie: `service_admin=${codec.encode(session)}`,
        csrf: codec.csrfToken(session),
        session,
      };
    },
    async request(path, init, client = '203.0.113.7') {
      await recorded();
      return ui.request(path, init, { incoming: { socket: { remoteAddress: client } } });
    },
    control(path, init) {
      return Promise.resolve(
        controlApp.request(path, init, { incoming: { socket: { remoteAddress: '198.51.100.9' } } }),
      );
    },
    flushAudit: () => logger.flush(),
    levelCheck: checks,
    close: async () => {
      await checks.stop();
      await logger.flush();
      await store.close();
    },
  };
}

/** The personal access token a page shows once (in the element `id="token"`), if it shows one. */
export function shownAccessToken(page: string): string | undefined {
  return /id="token"[^>]*>(pdk_[A-Za-z0-9_-]+)</.exec(page)?.[1];
}

/**
 * Creates a personal access token through the console as `who` (POST /tokens): the token, and the
 * session that made it.
 */
export async function consoleAccessToken(
  h: Harness,
  who: { subject: string; display?: string; admin: boolean },
  fields: Record<string, string> = {},
): Promise<{ value: string; cookie: string; csrf: string }> {
  // As a real sign-in would have: the account, with the admin flag its sign-in gave, which its
  // tokens act with (docs/contract.md section 14).
  await h.store.recordSignIn({
    subject: who.subject,
    display: who.display ?? who.subject,
    lastSignInAt: h.clock.now(),
    admin: who.admin,
  });
  const { cookie, csrf } = h.signIn(who);
  const page = await (await h.request('/tokens', form({ csrf, name: 'a script', ...fields }, cookie))).text();
  const value = shownAccessToken(page);
  if (value === undefined) throw new Error('no access token on the page');
  return { value, cookie, csrf };
}

/** An urlencoded form post. */
export function form(fields: Record<string, string>, cookie?: string): RequestInit {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (cookie) headers.cookie = cookie;
  return { method: 'POST', headers, body: new URLSearchParams(fields).toString() };
}

/** Mints a token directly in the store and enrolls a device through the control API. */
export async function enrollDevice(
  h: Harness,
  owner: string,
  name = 'test-device',
): Promise<{ device: string; credential: string }> {
  const { randomToken, secretHash } = await import('../../src/crypto/random.ts');
  const token = randomToken(32);
  await h.store.createEnrollToken({
    hash: secretHash(token),
    owner,
    createdBy: 'local:admin',
    createdAt: h.clock.now(),
    expiresAt: h.clock.now() + 60_000,
  });
  const res = await h.control('/v1/enroll', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, name }),
  });
  if (res.status !== 201) throw new Error(`enroll failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as { device: string; credential: string };
}

/** Uploads a run through the control API. */
export function upload(
  h: Harness,
  credential: string,
  id: string,
  body: string | Uint8Array,
  level = 'full',
  contentType = 'text/plain',
): Promise<Response> {
  return h.control(`/v1/runs/${id}`, {
    method: 'PUT',
    headers: {
      authorization: `Bearer ${credential}`,
      'x-privacy-level': level,
      'content-type': contentType,
    },
    body,
  });
}
