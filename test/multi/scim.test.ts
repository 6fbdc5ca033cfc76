// SCIM across instances (docs/contract.md sections 18 and 20): two real `paddock serve` processes
// on one PostgreSQL database. The identity provider deactivates a user through A; the session its
// account holds on B is refused on B's next request. A group made through B gives the account its
// name at once, which A reads back.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { secretHash } from '../../src/crypto/random.ts';
import { newAccessToken } from '../../src/domain/access_tokens.ts';
import { sessionCodec } from '../../src/session/session.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import type { Store } from '../../src/store/store.ts';
import { type PaddockProcess, paddock } from '../support/process.ts';
import {
  databaseUrl,
  dropDatabase,
  freshDatabase,
  postgresAvailable,
  sharedDatabaseEnv,
  SKIP_REASON,
} from '../support/postgres.ts';
import { freePort } from '../support/tls_fixture.ts';

const available = await postgresAvailable();
const KEY = randomBytes(32);

if (!available) {
  test(`SCIM across two instances (skipped: ${SKIP_REASON})`, { skip: true }, () => undefined);
} else {
  describe('SCIM across two instances on one database', () => {
    let database: string;
    let dir: string;
    let store: Store;
    const instances: PaddockProcess[] = [];
    let a = '';
    let b = '';

    before(async () => {
      const [portA, portB] = [await freePort(), await freePort()];
      [a, b] = [`http://127.0.0.1:${portA}`, `http://127.0.0.1:${portB}`];
      database = await freshDatabase();
      dir = await mkdtemp(join(tmpdir(), 'paddock-multi-scim-'));
      const start = async (name: string, port: number, base: string) => {
        const p = paddock(['serve'], {
          PADDOCK_LISTEN: `127.0.0.1:${port}`,
          PADDOCK_BASE_URL: base,
          PADDOCK_DATA_DIR: join(dir, name),
          ...sharedDatabaseEnv(databaseUrl(database), dir),
          PADDOCK_SESSION_KEYS: KEY.toString('base64'),
          PADDOCK_ADMIN_PASSWORD: 'scim instances password',
        });
        instances.push(p);
        await p.waitFor(/serving on/);
      };
      await start('a', portA, a);
      await start('b', portB, b);
      store = await openPostgresStore(databaseUrl(database));
    });
    after(async () => {
      await store?.close();
      for (const p of instances) p.child.kill('SIGTERM');
      await Promise.all(instances.map((p) => p.exited));
      if (database) await dropDatabase(database);
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    test('a user deactivated through A loses its session on B at once; a group made through B is read by A', async () => {
      const now = Date.now();
      await store.recordSignIn({ subject: 'local:admin', display: 'admin', lastSignInAt: now, admin: true });
      const token = newAccessToken();
      await store.createAccessToken({
        hash: secretHash(token),
        subject: 'local:admin',
        admin: true,
        scope: 'scim',
        name: 'idp',
        createdAt: now,
        expiresAt: now + 3_600_000,
      });
      const send = async (base: string, method: string, path: string, body?: unknown) => {
        const res = await fetch(`${base}/scim/v2${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      };
      const created = await send(a, 'POST', '/Users', { userName: 'leaver@example.com' });
      assert.equal(created.status, 201);
      const id = created.body.id as string;
      // The person signed in (as the OIDC callback records it), on B.
      const subject = 'oidc:leaver';
      await store.recordSignIn({ subject, display: 'Leaver', lastSignInAt: now, admin: false });
      assert.ok(await store.linkScimUser(id, subject));
      const codec = sessionCodec([KEY], 43_200);
      const session = codec.newSession({ subject, display: 'Leaver', admin: false }, now);
      await store.recordSession({
        id: session.id,
        subject,
        admin: false,
        startedAt: now,
        expiresAt: session.expires,
        client: '127.0.0.1',
        browser: 'test',
      });
      const cookie = `service_admin=${codec.encode(session)}`;
      const devices = async (base: string) => {
        const res = await fetch(`${base}/devices`, { headers: { cookie }, redirect: 'manual' });
        await res.body?.cancel();
        return res.status;
      };
      assert.deepEqual([await devices(a), await devices(b)], [200, 200]);

      const group = await send(b, 'POST', '/Groups', { displayName: 'field', members: [{ value: id }] });
      assert.equal(group.status, 201);
      assert.deepEqual(await store.accountGroups(subject), ['field']);
      const read = await send(a, 'GET', `/Groups/${group.body.id as string}`);
      assert.deepEqual(
        (read.body.members as Array<{ value: string }>).map((m) => m.value),
        [id],
      );

      const off = await send(a, 'PATCH', `/Users/${id}`, {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'replace', value: { active: false } }],
      });
      assert.equal(off.status, 200);
      assert.deepEqual([await devices(b), await devices(a)], [303, 303], 'refused on B at once, and on A');
    });
  });
}
