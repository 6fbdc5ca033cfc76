// The store contract on PostgreSQL, plus what only a shared database has: migrations under an
// advisory lock, races between connections, and connections that fail.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, test } from 'node:test';
import { StoreError } from '../../src/store/errors.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { NUMBERED_SENTINEL } from '../../src/store/migrations.ts';
import { migrations, numberedMigrations } from '../../src/store/postgres/migrations.ts';
import type { Store } from '../../src/store/store.ts';
import {
  admin,
  databaseUrl,
  dropSchemas,
  freshSchema,
  migratedUpTo,
  PG_URL,
  postgresAvailable,
  serverAddress,
  SKIP_REASON,
  TEST_DATABASE,
} from '../support/postgres.ts';
import { tcpProxy } from '../support/tcp_proxy.ts';
import { accessTokensContract } from './access_tokens_contract.ts';
import { sessionsContract } from './sessions_contract.ts';
import { auditContract } from './audit_contract.ts';
import { storeContract } from './contract.ts';
import { totpContract } from './totp_contract.ts';
import { labelsContract } from './labels_contract.ts';
import { collectionsContract } from './collections_contract.ts';
import { credentialsContract } from './credentials_contract.ts';
import { factsContract } from './facts_contract.ts';
import { approvalContract } from './approval_contract.ts';
import { groupsContract } from './groups_contract.ts';
import { runWordsContract } from './run_words_contract.ts';
import { ownersContract } from './owners_contract.ts';
import { scimContract } from './scim_contract.ts';

const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));

function put(store: Store, id: string, text: string, device = 'd') {
  const body = Buffer.from(text);
  return store.putRun({
    device,
    id,
    contentType: 'text/plain',
    privacy: 'full',
    size: body.length,
    uploadedAt: 2,
    body,
    sha256: createHash('sha256').update(body).digest('hex'),
  });
}

async function withDevice(store: Store, device = 'd') {
  await store.createEnrollToken({
    hash: `t-${device}`,
    owner: 'oidc:ann',
    createdBy: 'x',
    createdAt: 0,
    expiresAt: 1e13,
  });
  assert.ok(
    await store.enrollDevice({ tokenHash: `t-${device}`, now: 1, deviceId: device, name: 'n', credentialHash: device }),
  );
}

const isUnavailable = (err: unknown) => err instanceof StoreError && err.code === 'unavailable';

if (!available) {
  test(`PostgreSQL store (skipped: ${SKIP_REASON})`, { skip: true }, () => undefined);
} else {
  storeContract('postgres', () => openPostgresStore(PG_URL, { schema: freshSchema() }));
  accessTokensContract('postgres', () => openPostgresStore(PG_URL, { schema: freshSchema() }));
  sessionsContract('postgres', () => openPostgresStore(PG_URL, { schema: freshSchema() }));
  auditContract('postgres', () => openPostgresStore(PG_URL, { schema: freshSchema() }));
  collectionsContract('postgres', () => openPostgresStore(PG_URL, { schema: freshSchema() }));
  credentialsContract('postgres', () => openPostgresStore(PG_URL, { schema: freshSchema() }));
  factsContract('postgres', () => openPostgresStore(PG_URL, { schema: freshSchema() }));
  approvalContract('postgres', () => openPostgresStore(PG_URL, { schema: freshSchema() }));
  groupsContract('postgres', () => openPostgresStore(PG_URL, { schema: freshSchema() }));
  runWordsContract('postgres', () => openPostgresStore(PG_URL, { schema: freshSchema() }));
  // Lists read whole when the owners hold few rows, as SQLite does (the store merges them by default).
  groupsContract('postgres, few owners read whole', () =>
    openPostgresStore(PG_URL, { schema: freshSchema(), ownersScanRows: 5_000 }),
  );
  ownersContract('postgres', () => openPostgresStore(PG_URL, { schema: freshSchema() }));
  scimContract('postgres', () => openPostgresStore(PG_URL, { schema: freshSchema() }));
  totpContract('postgres', () => openPostgresStore(PG_URL, { schema: freshSchema() }));

  test('postgres: the audit feed waits for a record whose transaction is still open, then gives both in commit order', async () => {
    const schema = freshSchema();
    const store = await openPostgresStore(PG_URL, { schema });
    try {
      const row = (event: string) => ({
        at: 1,
        event,
        account: 'system',
        client: null,
        device: null,
        run: null,
        detail: '',
      });
      await store.appendAudit(row('first'));
      await admin(async (open) => {
        // A record appended by a transaction that has not committed yet takes seq 2 now...
        await open.query(`SET search_path TO "${schema}"`);
        await open.query('BEGIN');
        await open.query("INSERT INTO audit (at, event, detail) VALUES (1, 'slow', '')");
        // ...and one appended after it, by another instance, commits first with seq 3.
        await store.appendAudit(row('fast'));
        // `first` too may wait a moment for another suite's transaction; `fast` must wait for `slow`.
        const early = await store.auditAfter({ tx: 0, seq: 0 }, 10);
        assert.ok(
          early.every((f) => f.record.event === 'first'),
          'nothing past the open transaction: sending `fast` now would skip `slow` for ever',
        );
        await open.query('COMMIT');
      });
      // Any transaction of the cluster older than the commit (another suite's bulk insert) holds the
      // feed back a moment: up to a minute (audit_contract.ts, feedAfter).
      let feed = await store.auditAfter({ tx: 0, seq: 0 }, 10);
      for (let i = 0; i < 1200 && feed.length < 3; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        feed = await store.auditAfter({ tx: 0, seq: 0 }, 10);
      }
      assert.deepEqual(
        feed.map((f) => [f.record.event, f.position.seq]),
        [
          ['first', 1],
          ['slow', 2],
          ['fast', 3],
        ],
      );
      const after = await store.auditAfter(feed[0]?.position ?? { tx: 0, seq: 0 }, 10);
      assert.deepEqual(
        after.map((f) => f.record.event),
        ['slow', 'fast'],
      );
    } finally {
      await store.close();
    }
  });
  labelsContract('postgres', () => openPostgresStore(PG_URL, { schema: freshSchema() }));

  test('postgres: several instances migrating at once apply each migration once', async () => {
    const schema = freshSchema();
    const stores = await Promise.all(Array.from({ length: 4 }, () => openPostgresStore(PG_URL, { schema })));
    await stores[0]?.setSetting('x', '1');
    assert.equal(await stores[3]?.getSetting('x'), '1');
    await Promise.all(stores.map((s) => s.close()));
    const names = await admin(
      async (c) => (await c.query(`SELECT name FROM "${schema}".migrations ORDER BY applied_at, name`)).rows,
    );
    assert.deepEqual(names.map((r: { name: string }) => r.name).sort(), migrations.map((m) => m.name).sort());
    assert.equal(new Set(names.map((r: { name: string }) => r.name)).size, migrations.length, 'each once');
  });

  test('postgres: a database from a newer build is refused rather than half-used', async () => {
    const schema = freshSchema();
    await (await openPostgresStore(PG_URL, { schema })).close();
    await admin((c) => c.query(`INSERT INTO "${schema}".migrations (name, applied_at) VALUES ('from-the-future', 0)`));
    await assert.rejects(
      openPostgresStore(PG_URL, { schema }),
      /store: unable to open the PostgreSQL store: the store's schema is version \d+, newer than this build's \d+ \(it has migration "from-the-future"\)/,
    );
  });

  test('postgres: a store migrated by numbers is carried over to names, keeps its data, and is refused by numbering builds', async () => {
    const schema = freshSchema();
    await admin(async (c) => {
      await c.query(`CREATE SCHEMA "${schema}"`);
      await c.query(`SET search_path = "${schema}"`);
      await c.query('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)');
      for (const [i, name] of numberedMigrations.entries()) {
        await c.query(migrations.find((m) => m.name === name)?.sql ?? '');
        await c.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, 0)', [i + 1]);
      }
      await c.query(
        "INSERT INTO devices (id, name, owner, credential_hash, enrolled_at, revoked_at) VALUES ('d1', 'n', 'oidc:ann', 'c', 1, 5)",
      );
    });
    const store = await openPostgresStore(PG_URL, { schema });
    assert.deepEqual(await store.countsVisibleTo({ subject: 'x', admin: true }), {
      devices: 1,
      activeDevices: 0,
      runs: 0,
    });
    await store.close();
    const [names, versions] = await admin(async (c) => [
      (await c.query(`SELECT name FROM "${schema}".migrations`)).rows.map((r: { name: string }) => r.name).sort(),
      (await c.query(`SELECT version FROM "${schema}".schema_migrations`)).rows.map(
        (r: { version: number }) => r.version,
      ),
    ]);
    assert.deepEqual(names, migrations.map((m) => m.name).sort());
    assert.deepEqual(versions, [NUMBERED_SENTINEL]);
  });

  test('postgres: devices added and removed many to a statement are counted as one at a time would be', async () => {
    const schema = freshSchema();
    const store = await openPostgresStore(PG_URL, { schema });
    const counts = (subject: string, isAdmin = false) => store.countsVisibleTo({ subject, admin: isAdmin });
    await admin(async (c) => {
      await c.query(`SET search_path = "${schema}"`);
      // 300 devices of three owners in one statement, a tenth of them revoked as they are written.
      await c.query(`INSERT INTO devices (id, name, name_key, owner, credential_hash, enrolled_at, revoked_at)
        SELECT 'd' || i, 'n' || i, 'n' || i, 'oidc:o' || (i % 3), 'c' || i, i, CASE WHEN i % 10 = 0 THEN i END
        FROM generate_series(1, 300) AS i`);
      await c.query("UPDATE devices SET revoked_at = 1 WHERE owner = 'oidc:o1' AND revoked_at IS NULL AND seq % 2 = 0");
      await c.query("DELETE FROM devices WHERE owner = 'oidc:o2' AND seq % 4 = 0");
      await c.query(
        "INSERT INTO devices (id, name, owner, credential_hash, enrolled_at) VALUES ('x', 'x', 'oidc:o0', 'c', 1) ON CONFLICT DO NOTHING",
      );
      await c.query(
        "INSERT INTO devices (id, name, owner, credential_hash, enrolled_at) VALUES ('x', 'x', 'oidc:o0', 'c', 1) ON CONFLICT DO NOTHING",
      );
    });
    const recounted = await admin(async (c) => {
      const { rows } = await c.query<{ owner: string; devices: string; active: string }>(
        `SELECT owner, count(*) AS devices, count(*) FILTER (WHERE revoked_at IS NULL) AS active
         FROM "${schema}".devices GROUP BY owner ORDER BY owner`,
      );
      return rows;
    });
    assert.equal(recounted.length, 3);
    for (const row of recounted)
      assert.deepEqual(await counts(row.owner), {
        devices: Number(row.devices),
        activeDevices: Number(row.active),
        runs: 0,
      });
    const all = recounted.reduce((n, row) => n + Number(row.devices), 0);
    assert.equal((await counts('local:admin', true)).devices, all);
    await store.close();
  });

  test('postgres: one token, many connections at once: one device', async () => {
    const schema = freshSchema();
    const stores = await Promise.all(Array.from({ length: 3 }, () => openPostgresStore(PG_URL, { schema })));
    await stores[0]?.createEnrollToken({
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

  test('postgres: a token with 3 uses, 20 enrollments at once on two instances (two pools): 3 devices', async () => {
    const schema = freshSchema();
    const instances = await Promise.all([0, 1].map(() => openPostgresStore(PG_URL, { schema })));
    await instances[0]?.createEnrollToken({
      hash: 'line',
      owner: 'oidc:ann',
      createdBy: 'local:admin',
      createdAt: 0,
      expiresAt: 1e13,
      uses: 3,
    });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        instances[i % 2]?.enrollDevice({
          tokenHash: 'line',
          now: 1,
          deviceId: `l${i}`,
          name: 'n',
          credentialHash: `lc${i}`,
        }),
      ),
    );
    assert.equal(results.filter(Boolean).length, 3);
    const [row] = await admin(
      async (c) =>
        (
          await c.query(
            `SELECT uses_left, (SELECT count(*) FROM "${schema}".devices) AS devices FROM "${schema}".enroll_tokens`,
          )
        ).rows,
    );
    assert.deepEqual(row, { uses_left: 0, devices: '3' });
    await Promise.all(instances.map((s) => s.close()));
  });

  test('postgres: tokens minted before enroll-token-fields keep working: a used one has no use left', async () => {
    const schema = freshSchema();
    await admin(async (c) => {
      await migratedUpTo(c, schema, 'enroll-token-fields');
      await c.query(`INSERT INTO enroll_tokens (hash, owner, created_by, created_at, expires_at, used_at)
        VALUES ('used', 'oidc:ann', 'x', 0, 1e12, 5), ('unused', 'oidc:ann', 'x', 1, 1e12, NULL)`);
    });
    const store = await openPostgresStore(PG_URL, { schema });
    const enroll = (hash: string, id: string) =>
      store.enrollDevice({ tokenHash: hash, now: 10, deviceId: id, name: id, credentialHash: `c-${id}` });
    const listed = (await store.outstandingEnrollTokens({ limit: 10 }, 10)).items;
    assert.equal(listed.length, 1);
    assert.match(listed[0]?.publicId ?? '', /^t_[0-9a-f]{32}$/);
    assert.equal(await enroll('used', 'a'), undefined);
    assert.ok(await enroll('unused', 'b'));
    assert.equal(await enroll('unused', 'c'), undefined);
    await store.close();
  });

  test('postgres: the same run id at once from two connections: stored once; other bytes conflict', async () => {
    const schema = freshSchema();
    const [a, b] = await Promise.all([openPostgresStore(PG_URL, { schema }), openPostgresStore(PG_URL, { schema })]);
    await withDevice(a);
    assert.deepEqual((await Promise.all([put(a, 'same', 'x'), put(b, 'same', 'x')])).sort(), [
      'already-stored',
      'stored',
    ]);
    assert.deepEqual((await Promise.all([put(a, 'same', 'y1'), put(b, 'same', 'y2')])).sort(), [
      'conflict',
      'conflict',
    ]);
    assert.deepEqual(await Promise.all([put(a, 'split', 'z1'), put(b, 'split', 'z2')]).then((r) => r.sort()), [
      'conflict',
      'stored',
    ]);
    await a.close();
    await b.close();
  });

  // Regression: a client checked out of the pool had no 'error' listener, so a connection ended
  // by the server during a transaction emitted an unhandled 'error' and ended the process.
  test('postgres: a connection ended by the server during a transaction is a StoreError, not a crash', async () => {
    const schema = freshSchema();
    const store = await openPostgresStore(PG_URL, { schema });
    await withDevice(store);
    await admin(async (blocker) => {
      await blocker.query('BEGIN');
      const { rows } = await blocker.query('SELECT pg_backend_pid() AS pid');
      const blockerPid = (rows[0] as { pid: number }).pid;
      // Lock the device row so that the upload waits inside its transaction.
      await blocker.query(`SELECT 1 FROM "${schema}".devices WHERE id = 'd' FOR UPDATE`);
      // Settled at once, so its rejection is handled while the test still waits for the lock.
      const upload = put(store, 'r', 'x').then(
        () => undefined,
        (err: unknown) => err,
      );
      let waiting: number | undefined;
      for (let i = 0; i < 100 && waiting === undefined; i++) {
        await new Promise((r) => setTimeout(r, 20));
        waiting = (
          await admin((c) =>
            c.query('SELECT pid FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid))', [blockerPid]),
          )
        ).rows[0]?.pid as number | undefined;
      }
      assert.ok(waiting, 'the upload waits for the row lock');
      await admin((c) => c.query('SELECT pg_terminate_backend($1)', [waiting]));
      assert.ok(isUnavailable(await upload), 'a StoreError with code unavailable');
      await blocker.query('ROLLBACK');
    });
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(await put(store, 'r', 'x'), 'stored', 'the pool replaced the lost connection');
    await store.close();
  });

  test("postgres: two instances' self-test probes at the same moments never read each other's value", async () => {
    const schema = freshSchema();
    const one = await openPostgresStore(PG_URL, { schema });
    const two = await openPostgresStore(PG_URL, { schema });
    try {
      // Written then read by two statements, a probe failed whenever the other instance wrote between.
      const probes = Array.from({ length: 200 }, (_, i) => [one.probe(2 * i), two.probe(2 * i + 1)]).flat();
      const failed = (await Promise.allSettled(probes)).filter((p) => p.status === 'rejected');
      assert.equal(failed.length, 0, `${failed.length} of 400 probes failed`);
    } finally {
      await one.close();
      await two.close();
    }
  });

  test('postgres: a database that goes away is a StoreError; when it returns, the same store works again', async () => {
    const proxy = await tcpProxy(serverAddress());
    const store = await openPostgresStore(databaseUrl(TEST_DATABASE, proxy.port), { schema: freshSchema() });
    try {
      await store.setSetting('k', 'v');
      await proxy.down();
      await assert.rejects(store.getSetting('k'), isUnavailable);
      await assert.rejects(store.probe(1), isUnavailable);
      await assert.rejects(withDevice(store, 'gone'), isUnavailable);
      await proxy.up();
      assert.equal(await store.getSetting('k'), 'v');
      await store.probe(2);
    } finally {
      await store.close();
      await proxy.close();
    }
  });

  test('postgres: a database that stops answering is a StoreError after the query timeout', async () => {
    const proxy = await tcpProxy(serverAddress());
    const store = await openPostgresStore(databaseUrl(TEST_DATABASE, proxy.port), {
      schema: freshSchema(),
      queryTimeoutMs: 300,
    });
    try {
      await store.setSetting('k', 'v');
      proxy.silence();
      const started = Date.now();
      // The pooled connection is reused and its query times out; a new one would wait for the 5 s connect timeout.
      await assert.rejects(store.getSetting('k'), isUnavailable);
      assert.ok(Date.now() - started < 2_000, `failed after ${Date.now() - started} ms`);
      await proxy.down();
      await proxy.up();
      assert.equal(await store.getSetting('k'), 'v', 'the silent connections were discarded');
    } finally {
      await store.close();
      await proxy.close();
    }
  });
}
