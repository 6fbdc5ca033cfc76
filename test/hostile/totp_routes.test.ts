// The second-factor routes (docs/contract.md section 14) attacked on raw sockets of a live server:
// forged and malformed enrollment fields, codes that are not codes, parallel guesses from one
// address. Nothing answers 500 or shows a stack, nothing forged enrolls, every wrong code answers
// as a wrong password, and the secret reaches no log record.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exchange, live, LIVE_PASSWORD, statuses } from '../support/live.ts';
import { codeAt, secretOfPage } from '../support/totp.ts';

test('the /totp routes and POST /login with a code, on raw sockets: no 500, no stack, nothing forged enrolls', async () => {
  const l = await live();
  try {
    const { cookie, csrf } = await l.signIn();
    const page = await (await fetch(`${l.url}/totp`, { headers: { cookie } })).text();
    const { secret, pending } = secretOfPage(page);
    const [at, sealed] = pending.split('.');

    /** One raw POST, followed on the same connection by a health check that must still be answered. */
    const post = async (path: string, body: string, withCookie = true) => {
      const raw = await exchange(
        l.port,
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\n${withCookie ? `Cookie: ${cookie}\r\n` : ''}` +
          `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}` +
          `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\nConnection: close\r\n\r\n`,
      );
      const codes = statuses(raw);
      assert.equal(codes.length, 2, `${path} ${body.slice(0, 60)}: both answered`);
      assert.equal(codes[1], 200, 'the health check behind it');
      assert.doesNotMatch(raw, /at .*\.ts:\d+|Error:/, 'no stack trace');
      return { status: codes[0] ?? 0, body: raw.slice(raw.indexOf('\r\n\r\n') + 4) };
    };
    const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

    const code = codeAt(secret, Date.now());
    for (const forged of [
      '',
      'x'.repeat(60_000),
      '1.',
      `${'9'.repeat(20)}.${sealed}`,
      `${Number(at) + 60_000}.${sealed}`, // a later expiry on the same sealed secret
      `${at}.${sealed?.slice(0, -2)}AA`,
      `${at}.${sealed}.${sealed}`,
      `${at}.%2F%2F..%00`,
    ]) {
      const res = await post('/totp', `${form({ csrf, code })}&pending=${forged}`);
      assert.ok(res.status === 400, `pending ${forged.slice(0, 40)}: ${res.status}`);
    }
    for (const body of [`csrf=${csrf}&pending=${pending}&code=%ZZ`, `csrf=${csrf}&pending=${pending}`]) {
      const res = await post('/totp', body);
      assert.ok(res.status === 400 || res.status === 403, `${body.slice(-20)}: ${res.status}`);
    }
    assert.equal((await post('/totp', form({ csrf, pending, code }), false)).status, 303, 'no session: to /login');
    assert.match(
      (await (await fetch(`${l.url}/totp`, { headers: { cookie } })).text()) ?? '',
      /<svg/,
      'still not enrolled',
    );
    assert.equal((await post('/totp', form({ csrf, pending, code }))).status, 200, 'the real confirmation');

    // Sign-in with codes that are not codes: each is the answer a wrong password gets.
    const wrongPassword = await post('/login', form({ username: 'admin', password: 'not it', code: 'x' }), false);
    assert.equal(wrongPassword.status, 401);
    for (const odd of [
      '%00%00%00%00%00%00',
      '%EF%BC%91%EF%BC%92%EF%BC%93%EF%BC%94%EF%BC%95%EF%BC%96',
      'a'.repeat(60_000),
    ]) {
      const res = await post(
        '/login',
        `username=admin&password=${encodeURIComponent(LIVE_PASSWORD)}&code=${odd}`,
        false,
      );
      assert.equal(res.status, 401, odd.slice(0, 20));
      // The same page byte for byte; only the Date header may differ between two answers.
      const page = (body: string) => body.replace(/^[\s\S]*?<!doctype/i, '').replace(/\r\nDate: [^\r]*/g, '');
      assert.equal(page(res.body), page(wrongPassword.body));
    }
    const repeated = await post('/login', `username=admin&password=x&code=1&code=2`, false);
    assert.equal(repeated.status, 400);

    // A success resets the failures; then parallel guesses from one address are answered one at a time.
    const ok = await post(
      '/login',
      form({ username: 'admin', password: LIVE_PASSWORD, code: codeAt(secret, Date.now() + 30_000) }),
      false,
    );
    assert.equal(ok.status, 303);
    const started = Date.now();
    const guesses = await Promise.all(
      ['000000', '111111', '222222', '333333'].map((guess) =>
        post('/login', form({ username: 'admin', password: LIVE_PASSWORD, code: guess }), false),
      ),
    );
    assert.deepEqual(
      guesses.map((g) => g.status),
      [401, 401, 401, 401],
    );
    assert.ok(Date.now() - started >= 1000, 'the fourth guess waited for the throttle');

    // Removal with codes that are not codes: refused, the factor stays.
    for (const odd of ['%00', 'z'.repeat(5000)]) {
      const res = await post('/totp/disable', `csrf=${csrf}&code=${odd}`);
      assert.ok(res.status === 400, `disable ${odd.slice(0, 10)}: ${res.status}`);
    }
    assert.match((await (await fetch(`${l.url}/totp`, { headers: { cookie } })).text()) ?? '', /Turn it off/);

    assert.deepEqual(
      l.logs.filter((r) => r.level === 'error').map((r) => r.event),
      [],
    );
    assert.ok(!JSON.stringify(l.logs).includes(secret), 'the secret is in no log record');
  } finally {
    await l.close();
  }
});
