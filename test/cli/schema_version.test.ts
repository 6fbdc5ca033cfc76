// Upgrades (issue 16): the store records its schema version (the migrations applied to it), and a
// Paddock older than the store refuses it with exit 2 and one clear line, changing nothing: on
// SQLite and on PostgreSQL, with the real `paddock serve`.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { migrations as pgMigrations } from '../../src/store/postgres/migrations.ts';
import { migrations } from '../../src/store/sqlite/migrations.ts';
import {
  admin,
  databaseUrl,
  dropDatabase,
  freshDatabase,
  postgresAvailable,
  SKIP_REASON,
} from '../support/postgres.ts';
import { paddock, serveOnce } from '../support/process.ts';

async function refused(env: Record<string, string>) {
  const p = paddock(['serve'], { PADDOCK_LISTEN: '127.0.0.1:0', ...env });
  const code = await p.exited;
  return { code, ...p.output() };
}

const known = migrations.length;

test('SQLite: a store migrated by a newer Paddock is refused with exit 2, one line, and left as it was', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-schema-'));
  try {
    const env = { PADDOCK_DATA_DIR: join(dir, 'data') };
    assert.equal(await serveOnce(env), 0);
    const file = join(dir, 'data', 'paddock.db');
    const db = new DatabaseSync(file);
    assert.equal((db.prepare('SELECT count(*) AS n FROM migrations').get() as { n: number }).n, known);
    db.prepare("INSERT INTO migrations (name, applied_at) VALUES ('from-the-future', 0)").run();
    db.close();
    const before = createHash('sha256')
      .update(await readFile(file))
      .digest('hex');
    const r = await refused(env);
    assert.equal(r.code, 2);
    assert.equal(
      r.stderr,
      `paddock: PADDOCK_DATA_DIR: cannot use ${env.PADDOCK_DATA_DIR}: the store's schema is version ${known + 1}, newer than this build's ${known} (it has migration "from-the-future"); run the newer Paddock or restore a backup made before the upgrade\n`,
    );
    assert.equal(r.stdout, '', 'nothing was served or logged as started');
    assert.equal(
      createHash('sha256')
        .update(await readFile(file))
        .digest('hex'),
      before,
      'the store is unchanged',
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

const available = await postgresAvailable();

test(
  'PostgreSQL: a database migrated by a newer Paddock is refused with exit 2 and one line',
  { skip: !available && SKIP_REASON },
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'paddock-schema-'));
    const name = await freshDatabase();
    try {
      const env = { PADDOCK_DATA_DIR: join(dir, 'data'), PADDOCK_DATABASE_URL: databaseUrl(name) };
      assert.equal(await serveOnce(env), 0);
      await admin((c) => c.query("INSERT INTO migrations (name, applied_at) VALUES ('from-the-future', 0)"), name);
      const r = await refused(env);
      assert.equal(r.code, 2);
      const n = pgMigrations.length;
      assert.equal(
        r.stderr,
        `paddock: PADDOCK_DATABASE_URL: cannot use the database: the store's schema is version ${n + 1}, newer than this build's ${n} (it has migration "from-the-future"); run the newer Paddock or restore a backup made before the upgrade\n`,
      );
      const rows = await admin((c) => c.query('SELECT count(*)::int AS n FROM migrations'), name);
      assert.equal((rows.rows[0] as { n: number }).n, pgMigrations.length + 1, 'nothing was migrated');
    } finally {
      await dropDatabase(name);
      await rm(dir, { recursive: true, force: true });
    }
  },
);
