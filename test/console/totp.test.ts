// The break-glass account's second factor (docs/contract.md section 14): enrollment, sign-in with a
// code, the window, replay, recovery codes, the throttle, the answer a wrong code gets, removal.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { dropSchemas, freshSchema, PG_URL, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';
import { ADMIN_PASSWORD, form, harness, type Harness } from '../support/harness.ts';
import { BREAK_GLASS, codeAt, enrollTotp, secretOfPage } from '../support/totp.ts';

const login = (h: Harness, fields: Record<string, string>, client = '192.0.2.50') =>
  h.request('/login', form({ username: 'admin', password: ADMIN_PASSWORD, ...fields }), client);

async function withHarness(fn: (h: Harness) => Promise<void>) {
  const h = await harness();
  try {
    await fn(h);
  } finally {
    await h.close();
  }
}

const eventsOf = (h: Harness, from: number) => h.logs.slice(from).map((r) => r.event);

test('GET /totp shows a new secret as an otpauth QR code and as text; the break-glass account alone', () =>
  withHarness(async (h) => {
    const { cookie } = h.signIn(BREAK_GLASS);
    const res = await h.request('/totp', { headers: { cookie } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const { secret, uri, pending } = secretOfPage(await res.text());
    assert.equal(uri.protocol, 'otpauth:');
    assert.equal(uri.host, 'totp');
    assert.equal(decodeURIComponent(uri.pathname), '/Paddock:admin@Test Paddock');
    assert.deepEqual([...uri.searchParams.keys()].sort(), ['algorithm', 'digits', 'issuer', 'period', 'secret']);
    assert.equal(uri.searchParams.get('algorithm'), 'SHA1');
    assert.equal(uri.searchParams.get('digits'), '6');
    assert.equal(uri.searchParams.get('period'), '30');
    assert.match(secret, /^[A-Z2-7]{32}$/, '160 bits in base32');
    assert.ok(!pending.includes(secret));
    assert.equal(await h.store.totpFactor('local:admin'), undefined, 'nothing stored before a code confirms it');

    for (const who of [
      { subject: 'oidc:boss', display: 'Boss', admin: true },
      { subject: 'oidc:user-1', display: 'Uma', admin: false },
    ]) {
      const other = h.signIn(who);
      const refused = await h.request('/totp', { headers: { cookie: other.cookie } });
      assert.equal(refused.status, 403, who.subject);
    }
  }));

test('POST /totp: a wrong code shows the same secret again; the right one stores it and shows 10 recovery codes once', () =>
  withHarness(async (h) => {
    const { cookie, csrf } = h.signIn(BREAK_GLASS);
    const { secret, pending } = secretOfPage(await (await h.request('/totp', { headers: { cookie } })).text());
    const wrong = await h.request(
      '/totp',
      form({ csrf, pending, code: '000000' === codeAt(secret, h.clock.now()) ? '111111' : '000000' }, cookie),
    );
    assert.equal(wrong.status, 400);
    assert.equal(secretOfPage(await wrong.text()).secret, secret);
    assert.equal(await h.store.totpFactor('local:admin'), undefined);

    const before = h.logs.length;
    const ok = await h.request('/totp', form({ csrf, pending, code: codeAt(secret, h.clock.now()) }, cookie));
    assert.equal(ok.status, 200);
    const page = await ok.text();
    const codes = /<textarea id="recovery"[^>]*>([^<]*)<\/textarea>/.exec(page)?.[1]?.split('\n') ?? [];
    assert.equal(codes.length, 10);
    assert.equal(new Set(codes).size, 10);
    for (const c of codes) assert.match(c, /^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/);
    assert.deepEqual(eventsOf(h, before), ['totp.enrolled']);

    const stored = await h.store.totpFactor('local:admin');
    assert.ok(stored);
    assert.equal(stored.recoveryHashes.length, 10);
    const row = JSON.stringify(stored);
    assert.ok(!row.includes(secret), 'the secret is not stored in the clear');
    assert.ok(!row.includes(Buffer.from(secret).toString('base64')));
    for (const c of codes)
      assert.ok(!row.includes(c) && !row.includes(c.replaceAll('-', '')), 'recovery codes only as hashes');

    // The confirmation cannot be sent again, and the page no longer shows any secret.
    const again = await h.request('/totp', form({ csrf, pending, code: codeAt(secret, h.clock.now()) }, cookie));
    assert.equal(again.status, 409);
    const status = await (await h.request('/totp', { headers: { cookie } })).text();
    assert.ok(!status.includes(secret) && !status.includes('<svg'));
    assert.match(status, /10 of 10 recovery codes are unused/);
  }));

test('a pending secret belongs to its session and expires after 10 minutes', () =>
  withHarness(async (h) => {
    const first = h.signIn(BREAK_GLASS);
    const { secret, pending } = secretOfPage(
      await (await h.request('/totp', { headers: { cookie: first.cookie } })).text(),
    );
    const second = h.signIn(BREAK_GLASS);
    const code = codeAt(secret, h.clock.now());
    const elsewhere = await h.request('/totp', form({ csrf: second.csrf, pending, code }, second.cookie));
    assert.equal(elsewhere.status, 400);
    assert.notEqual(secretOfPage(await elsewhere.text()).secret, secret, 'another session gets a fresh secret');
    h.clock.advance(10 * 60_000);
    const late = await h.request(
      '/totp',
      form({ csrf: first.csrf, pending, code: codeAt(secret, h.clock.now()) }, first.cookie),
    );
    assert.equal(late.status, 400);
    assert.equal(await h.store.totpFactor('local:admin'), undefined);
  }));

test('sign-in with a current code: 303; the code from one step either side is accepted, two steps refused', () =>
  withHarness(async (h) => {
    const { secret } = await enrollTotp(h);
    const before = h.logs.length;
    assert.equal((await login(h, { code: codeAt(secret, h.clock.now()) })).status, 303);
    assert.deepEqual(eventsOf(h, before), ['login.local.succeeded']);

    for (const [offset, status] of [
      [60_000 - 30_000, 303], // the next step's code, a step early
      [-60_000, 401],
      [+60_000, 401],
    ] as const) {
      h.clock.advance(90_000);
      assert.equal(
        (await login(h, { code: codeAt(secret, h.clock.now() + offset) })).status,
        status,
        `offset ${offset}`,
      );
    }
    h.clock.advance(90_000);
    assert.equal((await login(h, { code: codeAt(secret, h.clock.now() - 30_000) })).status, 303, 'a step late');
  }));

test('a code is accepted once: a replay, or an older step after a newer one, is refused', () =>
  withHarness(async (h) => {
    const { secret } = await enrollTotp(h);
    const code = codeAt(secret, h.clock.now());
    assert.equal((await login(h, { code })).status, 303);
    assert.equal((await login(h, { code })).status, 401, 'the same code again');
    h.clock.advance(30_000);
    assert.equal((await login(h, { code: codeAt(secret, h.clock.now() + 30_000) })).status, 303);
    assert.equal(
      (await login(h, { code: codeAt(secret, h.clock.now()) })).status,
      401,
      'an earlier step than the last accepted',
    );
  }));

test('a recovery code signs in once, in any case and spacing; the event says how many are left', () =>
  withHarness(async (h) => {
    const { recoveryCodes } = await enrollTotp(h);
    const code = recoveryCodes[3] ?? '';
    const before = h.logs.length;
    assert.equal((await login(h, { code: ` ${code.toUpperCase().replaceAll('-', ' ')} ` })).status, 303);
    assert.deepEqual(eventsOf(h, before), ['login.local.succeeded', 'totp.recovery_used']);
    assert.equal(h.logs.at(-1)?.left, 9);
    assert.equal((await login(h, { code })).status, 401, 'used already');
    assert.equal((await login(h, { code: recoveryCodes[4] ?? '' })).status, 303, 'another one still works');
    assert.equal((await h.store.totpFactor('local:admin'))?.recoveryHashes.length, 8);
  }));

test('a wrong or missing code answers byte for byte as a wrong password, and each counts for the throttle', () =>
  withHarness(async (h) => {
    const { secret } = await enrollTotp(h);
    const answer = async (fields: Record<string, string>, client: string) => {
      const before = h.logs.length;
      const res = await login(h, fields, client);
      const headers = [...res.headers].filter(([k]) => k !== 'date');
      return { status: res.status, headers, body: await res.text(), events: h.logs.slice(before) };
    };
    const wrongPassword = await answer(
      { password: 'not the password', code: codeAt(secret, h.clock.now()) },
      '192.0.2.60',
    );
    const missing = await answer({}, '192.0.2.60');
    const wrong = await answer(
      { code: '123456' === codeAt(secret, h.clock.now()) ? '654321' : '123456' },
      '192.0.2.60',
    );
    const junk = await answer({ code: 'x'.repeat(40) }, '192.0.2.60');
    assert.equal(wrongPassword.status, 401);
    for (const other of [missing, wrong, junk]) {
      assert.equal(other.status, wrongPassword.status);
      assert.deepEqual(other.headers, wrongPassword.headers);
      assert.equal(other.body, wrongPassword.body);
      assert.deepEqual(
        other.events.map(({ event, user, client }) => ({ event, user, client })),
        [{ event: 'login.local.failed', user: 'admin', client: '192.0.2.60' }],
      );
      assert.deepEqual(Object.keys(other.events[0] ?? {}).sort(), Object.keys(wrongPassword.events[0] ?? {}).sort());
    }
    assert.equal(await h.store.loginFailuresSince('192.0.2.60', 0), 4);
    // The fourth failure set the delay: the next attempt, even with the right code, waits 2 s first.
    assert.deepEqual(h.clock.sleeps, [1000]);
    assert.equal((await login(h, { code: codeAt(secret, h.clock.now()) }, '192.0.2.60')).status, 303);
    assert.deepEqual(h.clock.sleeps, [1000, 2000]);
    assert.equal(await h.store.loginFailuresSince('192.0.2.60', 0), 0);
  }));

test('a wrong password does not use up the code it came with', () =>
  withHarness(async (h) => {
    const { secret, recoveryCodes } = await enrollTotp(h);
    const code = codeAt(secret, h.clock.now());
    assert.equal((await login(h, { password: 'not the password', code })).status, 401);
    assert.equal((await login(h, { code })).status, 303);
    const recovery = recoveryCodes[0] ?? '';
    assert.equal((await login(h, { password: 'not the password', code: recovery })).status, 401);
    assert.equal((await login(h, { code: recovery })).status, 303);
  }));

test('with no factor enrolled the code field is ignored: the specification’s sign-in', () =>
  withHarness(async (h) => {
    assert.equal((await login(h, { code: 'anything at all' })).status, 303);
    assert.equal((await login(h, { code: '' })).status, 303);
    assert.equal((await login(h, { password: 'not the password', code: '123456' })).status, 401);
    const page = await (await h.request('/login')).text();
    assert.match(page, /<input id="code" name="code" autocomplete="one-time-code" aria-describedby="code-hint" \/>/);
    assert.ok(!/id="code"[^>]*required/.test(page), 'the code field is optional');
  }));

test('the secret and the recovery codes appear in no log record, audit row or later page', () =>
  withHarness(async (h) => {
    const { secret, recoveryCodes, pending } = await enrollTotp(h);
    assert.equal((await login(h, { code: recoveryCodes[0] ?? '' })).status, 303);
    const { cookie } = h.signIn(BREAK_GLASS);
    const pages = await Promise.all(
      ['/totp', '/', '/audit'].map(async (p) => (await h.request(p, { headers: { cookie } })).text()),
    );
    await h.flushAudit();
    const audit = await h.store.auditPage({}, { limit: 100 });
    const everything = JSON.stringify([h.logs, audit, pages]);
    const lower = secret.toLowerCase();
    for (const needle of [secret, lower, pending, ...recoveryCodes, ...recoveryCodes.map((c) => c.replaceAll('-', ''))])
      assert.ok(!everything.includes(needle), `leaked: ${needle.slice(0, 6)}…`);
    assert.ok(audit.items.some((r) => r.event === 'totp.enrolled'));
  }));

test('POST /totp/disable: a wrong code is refused and counted; a code removes the factor, then the password alone signs in', () =>
  withHarness(async (h) => {
    const { secret, recoveryCodes } = await enrollTotp(h);
    const { cookie, csrf } = h.signIn(BREAK_GLASS);
    const wrong = await h.request(
      '/totp/disable',
      form({ csrf, code: '000000' === codeAt(secret, h.clock.now()) ? '111111' : '000000' }, cookie),
      '192.0.2.70',
    );
    assert.equal(wrong.status, 400);
    assert.match(await wrong.text(), /not valid/);
    assert.equal(await h.store.loginFailuresSince('192.0.2.70', 0), 1);
    assert.ok(await h.store.totpFactor('local:admin'));

    const before = h.logs.length;
    const res = await h.request('/totp/disable', form({ csrf, code: recoveryCodes[9] ?? '' }, cookie), '192.0.2.70');
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), '/totp');
    assert.deepEqual(eventsOf(h, before), ['totp.disabled']);
    assert.equal(h.logs.at(-1)?.method, 'recovery');
    assert.equal(await h.store.totpFactor('local:admin'), undefined);
    assert.equal((await login(h, {})).status, 303);

    const none = await h.request('/totp/disable', form({ csrf, code: codeAt(secret, h.clock.now()) }, cookie));
    assert.equal(none.status, 409);
    const missing = await h.request('/totp/disable', form({ csrf }, cookie));
    assert.equal(missing.status, 400);
  }));

const pgAvailable = await postgresAvailable();
after(() => (pgAvailable ? dropSchemas() : undefined));

test(
  'on PostgreSQL: enroll, sign in with a code once, a recovery code once, remove',
  { skip: !pgAvailable && !process.env.CI ? SKIP_REASON : false },
  async () => {
    const h = await harness({ store: await openPostgresStore(PG_URL, { schema: freshSchema() }) });
    try {
      const { secret, recoveryCodes } = await enrollTotp(h);
      const code = codeAt(secret, h.clock.now());
      assert.equal((await login(h, { code })).status, 303);
      assert.equal((await login(h, { code })).status, 401);
      assert.equal((await login(h, {})).status, 401);
      assert.equal((await login(h, { code: recoveryCodes[0] ?? '' })).status, 303);
      assert.equal((await login(h, { code: recoveryCodes[0] ?? '' })).status, 401);
      const { cookie, csrf } = h.signIn(BREAK_GLASS);
      h.clock.advance(30_000);
      const off = await h.request('/totp/disable', form({ csrf, code: codeAt(secret, h.clock.now()) }, cookie));
      assert.equal(off.status, 303);
      assert.equal((await login(h, {})).status, 303);
    } finally {
      await h.close();
    }
  },
);
