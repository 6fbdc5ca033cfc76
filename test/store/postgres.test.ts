// The store contract on PostgreSQL, plus what only a shared database has: migrations under an
// advisory lock and races between connections.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, test } from 'node:test';
import { openPostgresStore } from '../../src/store/postgres/pg_store.ts';
import { storeContract } from '../store/contract.ts';
import { dropSchemas, freshSchema, PG_URL, postgresAvailable } from '../support/postgres.ts';

const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));

if (!available) {
  test('PostgreSQL store (skipped: no PostgreSQL at 127.0.0.1:5432 and not on CI)', { skip: true }, () => undefined);
} else {
  storeContract('postgres', () => openPostgresStore(PG_URL, { schema: freshSchema() }));

  test('postgres: several instances migrating at once apply each migration once', async () => {
    const schema = freshSchema();
    const stores = await Promise.all(Array.from({ length: 4 }, () => openPostgresStore(PG_URL, { schema })));
    await stores[0]?.setSetting('x', '1');
    assert.equal(await stores[3]?.getSetting('x'), '1');
    await Promise.all(stores.map((s) => s.close()));
  });

  test('postgres: one token, many connections at once: one device', async () => {
    const schema = freshSchema();
    const stores = await Promise.all(Array.from({ length: 3 }, () => openPostgresStore(PG_URL, { schema })));
    const [a] = stores;
    await a?.createEnrollToken({
      hash: 'race',
      owner: 'oidc:ann',
      createdBy: 'local:admin',
      createdAt: 0,
      expiresAt: 1e13,
    });
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        stores[i % 3]?.enrollDevice({
          tokenHash: 'race',
          now: 1,
          deviceId: `r${i}`,
          name: 'n',
          credentialHash: `c${i}`,
        }),
      ),
    );
    assert.equal(results.filter(Boolean).length, 1);
    await Promise.all(stores.map((s) => s.close()));
  });

  test('postgres: the same run id at once from two connections: stored once; other bytes conflict', async () => {
    const schema = freshSchema();
    const [a, b] = await Promise.all([openPostgresStore(PG_URL, { schema }), openPostgresStore(PG_URL, { schema })]);
    if (!a || !b) throw new Error('no store');
    await a.createEnrollToken({ hash: 't', owner: 'oidc:ann', createdBy: 'x', createdAt: 0, expiresAt: 1e13 });
    await a.enrollDevice({ tokenHash: 't', now: 1, deviceId: 'd', name: 'n', credentialHash: 'c' });
    const put = (store: typeof a, text: string) => {
      const body = Buffer.from(text);
      return store.putRun({
        device: 'd',
        id: 'same',
        contentType: 'text/plain',
        privacy: 'full',
        size: body.length,
        uploadedAt: 2,
        body,
        sha256: createHash('sha256').update(body).digest('hex'),
      });
    };
    assert.deepEqual((await Promise.all([put(a, 'x'), put(b, 'x')])).sort(), ['created', 'identical']);
    assert.deepEqual((await Promise.all([put(a, 'y1'), put(b, 'y2')])).sort(), ['conflict', 'conflict']);
    const results = await Promise.all([
      put(a, 'z1'),
      (async () => {
        const body = Buffer.from('z2');
        return b.putRun({
          device: 'd',
          id: 'other',
          contentType: 't',
          privacy: 'full',
          size: 2,
          uploadedAt: 3,
          body,
          sha256: createHash('sha256').update(body).digest('hex'),
        });
      })(),
    ]);
    assert.deepEqual(results, ['conflict', 'created']);
    await a.close();
    await b.close();
  });
}
