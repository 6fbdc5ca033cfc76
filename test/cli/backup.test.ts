// Backup and restore (issue 16): `paddock backup FILE` copies the SQLite store while a real server
// takes uploads, and the copy is whole; `paddock restore FILE` is refused while a server holds the
// store and brings the copy back once it is stopped (or killed); for PostgreSQL, a pg_dump restored
// into a new database is served by a fresh `paddock serve`.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { consoleClient } from '../multi/client.ts';
import { databaseUrl, dropDatabase, freshDatabase, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';
import { type PaddockProcess, paddock } from '../support/process.ts';
import { workspaces } from '../support/workspace.ts';

const PASSWORD = 'a backup test password';
const { signIn, device, upload } = consoleClient(() => PASSWORD);
const workspace = workspaces('paddock-backup-');

async function serve(env: Record<string, string>): Promise<{ p: PaddockProcess; base: string }> {
  const p = paddock(['serve'], {
    PADDOCK_LISTEN: '127.0.0.1:0',
    PADDOCK_BASE_URL: 'http://127.0.0.1:8080',
    PADDOCK_ADMIN_PASSWORD: PASSWORD,
    ...env,
  });
  return { p, base: (await p.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/))[1] ?? '' };
}

async function command(args: string[], env: Record<string, string>) {
  const p = paddock(args, env);
  const code = await p.exited;
  return { code, ...p.output() };
}

test('backup while uploads go on: the copy opens, passes its integrity check and holds every acknowledged run', async () => {
  const dir = await workspace();
  const env = { PADDOCK_DATA_DIR: join(dir, 'data') };
  const { p, base } = await serve(env);
  try {
    const { device: id, credential } = await device(base);
    for (let i = 0; i < 30; i++) assert.equal((await upload(base, credential, `before-${i}`)).status, 201);
    // Uploads keep coming while the backup runs.
    let writing = true;
    let during = 0;
    const load = (async () => {
      for (let i = 0; writing; i++) if ((await upload(base, credential, `during-${i}`)).status === 201) during++;
    })();
    const file = join(dir, 'paddock.backup');
    const made = await command(['backup', file], env);
    writing = false;
    await load;
    assert.equal(made.code, 0, made.stderr);
    assert.match(made.stdout, /^paddock: wrote .*paddock\.backup \(\d+ bytes, schema version \d+\)\n$/);
    assert.ok(during > 0, 'uploads were stored while the backup ran');
    assert.equal((await stat(file)).mode & 0o777, 0o600, 'the copy is as private as the store');
    assert.deepEqual(
      (await readdir(dir)).filter((f) => f.includes('partial')),
      [],
      'no partial file left',
    );
    const copy = new DatabaseSync(file, { readOnly: true });
    try {
      assert.deepEqual(
        copy
          .prepare('PRAGMA integrity_check')
          .all()
          .map((r) => ({ ...r })),
        [{ integrity_check: 'ok' }],
      );
      const runs = copy.prepare('SELECT id FROM runs WHERE device_id = ?').all(id) as Array<{ id: string }>;
      const ids = new Set(runs.map((r) => r.id));
      for (let i = 0; i < 30; i++) assert.ok(ids.has(`before-${i}`), `before-${i} is in the copy`);
    } finally {
      copy.close();
    }
    const again = await command(['backup', file], env);
    assert.deepEqual([again.code, again.stderr], [1, `paddock backup: ${file} exists; choose a new file name\n`]);
  } finally {
    p.child.kill('SIGTERM');
    await p.exited;
  }
});

test('restore: refused while a server holds the store; after a stop, and after a kill, it brings the copy back', async () => {
  const dir = await workspace();
  const env = { PADDOCK_DATA_DIR: join(dir, 'data') };
  let server = await serve(env);
  const { device: id, credential } = await device(server.base);
  assert.equal((await upload(server.base, credential, 'kept')).status, 201);
  const file = join(dir, 'paddock.backup');
  assert.equal((await command(['backup', file], env)).code, 0);
  assert.equal((await upload(server.base, credential, 'after-the-backup')).status, 201);

  const refused = await command(['restore', file], env);
  assert.equal(refused.code, 1);
  assert.equal(
    refused.stderr,
    `paddock restore: a server (pid ${server.p.child.pid}) holds the store in ${env.PADDOCK_DATA_DIR}; stop it, then restore\n`,
  );
  assert.equal((await upload(server.base, credential, 'still-served')).status, 201, 'nothing was changed');

  server.p.child.kill('SIGTERM');
  assert.equal(await server.p.exited, 0);
  const restored = await command(['restore', file], env);
  assert.equal(restored.code, 0, restored.stderr);
  assert.match(restored.stdout, /restored .* the previous database is .*paddock\.db\.before-restore-/);

  server = await serve(env);
  const { cookie } = await signIn(server.base);
  const run = (name: string) => fetch(`${server.base}/runs/${id}/${name}`, { headers: { cookie } });
  assert.equal((await run('kept')).status, 200, 'the run from before the backup is back');
  assert.equal((await run('after-the-backup')).status, 404, 'and what came later is not');
  assert.equal((await upload(server.base, credential, 'after-the-restore')).status, 201, 'the credential too');

  // A server killed leaves its pid file behind; it names a process that is gone, so restore goes on.
  server.p.child.kill('SIGKILL');
  await server.p.exited;
  const again = await command(['restore', file], env);
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(
    (await readdir(env.PADDOCK_DATA_DIR)).filter((f) => /-(wal|shm)$/.test(f)),
    [],
    'no log is left to be replayed into the restored database',
  );
  // The database it replaced is kept whole: its log, unchecked at the kill, was folded in.
  const kept = /the previous database is (\S+)\n/.exec(again.stdout)?.[1] ?? '';
  const old = new DatabaseSync(kept, { readOnly: true });
  try {
    assert.ok(
      old.prepare("SELECT 1 FROM runs WHERE id = 'after-the-restore'").get(),
      'the last upload is in the kept file',
    );
  } finally {
    old.close();
  }
});

test('restore refuses what is not a usable store, and backup sends PostgreSQL to pg_dump', async () => {
  const dir = await workspace();
  const env = { PADDOCK_DATA_DIR: join(dir, 'data') };
  const junk = join(dir, 'junk.db');
  await writeFile(junk, 'not a database at all, but long enough to look like one '.repeat(100));
  const notDb = await command(['restore', junk], env);
  assert.equal(notDb.code, 1);
  assert.match(notDb.stderr, /^paddock restore: .*junk\.db is not a SQLite database/);

  const empty = join(dir, 'empty.db');
  new DatabaseSync(empty).close();
  assert.match((await command(['restore', empty], env)).stderr, /holds no Paddock store/);

  // A backup made by a newer Paddock: its schema has a migration this build does not know.
  const newer = join(dir, 'newer.db');
  const { p, base } = await serve({ PADDOCK_DATA_DIR: join(dir, 'newer') });
  await device(base);
  p.child.kill('SIGTERM');
  await p.exited;
  assert.equal((await command(['backup', newer], { PADDOCK_DATA_DIR: join(dir, 'newer') })).code, 0);
  const db = new DatabaseSync(newer);
  db.prepare("INSERT INTO migrations (name, applied_at) VALUES ('from-the-future', 0)").run();
  db.close();
  const future = await command(['restore', newer], env);
  assert.equal(future.code, 1);
  assert.match(
    future.stderr,
    /schema is version \d+, newer than this build's \d+ \(it has migration "from-the-future"\)/,
  );
  assert.deepEqual(await readdir(dir).then((f) => f.includes('data')), false, 'nothing was put in place');

  const pg = await command(['backup', join(dir, 'x')], {
    ...env,
    PADDOCK_DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test',
  });
  assert.deepEqual([pg.code, pg.stderr.includes('pg_dump')], [2, true]);
  const usage = await command(['backup'], env);
  assert.equal(usage.code, 2);
});

const available = await postgresAvailable();

test(
  'PostgreSQL: a pg_dump restored into a new database is served by a fresh paddock serve',
  { skip: !available && SKIP_REASON },
  async () => {
    const dir = await workspace();
    const [first, second] = [await freshDatabase(), await freshDatabase()];
    try {
      const { p, base } = await serve({ PADDOCK_DATA_DIR: join(dir, 'a'), PADDOCK_DATABASE_URL: databaseUrl(first) });
      const { device: id, credential } = await device(base);
      assert.equal((await upload(base, credential, 'dumped')).status, 201);
      const { cookie } = await signIn(base);
      const dump = join(dir, 'paddock.dump');
      execFileSync('pg_dump', ['--format=custom', `--file=${dump}`, databaseUrl(first)]);
      p.child.kill('SIGTERM');
      await p.exited;
      execFileSync('pg_restore', ['--no-owner', `--dbname=${databaseUrl(second)}`, dump]);
      // The dump holds the secrets sealed: the new server is given the seal key file they were sealed with.
      const fresh = await serve({
        PADDOCK_DATA_DIR: join(dir, 'b'),
        PADDOCK_DATABASE_URL: databaseUrl(second),
        PADDOCK_SEAL_KEY_FILE: join(dir, 'a', 'seal.key'),
      });
      try {
        const run = await fetch(`${fresh.base}/runs/${id}/dumped`, { headers: { cookie } });
        assert.equal(run.status, 200, 'the session key and the run came with the dump');
        assert.equal((await upload(fresh.base, credential, 'after')).status, 201, 'and the credential');
      } finally {
        fresh.p.child.kill('SIGTERM');
        await fresh.p.exited;
      }
    } finally {
      await dropDatabase(first);
      await dropDatabase(second);
    }
  },
);
