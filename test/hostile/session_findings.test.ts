// Regression tests of the security review of issue 34, findings 1, 4 and 8: sessions. Each failed
// before its fix: a cookie forged with the session key read from the store got 200; the guard let a
// session through while the store erred; a password or second-factor change left sessions alive.
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import { test } from 'node:test';
import { sha256Hex } from '../../src/crypto/random.ts';
import { readSealKey } from '../../src/crypto/seal_key.ts';
import { openSetting, settingsKey } from '../../src/store/sealed_settings.ts';
import { sessionCodec } from '../../src/session/session.ts';
import { changeAdminPassword } from '../../src/actions/admin_password.ts';
import { StoreError } from '../../src/store/errors.ts';
import { memoryLogger } from '../../src/log/logger.ts';
import { live } from '../support/live.ts';
import { form, harness } from '../support/harness.ts';
import { BREAK_GLASS, codeAt, enrollTotp } from '../support/totp.ts';

async function status(url: string, cookie: string): Promise<number> {
  const res = await fetch(url, { headers: { cookie }, redirect: 'manual' });
  await res.arrayBuffer();
  return res.status;
}

test('finding: read access to the store is not enough to sign in as admin (forged ids, replayed rows)', async () => {
  const l = await live();
  try {
    const real = await l.signIn();
    assert.equal(await status(`${l.url}/accounts`, real.cookie), 200, 'the real session works');

    // What a backup, a replica or a read-only role gives, with the seal key too (issue 42 seals the
    // session key): every table, the session key among the settings.
    const copy = new DatabaseSync(join(l.dataDir, 'paddock.db'), { readOnly: true });
    const sealed = (copy.prepare("SELECT value FROM settings WHERE name = 'session_key'").get()?.value as string) ?? '';
    const sealKey = settingsKey(readSealKey(join(l.dataDir, 'seal.key')));
    const key = Buffer.from(openSetting(sealKey, 'session_key', sealed), 'base64');
    const rows = copy.prepare('SELECT id, subject, admin, expires_at FROM sessions').all();
    copy.close();
    assert.equal(key.length, 32, 'the probe has the key');
    assert.equal(rows.length, 1);
    const codec = sessionCodec([key], 43_200);

    // The real cookie's id is not in the table: only its hash.
    const realId = codec.decode(real.cookie.replace(/^service_admin=/, ''), Date.now())?.id ?? '';
    assert.notEqual(realId, '');
    assert.equal(rows[0]?.id, sha256Hex(realId));
    assert.ok(!rows.some((r) => r.id === realId), 'no row holds a cookie id');

    // 1. A new random id, signed with the key: never recorded, refused.
    const forged = codec.encode(
      codec.newSession({ subject: 'local:admin', display: 'admin', admin: true }, Date.now()),
    );
    assert.equal(await status(`${l.url}/accounts`, `service_admin=${forged}`), 303);
    // 2. Each row's key used as a cookie id, with the row's own account, flag and expiry: refused.
    for (const r of rows) {
      const replay = codec.encode({
        id: String(r.id),
        subject: String(r.subject),
        display: 'admin',
        admin: Number(r.admin) === 1,
        expires: Number(r.expires_at),
      });
      assert.equal(await status(`${l.url}/accounts`, `service_admin=${replay}`), 303);
    }
    assert.equal(await status(`${l.url}/accounts`, real.cookie), 200, 'the real session still works');
  } finally {
    await l.close();
  }
});

test('finding: a cookie signed with a leaked key cannot raise a recorded session to admin or move it to another account', async () => {
  const h = await harness();
  try {
    const ann = h.signIn({ subject: 'oidc:ann', admin: false });
    assert.equal((await h.request('/devices', { headers: { cookie: ann.cookie } })).status, 200);
    const codec = sessionCodec(h.config.sessionKeys, h.config.sessionTtlSeconds);
    for (const claim of [
      { ...ann.session, admin: true },
      { ...ann.session, subject: 'local:admin', admin: true },
    ]) {
      const res = await h.request('/accounts', { headers: { cookie: `service_admin=${codec.encode(claim)}` } });
      assert.equal(res.status, 303, JSON.stringify(claim));
    }
  } finally {
    await h.close();
  }
});

test('finding: the guard fails closed: a store error on the session lookup answers 503, never the page', async () => {
  const h = await harness();
  try {
    const ann = h.signIn({ subject: 'oidc:ann', admin: false });
    assert.equal((await h.request('/devices', { headers: { cookie: ann.cookie } })).status, 200);
    // Sign out, then let the lookup fail as an exhausted pool does: the ended session must not pass.
    await h.request('/logout', { method: 'POST', headers: { cookie: ann.cookie } });
    const seeSession = h.store.seeSession.bind(h.store);
    h.store.seeSession = async () => {
      throw new StoreError('query_failed', 'timeout exceeded when trying to connect');
    };
    for (const [path, init] of [
      ['/devices', { headers: { cookie: ann.cookie } }],
      ['/runs/d_x/r/delete', form({ csrf: ann.csrf }, ann.cookie)],
    ] as const) {
      const res = await h.request(path, init);
      assert.equal(res.status, 503, path);
      assert.match(await res.text(), /the store is unavailable/);
    }
    assert.ok(h.logs.some((r) => r.event === 'store.unavailable'));
    h.store.seeSession = seeSession;
    assert.equal((await h.request('/devices', { headers: { cookie: ann.cookie } })).status, 303, 'still ended');
  } finally {
    await h.close();
  }
});

test('finding: enrolling or removing the second factor ends the account other sessions, audited', async () => {
  const h = await harness();
  try {
    const other = h.signIn(BREAK_GLASS);
    assert.equal((await h.request('/devices', { headers: { cookie: other.cookie } })).status, 200);
    const { secret } = await enrollTotp(h);
    assert.equal(
      (await h.request('/devices', { headers: { cookie: other.cookie } })).status,
      303,
      'ended by enrolling',
    );
    await h.flushAudit();
    const enrolled = h.logs.find((r) => r.event === 'totp.enrolled');
    assert.equal(enrolled?.sessions, 1);

    const keeper = h.signIn(BREAK_GLASS);
    const another = h.signIn(BREAK_GLASS);
    const res = await h.request(
      '/totp/disable',
      form({ csrf: keeper.csrf, code: codeAt(secret, h.clock.now()) }, keeper.cookie),
    );
    assert.equal(res.status, 303);
    assert.equal((await h.request('/devices', { headers: { cookie: another.cookie } })).status, 303, 'ended');
    assert.equal((await h.request('/devices', { headers: { cookie: keeper.cookie } })).status, 200, 'the asker stays');
    // `another` and the session that enrolled.
    assert.equal(h.logs.find((r) => r.event === 'totp.disabled')?.sessions, 2);
  } finally {
    await h.close();
  }
});

test('finding: a new break-glass password ends every session of the account, audited; the same one changes nothing', async () => {
  const h = await harness();
  try {
    const admin = h.signIn(BREAK_GLASS);
    const ann = h.signIn({ subject: 'oidc:ann', admin: true });
    const logger = memoryLogger();
    const deps = { store: h.store, logger, clock: h.clock };
    assert.equal(await changeAdminPassword(deps, 'admin', 'a brand new password!'), true);
    assert.equal((await h.request('/devices', { headers: { cookie: admin.cookie } })).status, 303, 'ended');
    assert.equal(
      (await h.request('/devices', { headers: { cookie: ann.cookie } })).status,
      200,
      'another account stays',
    );
    const changed = logger.records.find((r) => r.event === 'password.changed');
    assert.deepEqual([changed?.account, changed?.subject, changed?.sessions], ['system', 'local:admin', 1]);

    const again = h.signIn(BREAK_GLASS);
    assert.equal(await changeAdminPassword(deps, 'admin', 'a brand new password!'), false, 'the same password');
    assert.equal((await h.request('/devices', { headers: { cookie: again.cookie } })).status, 200);
  } finally {
    await h.close();
  }
});
