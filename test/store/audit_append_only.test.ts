// The audit trail is append-only in the schema itself, not only in the code: an UPDATE is refused
// on both backends by a trigger (the 'audit' migrations), while the prune's DELETE still works.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, test } from 'node:test';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { admin, dropSchemas, freshSchema, PG_URL, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';

const entry = {
  at: 1000,
  event: 'device.revoked',
  account: 'local:admin',
  client: null,
  device: 'd1',
  run: null,
  detail: '',
};

test('sqlite: an UPDATE of an audit record is refused; the prune deletes', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-audit-'));
  try {
    const store = openSqliteStore(dir);
    await store.appendAudit(entry);
    await store.appendAudit({ ...entry, at: 2000 });
    const db = new DatabaseSync(join(dir, 'paddock.db'));
    assert.throws(() => db.exec("UPDATE audit SET account = 'someone else'"), /audit records are append-only/);
    assert.throws(() => db.exec('UPDATE audit SET at = 0 WHERE seq = 1'), /audit records are append-only/);
    db.close();
    assert.deepEqual(
      (await store.auditPage({}, { limit: 5 })).items.map((r) => [r.account, r.at]),
      [
        ['local:admin', 2000],
        ['local:admin', 1000],
      ],
    );
    assert.equal(await store.pruneAudit(1500, 10), 1);
    await store.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));

test(
  'postgres: an UPDATE of an audit record is refused; the prune deletes',
  { skip: !available && SKIP_REASON },
  async () => {
    const schema = freshSchema();
    const store = await openPostgresStore(PG_URL, { schema });
    try {
      await store.appendAudit(entry);
      await admin(async (c) => {
        await assert.rejects(
          c.query(`UPDATE "${schema}".audit SET account = 'someone else'`),
          /audit records are append-only/,
        );
      });
      assert.equal((await store.auditPage({}, { limit: 5 })).items[0]?.account, 'local:admin');
      assert.equal(await store.pruneAudit(1500, 10), 1);
    } finally {
      await store.close();
    }
  },
);
