// Approval on raw sockets of a live server (docs/contract.md section 16). A pending device's
// credential against every control route, with bodies that are cut, huge, not UTF-8 or chunked:
// a 4xx each (the 403 that says it waits, unless its facts), never a 500 or a stack, nothing stored.
// The approve and reject routes of the console and the API with malformed paths, queries and forms:
// never a 500, the device still waits. An approval and a rejection racing: one is done, one is 409.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { controlRoutes } from '../../src/control/routes.ts';
import { exchange, live, type Live, statuses } from '../support/live.ts';

const pathWith = (path: string, value: string) => path.replace(/:[a-z]+/g, value);

/** Mints a token with approval required through the console and enrolls a device with it. */
async function enrollPending(l: Live, cookie: string, csrf: string, name: string) {
  const mint = await fetch(`${l.url}/enroll-tokens`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf, approval: 'required' }),
  });
  const link = /(paddock:\/\/enroll\?[^<"]+)/.exec(await mint.text())?.[1]?.replaceAll('&amp;', '&') ?? '';
  const res = await fetch(`${l.url}/v1/enroll`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: new URL(link).searchParams.get('token'), name }),
  });
  assert.equal(res.status, 201);
  return (await res.json()) as { device: string; credential: string };
}

test('a pending device and the approval routes on raw sockets: no 500, no stack, nothing stored, still pending', async () => {
  const l = await live();
  try {
    const { cookie, csrf } = await l.signIn();
    const token = await l.accessToken('hostile approval');
    const { device, credential } = await enrollPending(l, cookie, csrf, 'waiting');
    const trailer = `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\nConnection: close\r\n\r\n`;
    const noStack = (raw: string, what: string) =>
      assert.doesNotMatch(raw, /at .*\.ts:\d+|Error:/, `${what}: no stack`);

    const bodies: Array<{ headers: string; body: Buffer }> = [
      { headers: 'Content-Type: application/json\r\n', body: Buffer.from('{"os": "cut') },
      { headers: 'Content-Type: application/json\r\n', body: Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d]) },
      { headers: 'Content-Type: application/json\r\n', body: Buffer.from(`{"os": "${'x'.repeat(20_000)}"}`) },
      { headers: 'X-Privacy-Level: full\r\nX-Collection: r_1\r\n', body: Buffer.from('a run') },
      { headers: 'X-Privacy-Level: %00\r\n', body: Buffer.alloc(0) },
    ];
    for (const route of controlRoutes.filter((r) => r.path !== '/v1/enroll')) {
      // A route open to anyone (the pins) has nothing of a device's to refuse: only never a 500 there.
      const anyone = (await fetch(`${l.url}${pathWith(route.path, 'x')}`, { method: route.method })).status !== 401;
      const refused = !route.whilePending && !anyone;
      for (const target of [
        pathWith(route.path, 'r_1'),
        pathWith(route.path, '%ZZ'),
        `${pathWith(route.path, 'x')}?wait=%00`,
      ])
        for (const { headers, body } of route.method === 'GET' ? [{ headers: '', body: Buffer.alloc(0) }] : bodies) {
          const head =
            `${route.method} ${target} HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\nAuthorization: Bearer ${credential}\r\n` +
            `${headers}Content-Length: ${body.length}\r\n\r\n`;
          const raw = await exchange(l.port, Buffer.concat([Buffer.from(head), body, Buffer.from(trailer)]));
          const codes = statuses(raw);
          const what = `${route.method} ${target.slice(0, 40)} ${body.subarray(0, 12).toString()}`;
          assert.equal(codes.length, 2, `${what}: both answered (${codes.join()})`);
          assert.ok((codes[0] ?? 500) < 500, `${what}: ${codes[0]}`);
          if (refused && codes[0] !== 404) assert.equal(codes[0], 403, what);
          noStack(raw, what);
        }
      // A chunked upload that never ends: refused before a byte of it is read.
      const chunked =
        `${route.method} ${pathWith(route.path, 'r_2')} HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\n` +
        `Authorization: Bearer ${credential}\r\nX-Privacy-Level: full\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n`;
      const open = statuses(await exchange(l.port, chunked, 2_000));
      // A route that takes the body reads it at the minimum rate (408 later); none answers 5xx.
      assert.ok(
        open.every((code) => code < 500),
        `${route.path} chunked: ${open.join()}`,
      );
      if (refused) assert.deepEqual(open, [403], `${route.path} chunked: refused at once`);
    }

    // The console's and the API's approve and reject, with malformed paths, queries and forms.
    const routes = [
      '/devices/:id/approve',
      '/devices/:id/reject',
      '/api/v1/devices/:id/approve',
      '/api/v1/devices/:id/reject',
    ];
    for (const route of routes) {
      const api = route.startsWith('/api/');
      const auth = api ? `Authorization: Bearer ${token}\r\n` : `Cookie: ${cookie}\r\n`;
      for (const target of [
        pathWith(route, '%ZZ'),
        pathWith(route, '%00'),
        pathWith(route, '..%2F..%2Fetc'),
        `${pathWith(route, device)}?q=%ZZ&status=%C3%28`,
      ])
        // A stale CSRF token: the console's routes never act on a query, so only a form could change anything.
        for (const body of [`csrf=${csrf}x&${'device=x&'.repeat(80)}`, '{"__proto__": {"admin": true}}', '']) {
          const head =
            `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\n${auth}` +
            `Content-Type: ${api ? 'application/json' : 'application/x-www-form-urlencoded'}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
          const raw = await exchange(l.port, `${head}${body}${trailer}`);
          const codes = statuses(raw);
          const what = `POST ${target.slice(0, 50)} ${body.slice(0, 12)}`;
          assert.equal(codes.length, 2, `${what}: both answered`);
          for (const code of codes) assert.ok(code < 500, `${what}: ${code}`);
          noStack(raw, what);
        }
      // Without the CSRF field or with a stale one, the console changes nothing.
      if (!api)
        for (const form of ['', 'csrf=stale']) {
          const res = await fetch(`${l.url}${pathWith(route, device)}`, {
            method: 'POST',
            headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
            body: form,
            redirect: 'manual',
          });
          assert.equal(res.status, 403, `${route} ${form || 'no csrf'}`);
        }
    }

    const shown = await fetch(`${l.url}/api/v1/devices/${device}`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(((await shown.json()) as { status: string }).status, 'pending', 'still waiting');
    const runs = await fetch(`${l.url}/api/v1/runs?device=${device}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.deepEqual(((await runs.json()) as { items: unknown[] }).items, [], 'nothing stored');
    assert.equal((await fetch(`${l.url}/healthz`)).status, 200, 'still serving');
    assert.deepEqual(
      l.logs.filter((r) => r.level === 'error').map((r) => r.event),
      [],
      'no error records',
    );

    // Racing: an approval and a rejection of one device at once, through both doors.
    for (let i = 0; i < 4; i++) {
      const raced = await enrollPending(l, cookie, csrf, `raced-${i}`);
      const [approve, reject] = await Promise.all([
        fetch(`${l.url}/api/v1/devices/${raced.device}/approve`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
        }),
        fetch(`${l.url}/devices/${raced.device}/reject`, {
          method: 'POST',
          headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ csrf }),
          redirect: 'manual',
        }),
      ]);
      const outcome = [approve.status, reject.status].sort().join();
      assert.ok(outcome === '204,409' || outcome === '303,409', `one of them, the other 409: ${outcome}`);
    }
  } finally {
    await l.close();
  }
});
