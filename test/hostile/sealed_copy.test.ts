// The attacker's view of a database copied without its seal key (docs/contract.md section 23): a
// backup, a replica or a dump holds no usable secret, whatever is decoded from it, and a server
// started on it stops (exit 2) instead of minting secrets of its own; the real server, meanwhile,
// keeps serving. On PostgreSQL, an instance started on the shared database without the file stops
// the same way and changes nothing the running instance uses.
import assert from 'node:assert/strict';
import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { backup, DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { isSealed, SECRET_SETTINGS } from '../../src/store/sealed_settings.ts';
import { live } from '../support/live.ts';
import {
  admin,
  databaseUrl,
  dropDatabase,
  freshDatabase,
  postgresAvailable,
  sharedDatabaseEnv,
  SKIP_REASON,
} from '../support/postgres.ts';
import { paddock } from '../support/process.ts';
import { workspaces } from '../support/workspace.ts';

const available = await postgresAvailable();
const workspace = workspaces('paddock-thief-');

/** Every way a thief would try to read a value: as it is, and decoded from base64 and base64url. */
const readings = (value: string) => [
  value,
  ...['base64', 'base64url'].flatMap((enc) =>
    [value, value.replace(/^sealed:/, '')].map((v) => Buffer.from(v, enc as BufferEncoding).toString('latin1')),
  ),
];

test('a database copied without its seal key: no secret in it, a server on it stops, the real one serves on', async () => {
  const l = await live();
  try {
    const { cookie } = await l.signIn();
    await l.enroll('lab-1');
    const dir = await workspace();
    const stolen = join(dir, 'data');
    await mkdir(stolen, { mode: 0o700 });
    // An online copy, as `paddock backup` or a file-level snapshot makes one.
    const source = new DatabaseSync(join(l.dataDir, 'paddock.db'), { readOnly: true });
    await backup(source, join(stolen, 'paddock.db'));
    source.close();

    const copy = new DatabaseSync(join(stolen, 'paddock.db'), { readOnly: true });
    const rows = copy.prepare('SELECT name, value FROM settings').all() as Array<{ name: string; value: string }>;
    copy.close();
    for (const name of Object.values(SECRET_SETTINGS)) {
      const row = rows.find((r) => r.name === name);
      if (row) assert.ok(isSealed(row.value), `${name} is sealed`);
    }
    for (const { name, value } of rows)
      for (const reading of readings(value))
        assert.ok(!/PRIVATE KEY|BEGIN /.test(reading), `${name}: no PEM in the copy, however decoded`);

    const before = JSON.stringify(rows);
    for (const verb of ['serve', 'rotate-control-key', 'reset-admin-totp']) {
      const p = paddock([verb], { PADDOCK_LISTEN: '127.0.0.1:0', PADDOCK_DATA_DIR: stolen });
      assert.equal(await p.exited, 2, verb);
      const lines = p.output().stderr.split('\n').filter(Boolean);
      assert.equal(lines.length, 1, verb);
      assert.match(lines[0] ?? '', /^paddock: PADDOCK_SEAL_KEY_FILE: .*seal\.key does not exist/);
    }
    await assert.rejects(stat(join(stolen, 'seal.key')), /ENOENT/);
    const later = new DatabaseSync(join(stolen, 'paddock.db'), { readOnly: true });
    assert.equal(JSON.stringify(later.prepare('SELECT name, value FROM settings').all()), before, 'nothing minted');
    later.close();

    // The real server: the session holds, a device still enrolls, nothing was lost.
    assert.equal((await fetch(`${l.url}/devices`, { headers: { cookie }, redirect: 'manual' })).status, 200);
    await l.enroll('lab-2');
  } finally {
    await l.close();
  }
});

test(
  'postgres: an instance started on the shared database without the seal key stops; the other serves on',
  { skip: available ? false : SKIP_REASON },
  async () => {
    const database = await freshDatabase();
    const dir = await workspace();
    try {
      const env = sharedDatabaseEnv(databaseUrl(database), join(dir, 'a'));
      const a = await live(env);
      try {
        const { cookie } = await a.signIn();
        const settings = () =>
          admin(async (c) => (await c.query('SELECT name, value FROM settings ORDER BY name')).rows, database);
        const before = await settings();
        const b = paddock(['serve'], {
          PADDOCK_LISTEN: '127.0.0.1:0',
          PADDOCK_DATABASE_URL: databaseUrl(database),
          PADDOCK_DATA_DIR: join(dir, 'b'),
        });
        assert.equal(await b.exited, 2);
        assert.equal(
          b.output().stderr,
          `paddock: PADDOCK_SEAL_KEY_FILE: ${join(dir, 'b', 'seal.key')} does not exist, and the store's secrets are sealed: give this instance the seal key file they were sealed with (it is in no database backup)\n`,
        );
        assert.deepEqual(await settings(), before, 'no secret replaced');
        assert.equal((await fetch(`${a.url}/devices`, { headers: { cookie }, redirect: 'manual' })).status, 200);
        await a.enroll('still-enrolling');
      } finally {
        await a.close();
      }
    } finally {
      await dropDatabase(database);
    }
  },
);
