/**
 * The baseline of the API's list rows: a raw node:http server doing the same queries and the same
 * render, and nothing else. It looks the bearer token up by its hash (as the API does on every
 * call), runs the list's query through the same store, and writes the same JSON (the API's own
 * shapes); no router, no middleware, no parameter checks, no security headers, no metrics.
 * Usage: api_baseline_server.ts <dataDir>; prints its port once it listens.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deviceJson, pageJson, runJson } from '../src/api/resources.ts';
import { secretHash } from '../src/crypto/random.ts';
import type { PrivacyLevel } from '../src/domain/privacy.ts';
import { openSqliteStore } from '../src/store/sqlite/store.ts';
import type { DeviceSort, DeviceStatus } from '../src/domain/devices.ts';
import { parseLabelSelector, type LabelSelector } from '../src/domain/labels.ts';
import { parseFactSelector, type FactSelector } from '../src/domain/facts.ts';

const [dataDir = ''] = process.argv.slice(2);
const store = openSqliteStore(dataDir);
const STALE_AFTER_MS = 30 * 86_400_000;

const server = createServer((req, res) => {
  void (async () => {
    const url = new URL(req.url ?? '/', 'http://baseline');
    const bearer = (req.headers.authorization ?? '').slice('Bearer '.length);
    const token = await store.accessTokenByHash(secretHash(bearer), Date.now());
    // The same work as the API: a token acts with its account's admin flag, and without an account
    // (never signed in) or a disabled one it is refused.
    if (!token || !token.account || token.account.disabledAt !== null) {
      res.writeHead(401).end();
      return;
    }
    const viewer = { subject: token.subject, admin: token.account.admin };
    const q = url.searchParams;
    let body: unknown;
    if (url.pathname === '/api/v1/devices') {
      const staleBefore = Date.now() - STALE_AFTER_MS;
      const page = await store.devicesVisibleTo(
        viewer,
        { before: q.get('before') ?? undefined, limit: 50 },
        {
          status: (q.get('status') ?? undefined) as DeviceStatus | undefined,
          sort: (q.get('sort') ?? undefined) as DeviceSort | undefined,
          labels: q.getAll('label').flatMap((t): LabelSelector[] => {
            const read = parseLabelSelector(t);
            return read.ok ? [read.value] : [];
          }),
          facts: q.getAll('fact').flatMap((t): FactSelector[] => {
            const read = parseFactSelector(t);
            return read.ok ? [read.value] : [];
          }),
          staleBefore,
        },
      );
      body = pageJson(page, (d) => deviceJson(d, staleBefore));
    } else if (url.pathname === '/api/v1/runs') {
      const page = await store.runsVisibleTo(
        viewer,
        { before: q.get('before') ?? undefined, limit: 50 },
        { privacy: (q.get('privacy') ?? undefined) as PrivacyLevel | undefined },
      );
      body = pageJson(page, runJson);
    } else {
      res.writeHead(404).end();
      return;
    }
    const bytes = Buffer.from(JSON.stringify(body));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length });
    res.end(bytes);
  })().catch(() => res.destroy()); // a request still in flight when the store closed at SIGTERM
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => server.close(() => void store.close().then(() => process.exit(0))));
