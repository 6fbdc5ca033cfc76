// The routes of docs/contract.md section 14 on raw sockets of a live server: a read token tries
// every write route of the API with the tricks that change a method elsewhere (override headers,
// a pipelined GET behind it); a copied cookie of an ended session is replayed, pipelined, to every
// console route; hostile account subjects in the path. Nothing answers 500 or shows a stack,
// nothing is changed, and every refusal holds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { apiRoutes } from '../../src/api/routes.ts';
import { consoleRoutes } from '../../src/console/routes.ts';
import { exchange, live, statuses } from '../support/live.ts';

const pathWith = (path: string, value: string) => path.replace(/:[a-z]+/g, value);

test('a read token: every API write route, with method-override headers and pipelining, is a 403 that changes nothing', async () => {
  const l = await live();
  try {
    const { cookie, csrf } = await l.signIn();
    const created = await fetch(`${l.url}/tokens`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, name: 'reader', scope: 'read' }).toString(),
    });
    const read = /id="token"[^>]*>(pdk_[A-Za-z0-9_-]+)</.exec(await created.text())?.[1] ?? '';
    assert.ok(read);
    const { device } = await l.enroll('target');
    const body = '{"name": "renamed", "uses": 1, "scope": "write"}';
    for (const route of apiRoutes.filter((r) => r.method !== 'GET')) {
      const target = pathWith(route.path, device);
      for (const [extra, refused] of [
        ['X-HTTP-Method-Override: GET\r\n', 403],
        ['X-Method-Override: GET\r\nX-HTTP-Method: GET\r\n', 403],
        // Two Authorization headers are one malformed credential: no token at all.
        ['Authorization: Bearer pdk_second_header_is_not_a_second_chance_aaaaaaaaaaaaaaaaaaa\r\n', 401],
      ] as const) {
        const head =
          `${route.method} ${target} HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\nAuthorization: Bearer ${read}\r\n${extra}` +
          `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
        const pipelined = `GET /api/v1/devices HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\nAuthorization: Bearer ${read}\r\nConnection: close\r\n\r\n`;
        const raw = await exchange(l.port, head + pipelined);
        const codes = statuses(raw);
        assert.equal(codes[0], refused, `${route.method} ${target} ${extra}: ${codes.join()}`);
        for (const code of codes)
          assert.ok(code < 500 && code !== 204 && code !== 201, `${route.method} ${target}: ${codes.join()}`);
        assert.doesNotMatch(raw, /at .*\.ts:\d+|Error:/, 'no stack trace');
      }
    }
    const kept = (await (
      await fetch(`${l.url}/api/v1/devices/${device}`, { headers: { authorization: `Bearer ${read}` } })
    ).json()) as { name: string; revoked_at: string | null };
    assert.deepEqual([kept.name, kept.revoked_at], ['target', null], 'the device is untouched');
    const tokens = (await (
      await fetch(`${l.url}/api/v1/tokens`, { headers: { authorization: `Bearer ${read}` } })
    ).json()) as { items: Array<{ name: string; state: string }> };
    assert.deepEqual(
      tokens.items.map((t) => [t.name, t.state]),
      [['reader', 'active']],
      'no token minted, none revoked',
    );
    assert.deepEqual(
      l.logs.filter((r) => r.level === 'error').map((r) => r.event),
      [],
    );
  } finally {
    await l.close();
  }
});

test('an ended session: its copied cookie, replayed pipelined to every console route, is no session', async () => {
  const l = await live();
  try {
    const mine = await l.signIn();
    const stolen = await l.signIn();
    const ended = await fetch(`${l.url}/sessions/end-others`, {
      method: 'POST',
      headers: { cookie: mine.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: `csrf=${mine.csrf}`,
      redirect: 'manual',
    });
    assert.equal(ended.status, 303);
    const guarded = consoleRoutes.filter((r) => r.access !== 'none');
    for (const route of guarded) {
      const target = pathWith(route.path, 'x');
      const body = `csrf=${stolen.csrf}`;
      const request =
        `${route.method} ${target} HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\nCookie: ${stolen.cookie}\r\n` +
        (route.method === 'POST'
          ? `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body}`
          : '\r\n');
      const raw = await exchange(
        l.port,
        request + request.replace('HTTP/1.1\r\n', 'HTTP/1.1\r\nConnection: close\r\n'),
      );
      assert.deepEqual(statuses(raw), [303, 303], `${route.method} ${target}`);
      assert.match(raw, /Location: \/login/i);
    }
    assert.equal((await fetch(`${l.url}/sessions`, { headers: { cookie: mine.cookie } })).status, 200, 'mine lives');
  } finally {
    await l.close();
  }
});

test('hostile account subjects in the path: never a 500, never a stack; the break-glass account stays enabled', async () => {
  const l = await live();
  try {
    const { cookie, csrf } = await l.signIn();
    const subjects = [
      '%ZZ',
      '%00',
      '%C3%28',
      'local%3Aadmin%00',
      'oidc%3A' + 'x'.repeat(6000),
      '..%2F..%2Fadmin',
      'local%3Aadmin%2F',
    ];
    for (const s of subjects)
      for (const [method, suffix] of [
        ['GET', ''],
        ['POST', '/disable'],
        ['POST', '/enable'],
      ] as const) {
        const body = `csrf=${csrf}`;
        const raw = await exchange(
          l.port,
          `${method} /accounts/${s}${suffix} HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\nCookie: ${cookie}\r\nConnection: close\r\n` +
            (method === 'POST'
              ? `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body}`
              : '\r\n'),
        );
        const [code] = statuses(raw);
        assert.ok(code !== undefined && code < 500, `${method} /accounts/${s.slice(0, 30)}${suffix}: ${code}`);
        assert.doesNotMatch(raw, /at .*\.ts:\d+|Error:/);
      }
    assert.equal((await fetch(`${l.url}/devices`, { headers: { cookie } })).status, 200, 'the admin is still in');
    assert.deepEqual(
      l.logs.filter((r) => r.level === 'error').map((r) => r.event),
      [],
    );
  } finally {
    await l.close();
  }
});
