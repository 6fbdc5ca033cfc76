// A start's seal step (docs/contract.md section 23) on both stores: a new store is sealed, a store
// made before sealing has its plain secrets sealed in place, and a missing or wrong seal key is
// refused without a write. On PostgreSQL, two instances starting at once agree.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ConfigError } from '../../src/config/parse.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { sealStore } from '../../src/store/seal_store.ts';
import { isSealed, SEAL_CHECK_SETTING, SECRET_SETTINGS } from '../../src/store/sealed_settings.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import type { Store } from '../../src/store/store.ts';
import { dropSchemas, freshSchema, PG_URL, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';

const available = await postgresAvailable();
const dirs: string[] = [];
after(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  if (available) await dropSchemas();
});

async function keyFile(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-seal-store-'));
  dirs.push(dir);
  return join(dir, 'seal.key');
}

async function settingsOf(store: Store): Promise<Record<string, string | undefined>> {
  const names = [SEAL_CHECK_SETTING, ...Object.values(SECRET_SETTINGS)];
  return Object.fromEntries(await Promise.all(names.map(async (n) => [n, await store.getSetting(n)])));
}

function sealContract(kind: string, open: () => Promise<{ store: Store; again: () => Promise<Store> }>) {
  describe(`${kind}: sealed settings`, () => {
    test('a new store: the key file is made, secrets are written sealed and read plain', async () => {
      const { store: raw } = await open();
      const file = await keyFile();
      try {
        const store = await sealStore(raw, file);
        assert.equal((await stat(file)).mode & 0o777, 0o600);
        assert.equal(await store.setSettingIfAbsent('session_key', 'plain key'), 'plain key');
        assert.equal(await store.getSetting('session_key'), 'plain key');
        const stored = await raw.getSetting('session_key');
        assert.ok(stored !== undefined && isSealed(stored) && !stored.includes('plain'));
        assert.ok(isSealed((await raw.getSetting(SEAL_CHECK_SETTING)) ?? ''));
      } finally {
        await raw.close();
      }
    });

    test('a store made before sealing: its plain secrets are sealed in place, their values kept', async () => {
      const { store: raw, again } = await open();
      const file = await keyFile();
      try {
        await raw.setSetting('control_tls', '{"keyPem":"-----BEGIN PRIVATE KEY-----"}');
        await raw.setSetting('session_key', 'old session key');
        await raw.setSetting('webhook_seal_key', 'old webhook key');
        const store = await sealStore(raw, file);
        const stored = await settingsOf(raw);
        for (const name of ['control_tls', 'session_key', 'webhook_seal_key'])
          assert.ok(isSealed(stored[name] ?? ''), `${name} is sealed`);
        assert.equal(stored.totp_key, undefined, 'nothing made that was not there');
        assert.equal(await store.getSetting('session_key'), 'old session key');
        assert.equal(await store.getSetting('control_tls'), '{"keyPem":"-----BEGIN PRIVATE KEY-----"}');
        // The next start finds it sealed and changes nothing.
        const next = await again();
        try {
          await sealStore(next, file);
          assert.deepEqual(await settingsOf(next), stored);
        } finally {
          await next.close();
        }
      } finally {
        await raw.close();
      }
    });

    test('a sealed store without its key file, or with another key: refused, nothing written', async () => {
      const { store: raw } = await open();
      const file = await keyFile();
      try {
        await (await sealStore(raw, file)).setSettingIfAbsent('session_key', 'k');
        const before = await settingsOf(raw);
        await rm(file);
        const missing = await sealStore(raw, file).then(
          () => undefined,
          (err: unknown) => err,
        );
        assert.ok(missing instanceof ConfigError);
        assert.equal(missing.variable, 'PADDOCK_SEAL_KEY_FILE');
        assert.match(missing.message, new RegExp(`${file} does not exist, and the store's secrets are sealed`));
        await assert.rejects(stat(file), /ENOENT/, 'no key file made in its place');
        await writeFile(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
        await assert.rejects(sealStore(raw, file), /is not the seal key the store's secrets are sealed with/);
        assert.deepEqual(await settingsOf(raw), before, 'settings unchanged');
      } finally {
        await raw.close();
      }
    });
  });
}

sealContract('sqlite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-seal-sqlite-'));
  dirs.push(dir);
  return { store: openSqliteStore(dir), again: async () => openSqliteStore(dir) };
});

describe('postgres', { skip: available ? false : SKIP_REASON }, () => {
  sealContract('postgres', async () => {
    const schema = freshSchema();
    return {
      store: await openPostgresStore(PG_URL, { schema }),
      again: () => openPostgresStore(PG_URL, { schema }),
    };
  });

  test('two instances sealing an old store at once, with one key file: each secret sealed once, both agree', async () => {
    const schema = freshSchema();
    const [a, b] = [await openPostgresStore(PG_URL, { schema }), await openPostgresStore(PG_URL, { schema })];
    const file = await keyFile();
    try {
      await a.setSetting('control_tls', 'old control');
      await a.setSetting('session_key', 'old session');
      await a.setSetting('totp_key', 'old totp');
      const [sa, sb] = await Promise.all([sealStore(a, file), sealStore(b, file)]);
      for (const name of ['control_tls', 'session_key', 'totp_key'])
        assert.ok(isSealed((await a.getSetting(name)) ?? ''), name);
      assert.deepEqual(
        [await sa.getSetting('session_key'), await sb.getSetting('session_key'), await sb.getSetting('totp_key')],
        ['old session', 'old session', 'old totp'],
      );
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('two instances with different key files at once: one seals, the other is refused before sealing anything', async () => {
    const schema = freshSchema();
    const [a, b] = [await openPostgresStore(PG_URL, { schema }), await openPostgresStore(PG_URL, { schema })];
    const [fa, fb] = [await keyFile(), await keyFile()];
    try {
      await a.setSetting('session_key', 'old session');
      const results = await Promise.allSettled([sealStore(a, fa), sealStore(b, fb)]);
      const won = results.findIndex((r) => r.status === 'fulfilled');
      assert.equal(results.filter((r) => r.status === 'rejected').length, 1, 'one is refused');
      const winner = (results[won] as PromiseFulfilledResult<Store>).value;
      assert.equal(await winner.getSetting('session_key'), 'old session', 'every secret under the winning key');
      // The loser's new key file is gone: its next start says the file is missing, not that it is wrong.
      await assert.rejects(stat(won === 0 ? fb : fa), /ENOENT/);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
