import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { NUMBERED_SENTINEL } from '../../src/store/migrations.ts';
import { migrations, numberedMigrations } from '../../src/store/sqlite/migrations.ts';
import { openDb } from '../../src/store/sqlite/db.ts';
import { RESERVE_BYTES } from '../../src/store/sqlite/reserve.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { accessTokensContract } from './access_tokens_contract.ts';
import { auditContract } from './audit_contract.ts';
import { storeContract } from './contract.ts';
import { totpContract } from './totp_contract.ts';
import { sessionsContract } from './sessions_contract.ts';
import { labelsContract } from './labels_contract.ts';
import { collectionsContract } from './collections_contract.ts';
import { credentialsContract } from './credentials_contract.ts';
import { factsContract } from './facts_contract.ts';
import { approvalContract } from './approval_contract.ts';
import { groupsContract } from './groups_contract.ts';
import { runWordsContract } from './run_words_contract.ts';
import { ownersContract } from './owners_contract.ts';
import { scimContract } from './scim_contract.ts';

storeContract('sqlite', async () => openSqliteStore(':memory:'));
runWordsContract('sqlite', async () => openSqliteStore(':memory:'));
accessTokensContract('sqlite', async () => openSqliteStore(':memory:'));
auditContract('sqlite', async () => openSqliteStore(':memory:'));
totpContract('sqlite', async () => openSqliteStore(':memory:'));
sessionsContract('sqlite', async () => openSqliteStore(':memory:'));
labelsContract('sqlite', async () => openSqliteStore(':memory:'));
collectionsContract('sqlite', async () => openSqliteStore(':memory:'));
credentialsContract('sqlite', async () => openSqliteStore(':memory:'));
factsContract('sqlite', async () => openSqliteStore(':memory:'));
approvalContract('sqlite', async () => openSqliteStore(':memory:'));
groupsContract('sqlite', async () => openSqliteStore(':memory:'));
// Every account's lists merged by owner (sql.ts byOwners), as past OWNERS_SCAN_ROWS.
groupsContract('sqlite, owners merged', async () => openSqliteStore(':memory:', { ownersScanRows: 0 }));
ownersContract('sqlite', async () => openSqliteStore(':memory:'));
scimContract('sqlite', async () => openSqliteStore(':memory:'));

test('sqlite: the data directory is created 0700, WAL is on, migrations are recorded and not rerun', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-store-'));
  try {
    const dataDir = join(dir, 'data');
    const store = openSqliteStore(dataDir);
    await store.setSetting('x', '1');
    await store.close();
    assert.equal(((await stat(dataDir)).mode & 0o777).toString(8), '700');
    const reopened = openSqliteStore(dataDir);
    assert.equal(await reopened.getSetting('x'), '1');
    await reopened.close();
    const db = new DatabaseSync(join(dataDir, 'paddock.db'));
    assert.equal((db.prepare('PRAGMA journal_mode').get() as { journal_mode: string }).journal_mode, 'wal');
    assert.deepEqual(
      db
        .prepare('SELECT name FROM migrations ORDER BY rowid')
        .all()
        .map((r) => (r as { name: string }).name),
      migrations.map((m) => m.name),
    );
    db.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('sqlite: the database and its WAL files are 0600, also over a wider existing database; an existing directory keeps its mode', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-store-'));
  const mode = async (path: string) => ((await stat(path)).mode & 0o7777).toString(8);
  try {
    const fresh = join(dir, 'fresh');
    const store = openSqliteStore(fresh);
    await store.setSetting('x', '1');
    for (const file of ['paddock.db', 'paddock.db-wal', 'paddock.db-shm'])
      assert.equal(await mode(join(fresh, file)), '600', file);
    await store.close();

    const wide = join(dir, 'wide');
    await mkdir(wide, { mode: 0o1777 });
    await chmod(wide, 0o1777);
    // A database another tool made there, readable by all (an empty file is refused: see damaged_store.test.ts).
    const earlier = new DatabaseSync(join(wide, 'paddock.db'));
    earlier.exec('CREATE TABLE earlier (a INTEGER)');
    earlier.close();
    await chmod(join(wide, 'paddock.db'), 0o644);
    const reopened = openSqliteStore(wide);
    await reopened.setSetting('x', '1');
    assert.equal(await mode(wide), '1777', 'a shared directory (here sticky and world-writable) is not changed');
    assert.equal(await mode(join(wide, 'paddock.db')), '600');
    assert.equal(await mode(join(wide, 'paddock.db-wal')), '600');
    await reopened.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('sqlite: a database from a newer build is refused rather than half-used', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-store-'));
  try {
    (await Promise.resolve(openSqliteStore(dir))).close();
    const db = new DatabaseSync(join(dir, 'paddock.db'));
    db.prepare('INSERT INTO migrations (name, applied_at) VALUES (?, 0)').run('from-the-future');
    db.close();
    assert.throws(
      () => openSqliteStore(dir),
      (err: Error) =>
        /store: unable to open/.test(err.message) &&
        /schema is version \d+, newer than this build.s \d+ \(it has migration "from-the-future"\)/.test(
          String((err.cause as Error).message),
        ),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('sqlite: a store migrated by numbers is carried over to names, keeps its data, and is refused by numbering builds', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-store-'));
  try {
    // The store as a build that numbered its migrations left it: schema_migrations 1..7.
    const old = new DatabaseSync(join(dir, 'paddock.db'));
    old.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL) STRICT');
    numberedMigrations.forEach((name, i) => {
      old.exec(migrations.find((m) => m.name === name)?.sql ?? '');
      old.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, 0)').run(i + 1);
    });
    old.exec(
      "INSERT INTO devices (id, name, owner, credential_hash, enrolled_at) VALUES ('d1', 'n', 'oidc:ann', 'c', 1)",
    );
    old.exec(
      "INSERT INTO runs (device_id, id, owner, content_type, privacy, size, sha256, uploaded_at, body) VALUES ('d1', 'r', 'oidc:ann', 't', 'full', 1, 's', 2, x'41')",
    );
    old.close();
    const store = openSqliteStore(dir);
    assert.deepEqual(await store.countsVisibleTo({ subject: 'oidc:ann', admin: false }), {
      devices: 1,
      activeDevices: 1,
      runs: 1,
    });
    await store.close();
    const db = new DatabaseSync(join(dir, 'paddock.db'));
    assert.deepEqual(
      db
        .prepare('SELECT name FROM migrations ORDER BY rowid')
        .all()
        .map((r) => (r as { name: string }).name),
      migrations.map((m) => m.name),
    );
    // What a numbering build reads: a version past every one it knows, so it refuses the store.
    assert.deepEqual(
      { ...db.prepare('SELECT max(version) AS v FROM schema_migrations').get() },
      { v: NUMBERED_SENTINEL },
    );
    db.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('sqlite: a file that is not a database is refused with a store error', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-store-'));
  try {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(dir, 'paddock.db'), 'this is not sqlite, just text '.repeat(100));
    assert.throws(() => openSqliteStore(dir), /store: unable to open/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('sqlite: uploads written together (one transaction) are undone one by one: a failing one loses no other', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-store-'));
  const store = openSqliteStore(dir);
  try {
    await store.createEnrollToken({
      hash: 't',
      owner: 'oidc:ann',
      createdBy: 'local:admin',
      createdAt: 1,
      expiresAt: 9e12,
    });
    await store.enrollDevice({ tokenHash: 't', now: 2, deviceId: 'd1', name: 'n', credentialHash: 'c' });
    // The third chunk of any large run fails, after its row and two chunks were written.
    const db = new DatabaseSync(join(dir, 'paddock.db'));
    db.exec(
      "CREATE TRIGGER fail_third_chunk BEFORE INSERT ON run_chunks WHEN NEW.n = 2 BEGIN SELECT RAISE(ABORT, 'boom'); END",
    );
    db.close();
    const put = (id: string, body: Uint8Array) =>
      store.putRun({
        device: 'd1',
        id,
        contentType: 'text/plain',
        privacy: 'full',
        size: body.byteLength,
        uploadedAt: 5,
        body,
        sha256: id,
      });
    const small = new Uint8Array([65]);
    const large = new Uint8Array(3 * 256 * 1024);
    const settled = await Promise.allSettled([put('before', small), put('large', large), put('after', small)]);
    assert.deepEqual(
      settled.map((s) => s.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    const viewer = { subject: 'oidc:ann', admin: false };
    assert.ok(await store.runVisibleTo(viewer, 'd1', 'before'));
    assert.equal(await store.runVisibleTo(viewer, 'd1', 'large'), undefined);
    assert.ok(await store.runVisibleTo(viewer, 'd1', 'after'));
    assert.equal((await store.countsVisibleTo(viewer)).runs, 2);
    const check = new DatabaseSync(join(dir, 'paddock.db'));
    assert.deepEqual({ ...check.prepare('SELECT count(*) AS n FROM run_chunks').get() }, { n: 0 }, 'no orphan chunks');
    check.close();
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('sqlite: a write that must go through on a full disk releases the reserve once and is tried again', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-store-'));
  try {
    const db = openDb(dir);
    const reserve = join(dir, 'paddock.reserve');
    assert.equal((await stat(reserve)).size, RESERVE_BYTES, 'the reserve takes its room at open');
    const full = () => Object.assign(new Error('database or disk is full'), { errcode: 13 });
    let attempts = 0;
    assert.equal(
      db.critical(() => {
        if (attempts++ === 0) throw full();
        return 'written';
      }),
      'written',
    );
    assert.equal(attempts, 2);
    await assert.rejects(stat(reserve), { code: 'ENOENT' }, 'its room was given to the write');
    // Nothing left in reserve: the next full disk is the caller's error, as for any other write.
    assert.throws(
      () =>
        db.critical(() => {
          throw full();
        }),
      /disk is full/,
    );
    assert.throws(
      () =>
        db.critical(() => {
          throw new Error('other');
        }),
      /other/,
    );
    db.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('sqlite: tokens minted before enroll-token-fields keep working: a used one has no use left, an unused one has one', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-store-'));
  try {
    const db = new DatabaseSync(join(dir, 'paddock.db'));
    db.exec('CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL) STRICT');
    for (const m of migrations.slice(
      0,
      migrations.findIndex((m) => m.name === 'enroll-token-fields'),
    )) {
      db.exec(m.sql);
      db.prepare('INSERT INTO migrations (name, applied_at) VALUES (?, 0)').run(m.name);
    }
    const insert = db.prepare(
      'INSERT INTO enroll_tokens (hash, owner, created_by, created_at, expires_at, used_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    insert.run('used', 'oidc:ann', 'local:admin', 0, 1e12, 5);
    insert.run('unused', 'oidc:ann', 'local:admin', 1, 1e12, null);
    insert.run('unused-2', 'oidc:ann', 'local:admin', 2, 1e12, null);
    db.close();
    const store = openSqliteStore(dir);
    const enroll = (hash: string, id: string) =>
      store.enrollDevice({ tokenHash: hash, now: 10, deviceId: id, name: id, credentialHash: `c-${id}` });
    const listed = (await store.outstandingEnrollTokens({ limit: 10 }, 10)).items;
    assert.equal(listed.length, 2, 'the unused ones are outstanding');
    assert.notEqual(listed[0]?.publicId, listed[1]?.publicId, 'each has its own public id');
    assert.ok(listed.every((t) => /^t_[0-9a-f]{24}$/.test(t.publicId) && t.uses === 1 && t.usesLeft === 1));
    assert.equal(await enroll('used', 'a'), undefined, 'used before the migration: no use left');
    assert.ok(await enroll('unused', 'b'));
    assert.equal(await enroll('unused', 'c'), undefined, 'single use');
    await store.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
