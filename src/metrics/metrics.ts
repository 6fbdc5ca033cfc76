/**
 * Prometheus metrics (docs/contract.md section 11), with prom-client on a registry of this server's own
 * (never the library's global one, so two servers in one process never mix their counts). Every
 * label set is bounded: routes are the routes table's patterns, never paths; statuses, levels,
 * methods and outcomes are small fixed sets; no device, run or account ever becomes a label.
 *
 * Counters of events are fed by a subscriber of the event bus (as the audit trail is): a handler
 * that emits a sign-in is counted with no second call to forget. Gauges read the store at scrape time from its
 * counters, so a scrape costs the same at a million runs.
 */
import { X509Certificate } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Clock } from '../clock.ts';
import { isPrivacyLevel, PRIVACY_LEVELS } from '../domain/privacy.ts';
import { subscribe, type Subscriber } from '../events/bus.ts';
import type { Store } from '../store/store.ts';

const ADMIN = { subject: 'system:metrics', admin: true };

export interface Metrics {
  registry: Registry;
  /** Records each request of `server` (console or control) by its route pattern. */
  http(server: 'console' | 'control'): MiddlewareHandler;
  /**
   * Counts an answer made outside the two apps (issue 23: every answer is counted): a misdirected
   * request (421), the health fast path, and, as server `none`, what came before routing (the
   * answers while starting, requests Node's parser refused).
   */
  answered(labels: { server: 'console' | 'control' | 'none'; route: string; method: string; status: number }): void;
  /** Hears the events of the bus and counts some (src/events/catalogue.ts). */
  subscriber: Subscriber;
  /** Hears each break-glass sign-in attempt's throttle delay (throttle/throttle.ts). */
  throttleDelay(ms: number): void;
  /** Hears a device's answer to a request (fulfilled or declined), `ms` after its collection was created. */
  requestAnswered(ms: number): void;
  /** Reads the requests held now at each scrape (the control API's hub, once it exists). */
  heldRequests(read: () => number): void;
  /**
   * Reads the PEM of a certificate served now at each scrape (the control certificate, renewed in
   * place; the console's own when PADDOCK_TLS is set), for its expiry time (CONTRACT section 18).
   */
  certificate(name: 'control' | 'admin', read: () => string): void;
  /**
   * A sweep that runs every `intervalMs`, and when its last run finished (epoch ms; undefined
   * before the first), read at each scrape: a cheap read (a field, or one setting by its key).
   * Exported from the start: until a run finishes after this process started, the gauge holds the
   * process's start, so PaddockSweepStalled also sees a first sweep that never finishes.
   */
  sweep(name: 'minute' | 'retention', intervalMs: number, finishedAt: () => Promise<number | undefined>): void;
}

export function createMetrics(deps: {
  store: Pick<
    Store,
    | 'countsVisibleTo'
    | 'storedBytesByLevel'
    | 'storedRunsByLevel'
    | 'staleDeviceCount'
    | 'pendingDevices'
    | 'outboxDepth'
    | 'targetsByState'
  >;
  clock: Clock;
  staleAfterMs: number;
}): Metrics {
  const registry = new Registry();
  const requests = new Counter({
    name: 'paddock_http_requests_total',
    help: 'HTTP requests answered, by server, route pattern, method and status',
    labelNames: ['server', 'route', 'method', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'paddock_http_request_duration_seconds',
    help: 'Time to answer a request (to its headers), by server, route pattern and method',
    labelNames: ['server', 'route', 'method'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const uploads = new Counter({
    name: 'paddock_uploads_total',
    help: 'Run uploads by privacy level and outcome (the status answered)',
    labelNames: ['level', 'status'] as const,
    registers: [registry],
  });
  const signIns = new Counter({
    name: 'paddock_sign_ins_total',
    help: 'Sign-ins by method (local, oidc) and outcome',
    labelNames: ['method', 'outcome'] as const,
    registers: [registry],
  });
  const storeErrors = new Counter({
    name: 'paddock_store_errors_total',
    help: 'Requests refused because the store failed, by kind (unavailable, full)',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  const swept = new Counter({
    name: 'paddock_sweeper_runs_deleted_total',
    help: 'Runs deleted by the retention sweep, by privacy level',
    labelNames: ['level'] as const,
    registers: [registry],
  });
  const delays = new Histogram({
    name: 'paddock_throttle_delay_seconds',
    help: 'Delay slept by each break-glass sign-in attempt before its answer (docs/contract.md section 5)',
    buckets: [0, 0.5, 1, 2, 4, 8, 16, 30],
    registers: [registry],
  });
  const revoked = new Counter({
    name: 'paddock_devices_revoked_total',
    help: 'Devices revoked, by who: an account or the stale sweep (system)',
    labelNames: ['by'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'paddock_devices',
    help: 'Devices by status (active, stale, pending, revoked)',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      const counts = await deps.store.countsVisibleTo(ADMIN);
      const stale = await deps.store.staleDeviceCount(deps.clock.now() - deps.staleAfterMs);
      // The counters' unrevoked devices include those waiting for approval (docs/contract.md section 16).
      const pending = (await deps.store.pendingDevices()).count;
      this.set({ status: 'active' }, counts.activeDevices - stale - pending);
      this.set({ status: 'stale' }, stale);
      this.set({ status: 'pending' }, pending);
      this.set({ status: 'revoked' }, counts.devices - counts.activeDevices);
    },
  });
  new Gauge({
    name: 'paddock_devices_pending_oldest_timestamp_seconds',
    help: 'When the device waiting longest for approval enrolled (unix seconds); 0 when none waits (alert: PaddockDevicesAwaitingApproval)',
    registers: [registry],
    async collect() {
      // Read from the partial index of the waiting devices alone (devices_pending): cheap at any fleet size.
      const { oldest } = await deps.store.pendingDevices();
      this.set(oldest === null ? 0 : oldest / 1000);
    },
  });
  new Gauge({
    name: 'paddock_runs',
    help: 'Stored runs by privacy level',
    labelNames: ['level'] as const,
    registers: [registry],
    async collect() {
      const runs = await deps.store.storedRunsByLevel(ADMIN);
      for (const level of PRIVACY_LEVELS) this.set({ level }, runs[level]);
    },
  });
  new Gauge({
    name: 'paddock_run_bytes',
    help: 'Stored run bytes by privacy level',
    labelNames: ['level'] as const,
    registers: [registry],
    async collect() {
      const bytes = await deps.store.storedBytesByLevel(ADMIN);
      for (const level of PRIVACY_LEVELS) this.set({ level }, bytes[level]);
    },
  });

  // docs/contract.md section 13: the webhooks' deliveries (event names and outcomes are fixed sets).
  const deliveries = new Counter({
    name: 'paddock_webhook_deliveries_total',
    help: 'Webhook delivery attempts by event and outcome (delivered, retrying, failed)',
    labelNames: ['event', 'outcome'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'paddock_webhook_outbox_pending',
    help: 'Webhook deliveries waiting in the outbox (pending or being attempted)',
    registers: [registry],
    async collect() {
      this.set((await deps.store.outboxDepth()).pending);
    },
  });
  new Gauge({
    name: 'paddock_webhook_outbox_oldest_age_seconds',
    help: 'Age of the oldest pending webhook delivery in the outbox (0 when there is none)',
    registers: [registry],
    async collect() {
      const { oldest } = await deps.store.outboxDepth();
      this.set(oldest === null ? 0 : Math.max(0, (deps.clock.now() - oldest) / 1000));
    },
  });

  // docs/contract.md section 15: collection requests.
  let held: () => number = () => 0;
  new Gauge({
    name: 'paddock_requests_held',
    help: 'Device requests for a collection request held open now (long polls), on this instance',
    registers: [registry],
    collect() {
      this.set(held());
    },
  });
  const answerTime = new Histogram({
    name: 'paddock_request_answer_seconds',
    help: "Time from a collection's creation to a device's answer (a run, or a decline)",
    buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600, 14400, 86400],
    registers: [registry],
  });
  new Gauge({
    name: 'paddock_collection_targets',
    help: 'Targets of collection requests by state (pending, delivered, fulfilled, declined, expired, cancelled, skipped)',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const counts = await deps.store.targetsByState();
      for (const [state, n] of Object.entries(counts)) this.set({ state }, n);
    },
  });

  // docs/contract.md section 18: what the alerts of deploy/prometheus/alerts.yml need.
  const certificates = new Map<string, () => string>();
  /** The last PEM read and its expiry, so a scrape parses a certificate only when it changed. */
  const expiries = new Map<string, { pem: string; expiresAt: number }>();
  new Gauge({
    name: 'paddock_certificate_expiry_timestamp_seconds',
    help: 'When a certificate this instance serves expires (unix seconds): control, and admin when PADDOCK_TLS is set',
    labelNames: ['certificate'] as const,
    registers: [registry],
    collect() {
      for (const [certificate, read] of certificates) {
        const pem = read();
        let known = expiries.get(certificate);
        if (known?.pem !== pem) {
          known = { pem, expiresAt: Date.parse(new X509Certificate(pem).validTo) };
          expiries.set(certificate, known);
        }
        this.set({ certificate }, known.expiresAt / 1000);
      }
    },
  });
  const sweeps = new Map<string, { intervalMs: number; finishedAt: () => Promise<number | undefined> }>();
  // The metrics are made as the process starts: its start, for a sweep not finished since (issue 42).
  const startedAt = deps.clock.now();
  new Gauge({
    name: 'paddock_sweep_last_timestamp_seconds',
    help: "When the last sweep finished (unix seconds; the process's start until one has since): minute (this instance's), retention (the last by any instance on the store)",
    labelNames: ['sweep'] as const,
    registers: [registry],
    async collect() {
      for (const [sweep, s] of sweeps) this.set({ sweep }, Math.max((await s.finishedAt()) ?? 0, startedAt) / 1000);
    },
  });
  new Gauge({
    name: 'paddock_sweep_interval_seconds',
    help: 'How often each sweep runs (minute: 60; retention: PADDOCK_SWEEP_INTERVAL), for the stalled-sweep alert',
    labelNames: ['sweep'] as const,
    registers: [registry],
    collect() {
      for (const [sweep, s] of sweeps) this.set({ sweep }, s.intervalMs / 1000);
    },
  });
  const syslogFailures = new Counter({
    name: 'paddock_audit_syslog_failures_total',
    help: 'Failures to send the audit trail to the syslog collector (PADDOCK_AUDIT_SYSLOG), each audit.syslog_failed',
    registers: [registry],
  });

  // Counters whose label sets are known start at 0, so a rate or an alert sees the first event.
  for (const method of ['local', 'oidc'] as const) signIns.inc({ method, outcome: 'succeeded' }, 0);
  signIns.inc({ method: 'local', outcome: 'failed' }, 0);
  for (const outcome of ['exchange_failed', 'token_rejected']) signIns.inc({ method: 'oidc', outcome }, 0);
  for (const kind of ['unavailable', 'full']) storeErrors.inc({ kind }, 0);
  for (const level of PRIVACY_LEVELS) swept.inc({ level }, 0);
  for (const by of ['account', 'system']) revoked.inc({ by }, 0);

  /** The events that are counted, and how. */
  const counted = subscribe({
    loginLocalSucceeded: () => signIns.inc({ method: 'local', outcome: 'succeeded' }),
    loginLocalFailed: () => signIns.inc({ method: 'local', outcome: 'failed' }),
    loginOidcSucceeded: () => signIns.inc({ method: 'oidc', outcome: 'succeeded' }),
    loginOidcExchangeFailed: () => signIns.inc({ method: 'oidc', outcome: 'exchange_failed' }),
    loginOidcTokenRejected: () => signIns.inc({ method: 'oidc', outcome: 'token_rejected' }),
    storeUnavailable: () => storeErrors.inc({ kind: 'unavailable' }),
    storeFull: () => storeErrors.inc({ kind: 'full' }),
    deviceRevoked: (f) => revoked.inc({ by: f.account === 'system' ? 'system' : 'account' }),
    webhookAttempted: (f) => deliveries.inc({ event: f.type, outcome: f.outcome }),
    auditSyslogFailed: () => syslogFailures.inc(),
    runsSwept: (f) => {
      for (const level of PRIVACY_LEVELS) swept.inc({ level }, f[level]);
    },
  });

  return {
    registry,
    http(server) {
      return async function metricsMiddleware(c, next) {
        const started = performance.now();
        await next();
        // The routes table's pattern that answered, or `unmatched` (a 404 or 405): never the path a
        // client made up. Middleware matches every path with method ALL; the route has its own.
        const route =
          matchedRoutes(c)
            .filter((r) => r.method !== 'ALL')
            .at(-1)?.path ?? 'unmatched';
        const method = methodLabel(c.req.method);
        const status = String(c.res.status);
        requests.inc({ server, route, method, status });
        latency.observe({ server, route, method }, (performance.now() - started) / 1000);
        if (server === 'control' && method === 'PUT' && route === '/v1/runs/:id') {
          const level = c.req.header('x-privacy-level') ?? '';
          uploads.inc({ level: isPrivacyLevel(level) ? level : 'invalid', status });
        }
      };
    },
    answered({ server, route, method, status }) {
      requests.inc({ server, route, method: methodLabel(method), status: String(status) });
    },
    throttleDelay(ms) {
      delays.observe(ms / 1000);
    },
    requestAnswered(ms) {
      answerTime.observe(Math.max(0, ms) / 1000);
    },
    heldRequests(read) {
      held = read;
    },
    certificate(name, read) {
      certificates.set(name, read);
    },
    sweep(name, intervalMs, finishedAt) {
      sweeps.set(name, { intervalMs, finishedAt });
    },
    subscriber: counted,
  };
}

/** The method as a label: the ones the routes use, any other as `other`, so the set stays small. */
function methodLabel(method: string): string {
  return ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'].includes(method) ? method : 'other';
}
