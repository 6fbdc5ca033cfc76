// The 'retention' migration on a store that already holds runs, on both backends: the per-level
// byte counters start from what is stored, and later uploads and deletions keep them; on SQLite a
// retention batch removes a chunked run's chunks with it.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, test } from 'node:test';
import { migrations as pgMigrations } from '../../src/store/postgres/migrations.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { CHUNK_SIZE } from '../../src/store/runs.ts';
import { migrations as sqliteMigrations } from '../../src/store/sqlite/migrations.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import type { Store } from '../../src/store/store.ts';
import { admin, dropSchemas, freshSchema, PG_URL, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';

const ADMIN = { subject: 'local:admin', admin: true };
const ANN = { subject: 'oidc:ann', admin: false };

/** Two owners' devices and runs, as rows written before the migration: ann 10 full + 20 minimal, bob 5 full + 7 redacted. */
const BEFORE = [
  "INSERT INTO devices (id, name, owner, credential_hash, enrolled_at) VALUES ('da', 'a', 'oidc:ann', 'ca', 1), ('db', 'b', 'oidc:bob', 'cb', 1)",
  `INSERT INTO runs (device_id, id, owner, content_type, privacy, size, sha256, uploaded_at, body) VALUES
    ('da', 'r1', 'oidc:ann', 't', 'full', 10, 's', 100, ''),
    ('da', 'r2', 'oidc:ann', 't', 'minimal', 20, 's', 200, ''),
    ('db', 'r3', 'oidc:bob', 't', 'full', 5, 's', 300, ''),
    ('db', 'r4', 'oidc:bob', 't', 'redacted', 7, 's', 400, '')`,
];

const upTo = <M extends { name: string }>(list: readonly M[]) =>
  list.slice(
    0,
    list.findIndex((m) => m.name === 'retention'),
  );

async function afterMigration(store: Store, chunks: () => Promise<number>) {
  assert.deepEqual(await store.storedBytesByLevel(ADMIN), { full: 15, redacted: 7, minimal: 20 });
  assert.deepEqual(await store.storedBytesByLevel(ANN), { full: 10, redacted: 0, minimal: 20 });
  assert.equal((await store.countsVisibleTo(ADMIN)).runs, 4, 'the run counts are untouched');
  // The 'runs-by-level' migration after it counts the runs already stored per level too.
  assert.deepEqual(await store.storedRunsByLevel(ADMIN), { full: 2, redacted: 1, minimal: 1 });
  assert.deepEqual(await store.storedRunsByLevel(ANN), { full: 1, redacted: 0, minimal: 1 });
  const body = new Uint8Array(CHUNK_SIZE + 1).fill(1);
  const sha256 = createHash('sha256').update(body).digest('hex');
  const run = { device: 'da', contentType: 't', size: body.length, body, sha256 };
  assert.equal(await store.putRun({ ...run, id: 'big', privacy: 'redacted', uploadedAt: 500 }), 'stored');
  assert.deepEqual(await store.storedBytesByLevel(ANN), { full: 10, redacted: CHUNK_SIZE + 1, minimal: 20 });
  assert.equal(await chunks(), 2);
  assert.deepEqual(await store.deleteExpiredRuns('redacted', 1000, 10), { runs: 2, bytes: 7 + CHUNK_SIZE + 1 });
  assert.deepEqual(await store.deleteExpiredRuns('full', 150, 10), { runs: 1, bytes: 10 });
  assert.deepEqual(await store.storedBytesByLevel(ADMIN), { full: 5, redacted: 0, minimal: 20 });
  assert.equal((await store.countsVisibleTo(ADMIN)).runs, 2);
  assert.deepEqual(await store.storedRunsByLevel(ADMIN), { full: 1, redacted: 0, minimal: 1 });
  assert.equal(await chunks(), 0, 'the chunked run went with its chunks');
}

test('sqlite: the retention migration counts the bytes already stored; a batch takes chunks with their run', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-store-'));
  try {
    const db = new DatabaseSync(join(dir, 'paddock.db'));
    db.exec('CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL) STRICT');
    for (const m of upTo(sqliteMigrations)) {
      db.exec(m.sql);
      db.prepare('INSERT INTO migrations (name, applied_at) VALUES (?, 0)').run(m.name);
    }
    for (const sql of BEFORE) db.exec(sql.replaceAll("''", "X''"));
    db.close();
    const store = openSqliteStore(dir);
    const chunks = async () => {
      const probe = new DatabaseSync(join(dir, 'paddock.db'), { readOnly: true });
      const n = (probe.prepare('SELECT count(*) AS n FROM run_chunks').get() as { n: number }).n;
      probe.close();
      return n;
    };
    await afterMigration(store, chunks);
    await store.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));

test(
  'postgres: the retention migration counts the bytes already stored',
  { skip: !available && SKIP_REASON },
  async () => {
    const schema = freshSchema();
    await admin(async (c) => {
      await c.query(`CREATE SCHEMA "${schema}"`);
      await c.query(`SET search_path = "${schema}"`);
      await c.query('CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)');
      for (const m of upTo(pgMigrations)) {
        await c.query(m.sql);
        await c.query('INSERT INTO migrations (name, applied_at) VALUES ($1, 0)', [m.name]);
      }
      for (const sql of BEFORE) await c.query(sql.replaceAll("''", "'\\x'"));
    });
    const store = await openPostgresStore(PG_URL, { schema });
    try {
      await afterMigration(store, async () =>
        Number((await admin((c) => c.query(`SELECT count(*) AS n FROM "${schema}".run_chunks`))).rows[0]?.n),
      );
    } finally {
      await store.close();
    }
  },
);
