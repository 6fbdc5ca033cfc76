/**
 * The baseline of the console's list pages and of a run's page: a raw node:http server doing the
 * same work as `paddock serve` for one page and nothing else. It verifies the session cookie's MAC
 * with the same codec and reads the session's state from the store (seeSession, as the guard
 * does), reads the list's parameters, runs the same keyset query (or reads the run in the viewer's
 * scope) through the same store, renders the same page with the same view (with the same CSRF
 * token), and sends it with the same security headers. No router,
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
import { openPostgresStore } from '../src/store/postgres/store.ts';
import { openSqliteStore } from '../src/store/sqlite/store.ts';
import type { Store } from '../src/store/store.ts';
import type { Html } from '../src/views/html.ts';
import { auditPage } from '../src/views/audit.ts';
import { devicesPage } from '../src/views/devices.ts';
import { runsPage } from '../src/views/runs.ts';
import { runPage } from '../src/views/run.ts';
import { DEVICE_ID, RUN_ID } from '../src/domain/ids.ts';

const [where = '', key = ''] = process.argv.slice(2);
const store: Store = where.startsWith('postgres') ? await openPostgresStore(where) : openSqliteStore(where);
const codec = sessionCodec([Buffer.from(key, 'base64')], 43_200);
const STALE_AFTER_MS = 30 * 86_400_000;
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
    const viewer = { subject: session.subject, admin: session.admin };
    const chrome = { session, csrf: codec.csrfToken(session), now };
    const url = new URL(req.url ?? '/', 'http://baseline');
    // One run's page, as GET /runs/{device}/{id}: the run read in the viewer's scope, the same view.
    const one = /^\/runs\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (one) {
      const [, device = '', id = ''] = one;
      const run = DEVICE_ID.test(device) && RUN_ID.test(id) ? await store.runVisibleTo(viewer, device, id) : undefined;
      if (!run) return send(res, 404);
      const body = runPage(chrome, run);
      if (!(body instanceof ReadableStream)) return send(res, 200, await body);
      res.writeHead(200, HEADERS);
      for await (const chunk of body) res.write(chunk);
      return void res.end();
    }
    let page: Html;
    if (url.pathname === '/runs') {
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
      const devices = await store.devicesVisibleTo(
        viewer,
        { before: q.values.before, limit: PAGE_SIZE },
        deviceFilter(q.values, staleBefore),
      );
      page = devicesPage(chrome, { page: devices, query: q.values, staleBefore });
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
