/**
 * Issue 43: SCIM's `GET /scim/v2/Users?filter=userName eq "…"` at 10,000 users (and 1,000 groups,
 * each user in 20), p50 ≤ 10 ms: the request an identity provider sends before every create. A
 * store is built through the store interface, a real `paddock serve` started on it, and the lookup
 * loaded with autocannon, each request a different user (in any case, as providers send them).
 *
 * Alone: `node bench/scim.ts [--users 10000] [--groups 1000] [--duration 10] [--connections 10]`,
 * and `--postgres URL` (an empty database) for the PostgreSQL store.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { secretHash } from '../src/crypto/random.ts';
import { newAccessToken } from '../src/domain/access_tokens.ts';
import { newScimId } from '../src/domain/scim.ts';
import { openPostgresStore } from '../src/store/postgres/store.ts';
import { openSqliteStore } from '../src/store/sqlite/store.ts';
import type { Store } from '../src/store/store.ts';
import { load } from './load.ts';
import { startPaddock } from './server.ts';

const { values } = parseArgs({
  options: {
    users: { type: 'string', default: '10000' },
    groups: { type: 'string', default: '1000' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    postgres: { type: 'string' },
  },
});
const USERS = Number(values.users);
const GROUPS = Number(values.groups);
const PER_USER = 20;

async function build(store: Store): Promise<string> {
  const now = Date.now();
  await store.recordSignIn({ subject: 'local:admin', display: 'admin', lastSignInAt: now, admin: true });
  const token = newAccessToken();
  await store.createAccessToken({
    hash: secretHash(token),
    subject: 'local:admin',
    admin: true,
    scope: 'scim',
    name: 'bench',
    createdAt: now,
    expiresAt: now + 86_400_000,
  });
  const ids: string[] = [];
  for (let start = 0; start < USERS; start += 500) {
    const batch = Array.from({ length: Math.min(500, USERS - start) }, (_, k) => start + k);
    await Promise.all(
      batch.map(async (i) => {
        const id = newScimId();
        ids[i] = id;
        const userName = `user-${i}@example.com`;
        await store.createScimUser({
          id,
          userName,
          externalId: `ext-${i}`,
          displayName: `User ${i}`,
          active: true,
          attributes: {
            userName,
            displayName: `User ${i}`,
            emails: [{ value: userName, type: 'work', primary: true }],
          },
          createdAt: now,
        });
      }),
    );
  }
  // User i is in the 20 groups from (7 i mod GROUPS) on: every group holds about 200 users.
  const members: string[][] = Array.from({ length: GROUPS }, () => []);
  ids.forEach((id, i) => {
    for (let k = 0; k < PER_USER; k++) members[(i * 7 + k) % GROUPS]?.push(id);
  });
  for (let g = 0; g < GROUPS; g++)
    await store.createScimGroup({
      id: newScimId(),
      displayName: `group-${g}`,
      externalId: null,
      createdAt: now,
      members: members[g] ?? [],
    });
  return token;
}

const dir = await mkdtemp(join(tmpdir(), 'paddock-bench-scim-'));
try {
  const where = values.postgres ?? join(dir, 'data');
  const store = values.postgres ? await openPostgresStore(values.postgres) : openSqliteStore(where);
  const started = Date.now();
  const token = await build(store);
  await store.close();
  console.error(`built ${USERS} users and ${GROUPS} groups in ${Date.now() - started} ms`);
  const env: Record<string, string> = values.postgres
    ? { PADDOCK_DATABASE_URL: values.postgres, PADDOCK_DATA_DIR: join(dir, 'data') }
    : { PADDOCK_DATA_DIR: where };
  const server = await startPaddock({ ...env, PADDOCK_ADMIN_PASSWORD: 'a bench password of some length' });
  try {
    let n = 0;
    const path = () => {
      const i = (n++ * 7919) % USERS;
      const name = i % 2 === 0 ? `user-${i}@example.com` : `USER-${i}@Example.com`;
      return `/scim/v2/Users?filter=${encodeURIComponent(`userName eq "${name}"`)}`;
    };
    const headers = { authorization: `Bearer ${token}` };
    // A short warm-up, then the measured run.
    await load('warm-up', {
      url: server.base,
      pid: server.pid,
      duration: 2,
      connections: 4,
      headers,
      requests: [{ setupRequest: (r) => ({ ...r, path: path() }) }],
    });
    const r = await load('scim lookup', {
      url: server.base,
      pid: server.pid,
      duration: Number(values.duration),
      connections: Number(values.connections),
      headers,
      requests: [{ setupRequest: (req) => ({ ...req, path: path() }) }],
    });
    const backend = values.postgres ? 'PostgreSQL' : 'SQLite';
    console.log(
      `| ${backend} | GET /scim/v2/Users?filter=userName eq "…" at ${USERS} users, ${GROUPS} groups | ${Math.round(r.requestsPerSecond)} | ${r.p50} | ${r.p99} | ${r.non2xx + r.errors} | ${Math.round(r.cpuMicrosPerRequest)} | ${Math.round(r.peakRssMiB)} | ${r.p50 <= 10 ? 'met' : 'missed'} |`,
    );
  } finally {
    await server.stop();
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
