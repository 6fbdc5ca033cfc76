/**
 * `paddock serve`: wires the real parts (store, throttle, OIDC client, self-test, link builder with
 * the control certificate's pin) into the interface and the control API, on one port.
 */
import { type AddressInfo, isIP } from 'node:net';
import { isLoopbackHost } from '../config/parse.ts';
import { systemClock, type Clock } from '../clock.ts';
import { bindListenPort, type Config } from '../config/config.ts';
import { failureResponse } from '../http/failures.ts';
import { createControlApp } from '../control/app.ts';
import { type RequestHub, requestHub } from '../collections/hub.ts';
import { type LevelCheck, levelCheck } from '../control/level_check.ts';
import { wordsBackfill } from '../control/words_backfill.ts';
import { defaultLinkBuilder } from '../link/link_builder.ts';
import type { Log, Logger } from '../log/logger.ts';
import { createSelfTest } from '../selftest/selftest.ts';
import { resolveSessionKeys } from '../session/keys.ts';
import { auditTrail } from '../audit/audit_logger.ts';
import { eventBus, type Subscriber } from '../events/bus.ts';
import { webhookSealKey } from '../webhooks/key.ts';
import { type Sender, webhookSender } from '../webhooks/sender.ts';
import { createMetrics, type Metrics } from '../metrics/metrics.ts';
import { openStore } from '../store/open.ts';
import type { Store } from '../store/store.ts';
import { storeThrottle } from '../throttle/throttle.ts';
import { type ControlIdentity, loadControlIdentity } from '../tls/control_identity.ts';
import { createInterface } from '../host/interface.ts';
import { interfaceConfig } from '../context/deps.ts';
import { ensureAdminPassword } from './admin_password.ts';
import { healthFastPath } from './health_fast_path.ts';
import { hostOfHostHeader, hostRouter, sideResolver } from '../host/host_router.ts';
import { drain } from './drain.ts';
import { listen } from './listen.ts';
import { openBodies } from './open_bodies.ts';
import { trustedPeers } from './accept_proxy_protocol.ts';
import { LAST_SWEEP_SETTING, parseSweepRecord, retentionOf } from '../domain/retention.ts';
import { retentionSweeper } from '../sweep/retention.ts';
import { SWEEP_EVERY_MS, sweeper } from '../sweep/sweeper.ts';
import { syslogForwarder } from '../audit/syslog_forwarder.ts';
import { EVENTS } from '../events/catalogue.ts';

export interface RunningServer {
  url: string;
  /** BaseURL, with the port bound when it was derived from a listen address on port 0. */
  baseUrl: string;
  pin: string;
  /** Reads the control key from the store now (SIGHUP), rather than at the next reload. */
  reloadControl(): Promise<void>;
  /** Stops accepting, drains in-flight requests, closes the store. */
  close(): Promise<void>;
}

/** How long a stop waits for requests in flight before it closes their connections (docs/contract.md section 2). */
const DRAIN_MS = 10_000;
/**
 * How often a running server reads the control key from the store: a rotation (docs/contract.md
 * section 16) is served by every instance within 60 s, with room for a failed read; each read also
 * reissues the generated certificate when it is due for renewal.
 */
export const CONTROL_RELOAD_MS = 20_000;

export interface ServeOptions {
  /** The log: it hears every event first (and a test reads what it heard). */
  logger: Log;
  clock?: Clock;
  /** How long close() lets requests in flight finish (10 s by default). */
  drainMs?: number;
  /** Connections kept open at most (by default from the open-file limit; see connections.ts). */
  maxConnections?: number;
  /** Where the one-time generated password is announced (stderr by default). */
  announce?: (line: string) => void;
  /** How often the control key is read from the store (20 s by default; shorter in tests). */
  controlReloadMs?: number;
}

export async function startServer(configured: Config, opts: ServeOptions): Promise<RunningServer> {
  const clock = opts.clock ?? systemClock;
  const store = await openStore(configured);
  // Every event goes to the log, then the audit trail (which stores the audited ones, CONTRACT
  // section 9; audit/audit_logger.ts), then the metrics (which count some, section 11).
  const audit = auditTrail(store, clock, opts.logger);
  const metrics = createMetrics({ store, clock, staleAfterMs: configured.staleAfterMs });
  // The webhook sender hears the bus too (to look at once), and emits on it: bound after both exist.
  let sender: Sender | undefined;
  const senderPoke: Subscriber = { hear: (event, fields) => sender?.subscriber.hear(event, fields) };
  const logger = {
    ...eventBus(opts.logger, audit, metrics.subscriber, senderPoke),
    flush: () => audit.flush(),
  };
  const checks = levelCheck({ store, logger });
  const words = wordsBackfill(store);
  // Held requests of devices (docs/contract.md section 15): answered at once on SIGTERM.
  const requests = requestHub(store, clock, (err) =>
    logger.emit(EVENTS.serverError, { error: `held requests: ${err.message}` }),
  );
  metrics.heldRequests(() => requests.held());
  try {
    const loadControl = () => loadControlIdentity(store, configured.controlHost, clock.now(), configured.controlTls);
    // Reissued with the same key before it expires (see tls/control_identity.ts), so the pin holds.
    let control = await loadControl();
    // docs/contract.md section 18: the expiry of what is served now, for PaddockCertificateExpiring.
    metrics.certificate('control', () => control.certPem);
    const adminTls = configured.tls;
    if (adminTls) metrics.certificate('admin', () => adminTls.certPem);
    // Bound before the handler is built, so URLs derived from a listen address on port 0 name the
    // port actually bound; until the handler is ready requests are told to retry.
    // Until the handler is ready, requests are told to retry; counted, as every answer is.
    const starting = (req: Request) => {
      metrics.answered({ server: 'none', route: 'starting', method: req.method, status: 503 });
      return failureResponse('starting', { 'Retry-After': '1' });
    };
    let handler: (req: Request, env: unknown) => Response | Promise<Response> = starting;
    // docs/contract.md section 5: /healthz says 200 only once every route is served, so its fast path
    // answers only after the handler is in place; until then it too gets 503 with Retry-After.
    const health = healthFastPath(configured.version, sideResolver(routing(configured)), metrics);
    let ready = false;
    let draining = false;
    const server = await listen((req, env) => handler(req, env), {
      ...configured.listen,
      tls: configured.tls && {
        admin: configured.tls,
        controlHost: configured.controlHost,
        hsts: hstsApplies(configured),
      },
      control: () => control,
      fastPath: (req, res) => ready && health(req, res),
      draining: () => draining,
      // `open_bodies_busy`: a client over its share of bodies in flight on the open routes (open_bodies.ts).
      answeredEarly: (status, busy) =>
        metrics.answered({ server: 'none', route: busy ? 'open_bodies_busy' : 'unreadable', method: 'other', status }),
      onError: (err) => logger.emit(EVENTS.serverError, { error: err.message }),
      maxConnections: opts.maxConnections,
      proxyProtocol: configured.proxyProtocolFrom && { trusted: trustedPeers(configured.proxyProtocolFrom) },
      openBodies: openBodies(),
    });
    const address = server.address() as AddressInfo;
    const config = bindListenPort(configured, address.port);
    try {
      // After the port is ours: a start that fails on its address prints no password it did not use.
      await ensureAdminPassword(
        config,
        { store, logger, clock },
        opts.announce ?? ((line) => process.stderr.write(line)),
      );
      handler = await buildHandler(config, store, clock, logger, () => control, checks, metrics, requests);
      ready = true;
    } catch (err) {
      server.close();
      throw err;
    }
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    const url = `${config.tls ? 'https' : 'http'}://${host}:${address.port}`;
    const sweep = sweeper({
      store,
      logger,
      clock,
      auditRetentionMs: config.auditRetentionMs,
      revokeStaleAfterMs: config.revokeStaleAfterMs,
      staleAfterMs: config.staleAfterMs,
    });
    sweep.start();
    metrics.sweep('minute', SWEEP_EVERY_MS, () => Promise.resolve(sweep.finishedAt()));
    sender = webhookSender({
      store,
      logger,
      clock,
      sealKey: await webhookSealKey(store),
      allowPrivate: config.webhookAllowPrivate,
      disableAfterMs: config.webhookDisableAfterMs,
      retentionMs: config.webhookRetentionMs,
    });
    sender.start();
    const retention = retentionSweeper({
      store,
      logger,
      clock,
      retention: retentionOf(config),
      intervalMs: config.sweepIntervalMs,
    });
    retention.start();
    // From the store: with several instances, the last sweep may be another's (one at a time, by lease);
    // or this instance's last run, which with nothing retained touches nothing. Exported from the start.
    metrics.sweep('retention', config.sweepIntervalMs, async () => {
      const last = [parseSweepRecord(await store.getSetting(LAST_SWEEP_SETTING))?.at, retention.finishedAt()];
      return Math.max(...last.map((at) => at ?? 0)) || undefined;
    });
    // docs/contract.md section 13: the audit trail also goes to a syslog collector, off the request path.
    const syslog =
      config.auditSyslog &&
      syslogForwarder({ store, logger, clock, target: config.auditSyslog, ca: config.auditSyslogCa });
    syslog?.start();
    // A rotated key, or a renewed certificate, written by any instance or command: served from here
    // on by new connections (listen.ts makes a new secure context when the certificate changed).
    const reloadControl = () =>
      loadControl().then(
        (loaded) => void (control = loaded),
        (err: unknown) => logger.emit(EVENTS.serverError, { error: `control certificate: ${(err as Error).message}` }),
      );
    const renewal = setInterval(reloadControl, opts.controlReloadMs ?? CONTROL_RELOAD_MS);
    renewal.unref();
    // Runs a restart left unchecked are checked in the background, one at a time; a failure is logged.
    checks
      .backfill()
      .catch((err: unknown) => logger.emit(EVENTS.levelCheckFailed, { error: `backfill: ${(err as Error).message}` }));
    // Runs stored before the search index existed are indexed in the background; a failure is logged.
    void words
      .run()
      .catch((err: unknown) =>
        logger.emit(EVENTS.serverError, { error: `search index backfill: ${(err as Error).message}` }),
      );
    logger.emit(EVENTS.serverStarted, { listen: url, base_url: config.baseUrl, version: config.version });
    return {
      url,
      baseUrl: config.baseUrl,
      pin: control.pin,
      reloadControl,
      close: async () => {
        draining = true;
        clearInterval(renewal);
        // Held requests are answered now (an empty list), so the drain never waits for them.
        requests.drain();
        await drain(server, opts.drainMs ?? DRAIN_MS);
        requests.stop();
        await sweep.stop();
        await sender?.stop();
        words.stop();
        await checks.stop();
        await retention.stop();
        // The records of the last requests are written before the store closes, and sent when they can be;
        // so are the refusals counted and not yet audited (audit/refusal_limit.ts).
        await audit.close();
        await logger.flush();
        await syslog?.stop();
        await store.close();
      },
    };
  } catch (err) {
    requests.stop();
    await logger.flush();
    await store.close();
    throw err;
  }
}

async function buildHandler(
  config: Config,
  store: Store,
  clock: Clock,
  logger: Logger,
  control: () => ControlIdentity,
  checks: LevelCheck,
  metrics: Metrics,
  requests: RequestHub,
) {
  const sessionKeys = await resolveSessionKeys(config.sessionKeys, store);
  const { issuer, clientId, clientSecret } = config.oidc;
  // Loaded only when a provider is configured: jose is the largest module Paddock would otherwise load.
  const oidc =
    issuer === undefined
      ? undefined
      : (await import('../oidc/client.ts')).createOidcClient({ issuer, clientId, clientSecret, clock });
  const certificates = [
    // Getters: the dashboard shows the certificate served now, after a renewal or a rotation too.
    {
      name: 'control certificate',
      get certPem() {
        return control().certPem;
      },
      get pin() {
        return control().pin;
      },
    },
    ...(config.tls ? [{ name: 'admin certificate', certPem: config.tls.certPem }] : []),
  ];
  const adminApp = createInterface({
    config: interfaceConfig(config, sessionKeys),
    store,
    linkBuilder: defaultLinkBuilder({ baseUrl: config.baseUrl, pins: () => control().pins }),
    throttle: storeThrottle(store, clock, (ms) => metrics.throttleDelay(ms)),
    oidc,
    selfTest: createSelfTest({
      store,
      clock,
      dataDir: config.databaseUrl === undefined ? config.dataDir : undefined,
      sessionKeys,
      oidc: config.oidc.enabled ? oidc : undefined,
      certificates,
    }),
    logger,
    clock,
    metrics,
    webhookSealKey: await webhookSealKey(store),
  });
  const controlApp = createControlApp({
    store,
    logger,
    clock,
    levelCheck: checks,
    deviceQuotaBytes: config.deviceQuotaBytes,
    metrics,
    requests,
    pins: () => control().pins,
    credentialRules: { rotateAfterMs: config.credentialRotateAfterMs, maxAgeMs: config.credentialMaxAgeMs },
  });
  return hostRouter({ ...routing(config), admin: adminApp, control: controlApp, metrics });
}

/**
 * HSTS binds a host name for a year: right for the console's public name, wrong for `localhost` or
 * an IP address, where it would stick in browsers and reach other local services.
 */
export function hstsApplies(config: Pick<Config, 'baseUrl'>): boolean {
  const host = hostOfHostHeader(new URL(config.baseUrl).host);
  return !isLoopbackHost(host) && isIP(host) === 0;
}

/** The host names of the two sides, and whether the certificate decides the side. */
function routing(config: Config) {
  return {
    // Without the brackets of an IPv6 literal, as the control host and Host headers are compared.
    adminHost: hostOfHostHeader(new URL(config.baseUrl).host),
    controlHost: config.controlHost,
    tls: config.tls !== undefined,
  };
}
