/**
 * The baseline of the console's list pages and of a run's page: a raw node:http server doing the
 * same work as `paddock serve` for one page and nothing else. It verifies the session cookie's MAC
 * with the same codec and reads the session's state from the store (seeSession, as the guard
 * does), reads the list's parameters, runs the same keyset query (or reads the run in the viewer's
 * scope) through the same store, renders the same page with the same view (with the same CSRF
 * token), and sends it with the same security headers. The dashboard (`GET /`) runs the same
 * self-test (the same checks, on the same configuration read from the same settings, with the
 * control certificate the server stored) and reads the counts through the same count cache. No router,
 * no middleware, no web-standard Request or Response, no metrics, no logger.
 * Usage: page_baseline_server.ts <store> <sessionKeyBase64>, where <store> is a data directory
 * (SQLite) or a postgres:// URL; prints its port once it listens.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AUDIT, auditFilter } from '../src/lists/audit.ts';
import { DEVICES, deviceFilter } from '../src/lists/devices.ts';
import { parseConsole } from '../src/lists/parameters.ts';
import { RUNS, runFilter } from '../src/lists/runs.ts';
import { PAGE_SIZE } from '../src/domain/paging.ts';
import { DEFAULT_CACHE_CONTROL, SECURITY_HEADERS } from '../src/http/security_headers.ts';
import { sessionCodec } from '../src/session/session.ts';
import { sessionSeen } from '../src/context/session_cookie.ts';
import type { Store } from '../src/store/store.ts';
import type { Html } from '../src/views/html.ts';
import { auditPage } from '../src/views/audit.ts';
import { devicesPage } from '../src/views/devices.ts';
import { runsPage } from '../src/views/runs.ts';
import { runPage } from '../src/views/run.ts';
import { runContent } from '../src/console/run_show.ts';
import { runQuery } from '../src/console/run_query.ts';
import { DEVICE_ID, RUN_ID } from '../src/domain/ids.ts';
import { systemClock } from '../src/clock.ts';
import { loadConfig } from '../src/config/config.ts';
import { retentionOf } from '../src/domain/retention.ts';
import { createSelfTest } from '../src/selftest/selftest.ts';
import { resolveSessionKeys } from '../src/session/keys.ts';
import { openStore } from '../src/store/open.ts';
import { loadControlIdentity } from '../src/tls/control_identity.ts';
import { dashboardPage } from '../src/views/dashboard.ts';
import { dashboardSnapshots, onlineLink } from '../src/console/dashboard_data.ts';
import { deviceCounter } from '../src/console/device_counts.ts';
import { pagePosition } from '../src/console/page_helpers.ts';

const [where = '', key = ''] = process.argv.slice(2);
const codec = sessionCodec([Buffer.from(key, 'base64')], 43_200);
// The dashboard's configuration and self-test, as `paddock serve` builds them from the bench's settings.
const config = loadConfig({
  ...(where.startsWith('postgres') ? { PADDOCK_DATABASE_URL: where } : { PADDOCK_DATA_DIR: where }),
  PADDOCK_SESSION_KEYS: key,
  PADDOCK_LISTEN: '127.0.0.1:0',
});
// Opened as `paddock serve` opens it: the control key is sealed under the same seal key file.
const store: Store = await openStore(config);
const control = await loadControlIdentity(store, config.controlHost, Date.now(), config.controlTls);
const selfTest = createSelfTest({
  store,
  clock: systemClock,
  dataDir: config.databaseUrl === undefined ? config.dataDir : undefined,
  sessionKeys: await resolveSessionKeys(config.sessionKeys, store),
  certificates: [{ name: 'control certificate', certPem: control.certPem, pin: control.pin }],
});
const retention = retentionOf(config);
const STALE_AFTER_MS = 30 * 86_400_000;
const dashboardSnapshot = dashboardSnapshots(
  { store, selfTest, retention, staleAfterMs: STALE_AFTER_MS, onlineWithinMs: config.onlineWithinMs },
  systemClock,
);
const ONLINE_WITHIN_MS = 5 * 60_000;
const countDevices = deviceCounter(store, systemClock);
const HEADERS = {
  ...SECURITY_HEADERS,
  'Cache-Control': DEFAULT_CACHE_CONTROL,
  'Content-Type': 'text/html; charset=UTF-8',
};

function send(res: ServerResponse, status: number, body: string | Buffer = '') {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, { ...HEADERS, 'Content-Length': bytes.length });
  res.end(bytes);
}

function cookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

const server = createServer((req, res) => {
  void (async () => {
    const now = Date.now();
    const value = cookie(req.headers.cookie, 'service_admin');
    const session = value === undefined ? undefined : codec.decode(value, now);
    if (!session) return send(res, 303);
    // The guard's one read of the session's state (docs/contract.md section 14): ended, its account
    // disabled, last seen (written at most once a minute).
    const seen = sessionSeen(session, req.socket.remoteAddress ?? '', req.headers['user-agent']);
    if ((await store.seeSession(seen, now)) === 'ended') return send(res, 303);
    // And its read of the account's groups (docs/contract.md section 19), every request.
    const viewer = {
      subject: session.subject,
      admin: session.admin,
      groups: await store.accountGroups(session.subject),
    };
    const chrome = { session, csrf: codec.csrfToken(session), now };
    const url = new URL(req.url ?? '/', 'http://baseline');
    // One run's page, as GET /runs/{device}/{id}: the run read in the viewer's scope, the same page of
    // it (or find) as its query asks, the device's previous run, the same view.
    const one = /^\/runs\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (one) {
      const [, device = '', id = ''] = one;
      const run = DEVICE_ID.test(device) && RUN_ID.test(id) ? await store.runVisibleTo(viewer, device, id) : undefined;
      if (!run) return send(res, 404);
      const query = runQuery(url.searchParams);
      const [content, previous] = await Promise.all([runContent(run, query), store.previousRun(viewer, device, id)]);
      return send(res, 200, runPage(chrome, run, content, query, previous).value);
    }
    let page: Html;
    if (url.pathname === '/') {
      // The same reads as GET / (console/dashboard_data.ts): one snapshot a scope, kept as long.
      const data = await dashboardSnapshot(viewer);
      page = dashboardPage(chrome, {
        ...data,
        version: config.version,
        online: { href: onlineLink(config.onlineWithinMs), withinMs: config.onlineWithinMs },
        staleAfterMs: STALE_AFTER_MS,
      });
    } else if (url.pathname === '/runs') {
      const q = parseConsole(RUNS, url.searchParams);
      if (!q.ok) return send(res, 400);
      const runs = await store.runsVisibleTo(
        viewer,
        { before: q.values.before, limit: PAGE_SIZE },
        runFilter(q.values),
      );
      page = runsPage(chrome, { page: runs, query: q.values });
    } else if (url.pathname === '/devices') {
      const q = parseConsole(DEVICES, url.searchParams);
      if (!q.ok) return send(res, 400);
      const staleBefore = now - STALE_AFTER_MS;
      const filter = deviceFilter(q.values, staleBefore, now);
      const devices = await store.devicesVisibleTo(viewer, { before: q.values.before, limit: PAGE_SIZE }, filter);
      // How many the list holds, through the same counter (console/devices_list.ts).
      const total =
        q.values.before === undefined && devices.next === undefined
          ? { n: devices.items.length, more: false, countedAt: now }
          : await countDevices(viewer, q.values, filter);
      page = devicesPage(chrome, {
        page: devices,
        query: q.values,
        staleBefore,
        onlineSince: now - ONLINE_WITHIN_MS,
        total,
        from: pagePosition(url.searchParams),
        here: url.pathname + url.search,
      });
    } else if (url.pathname === '/audit' && session.admin) {
      const q = parseConsole(AUDIT, url.searchParams);
      if (!q.ok) return send(res, 400);
      const records = await store.auditPage(auditFilter(q.values), { before: q.values.before, limit: PAGE_SIZE });
      page = auditPage(chrome, { page: records, query: q.values });
    } else {
      return send(res, 404);
    }
    send(res, 200, page.value);
  })().catch(() => res.destroy()); // a request still in flight when the store closed at SIGTERM
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => server.close(() => void store.close().then(() => process.exit(0))));
