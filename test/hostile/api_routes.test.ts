// Every route of the JSON API, taken from the routes table and attacked on raw sockets of a live
// server with a valid administrator's token: malformed paths and queries, hostile JSON bodies
// (cut, deep, huge numbers, prototype keys, bytes that are not UTF-8), a request pipelined behind
// each, and a body that stalls. Nothing answers 500 or shows a stack, nothing is changed, the
// server stays healthy.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import { interfaceRoutes } from '../../src/host/interface.ts';
import { exchange, live, statuses } from '../support/live.ts';

const pathWith = (path: string, value: string) => path.replace(/:[a-z]+/g, value);

const BODIES: Array<string | Buffer> = [
  '{"name": "cut',
  `${'['.repeat(4000)}${']'.repeat(4000)}`,
  '{"uses": 1e400, "expires_in": -0.5}',
  '{"__proto__": {"admin": true}, "constructor": {"prototype": {"admin": true}}}',
  Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
  'null',
  '"a string"',
  `{"name": "${'x'.repeat(9000)}"}`,
];

test('every API route on raw sockets: hostile requests never get a 500, a stack, or a change', async () => {
  const l = await live();
  try {
    const token = await l.accessToken('hostile');
    const { device, credential } = await l.enroll('target');
    await fetch(`${l.url}/v1/runs/kept`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${credential}`, 'x-privacy-level': 'full' },
      body: 'kept',
    });
    const trailer = `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\nConnection: close\r\n\r\n`;
    const api = interfaceRoutes.filter((r) => r.path.startsWith('/api/v1/'));
    assert.ok(api.length >= 15, 'the API routes are in the table');
    for (const route of api) {
      const targets = [
        pathWith(route.path, '%ZZ'),
        pathWith(route.path, '%00'),
        pathWith(route.path, '..%2F..%2Fetc'),
        `${pathWith(route.path, device)}?q=%ZZ&status=%C3%28&before=${'9'.repeat(40)}`,
        `${pathWith(route.path, device)}?owner=a&owner=b&device=..%2F..%2F&privacy=%00`,
      ];
      const bodies = route.method === 'GET' ? [''] : BODIES;
      for (const target of targets)
        for (const body of bodies) {
          const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
          const head =
            `${route.method} ${target} HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\nAuthorization: Bearer ${token}\r\n` +
            (bytes.length ? `Content-Type: application/json\r\nContent-Length: ${bytes.length}\r\n` : '') +
            '\r\n';
          const raw = await exchange(l.port, Buffer.concat([Buffer.from(head), bytes, Buffer.from(trailer)]));
          const codes = statuses(raw);
          const what = `${route.method} ${target.slice(0, 60)} ${bytes.subarray(0, 20).toString()}`;
          assert.ok(codes.length === 2, `${what}: both answered (${codes.join()})`);
          for (const code of codes) assert.ok(code < 500, `${what}: ${code}`);
          assert.doesNotMatch(raw, /at .*\.ts:\d+|Error:/, 'no stack trace');
        }
    }
    // Bodies that are well-formed but wrong reach the checks: each is a 400 naming its field.
    const rename = await fetch(`${l.url}/api/v1/devices/${device}/rename`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"__proto__": {"admin": true}}',
    });
    assert.equal(rename.status, 400);
    assert.equal(((await rename.json()) as { field: string }).field, '__proto__');
    assert.equal((await fetch(`${l.url}/healthz`)).status, 200, 'still serving');
    const kept = await fetch(`${l.url}/api/v1/devices/${device}`, { headers: { authorization: `Bearer ${token}` } });
    const now = (await kept.json()) as { name: string; revoked_at: string | null };
    assert.deepEqual([now.name, now.revoked_at], ['target', null], 'the device is untouched');
    const run = await fetch(`${l.url}/api/v1/runs/${device}/kept/raw`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(await run.text(), 'kept', 'its run is untouched');
    assert.deepEqual(
      l.logs.filter((r) => r.level === 'error').map((r) => r.event),
      [],
      'no error records',
    );
  } finally {
    await l.close();
  }
});

test('a JSON body that stalls half-sent gets 408 within seconds', async () => {
  const l = await live();
  try {
    const token = await l.accessToken('slow');
    const started = Date.now();
    const out = await new Promise<string>((resolve, reject) => {
      let text = '';
      const socket = connect(l.port, '127.0.0.1', () => {
        socket.write(
          `POST /api/v1/enroll-tokens HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\nAuthorization: Bearer ${token}\r\n` +
            'Content-Type: application/json\r\nContent-Length: 500\r\n\r\n{"uses": 2',
        );
      });
      socket.setEncoding('latin1').on('data', (d: string) => (text += d));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
      setTimeout(() => socket.destroy(), 25_000);
    });
    assert.deepEqual(statuses(out), [408]);
    assert.match(out, /application\/problem\+json/);
    assert.ok(Date.now() - started < 20_000, `answered after ${Date.now() - started} ms`);
    const listed = (await (
      await fetch(`${l.url}/api/v1/enroll-tokens`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as { items: unknown[] };
    assert.deepEqual(listed.items, [], 'nothing was minted');
  } finally {
    await l.close();
  }
});

test('the webhook API with a real endpoint: hostile JSON bodies are refused, naming the field, and change nothing', async () => {
  const l = await live();
  try {
    const token = await l.accessToken('hostile');
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const made = await fetch(`${l.url}/api/v1/webhooks`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ url: 'https://hooks.example.com/in', events: ['device.revoked'] }),
    });
    assert.equal(made.status, 201);
    const { webhook } = (await made.json()) as { webhook: { id: string } };
    const refused: Array<[body: string, status: number, field: string | undefined]> = [
      [JSON.stringify({ url: 'https://a.example/', events: Array(65).fill('*') }), 400, 'events'],
      [JSON.stringify({ url: 'https://a.example/', events: Array(3000).fill('*') }), 413, undefined],
      [JSON.stringify({ url: 'https://a.example/', events: [['*']] }), 400, 'events'],
      [JSON.stringify({ url: 'https://a.example/', events: { 0: '*' } }), 400, 'events'],
      [JSON.stringify({ url: 'https://a.example/', events: ['*', null] }), 400, 'events'],
      [JSON.stringify({ url: 'https://a.example/', events: [] }), 400, 'events'],
      [JSON.stringify({ url: 123, events: ['*'] }), 400, 'url'],
      [JSON.stringify({ url: 'https://127.0.0.1/', events: ['*'] }), 400, 'url'],
      [JSON.stringify({ url: 'https://[::ffff:10.0.0.1]/', events: ['*'] }), 400, 'url'],
      [JSON.stringify({ url: 'file:///etc/passwd', events: ['*'] }), 400, 'url'],
      [JSON.stringify({ url: 'https://a.example/', events: ['*'], description: 'a\u0000b' }), 400, 'description'],
      ['{"url": "https://a.example/", "events": ["*"], "__proto__": {"enabled": false}}', 400, '__proto__'],
      ['{"url": "https://a.example/", "events": ["*"]', 400, undefined],
    ];
    for (const [body, status, field] of refused) {
      const res = await fetch(`${l.url}/api/v1/webhooks`, { method: 'POST', headers: auth, body });
      const problem = (await res.json()) as { status: number; field?: string };
      assert.deepEqual([res.status, problem.field], [status, field], body.slice(0, 80));
    }
    // The endpoint's routes with malformed ids and deliveries, and a body where none is read.
    for (const path of [
      `/api/v1/webhooks/${webhook.id}/deliveries/0/redeliver`,
      `/api/v1/webhooks/${webhook.id}/deliveries/${'9'.repeat(30)}/redeliver`,
      `/api/v1/webhooks/${webhook.id}/deliveries/-1/redeliver`,
      '/api/v1/webhooks/wh_%2E%2E%2F%2E%2E%2Fxxxxxx/test',
      `/api/v1/webhooks/${webhook.id.toUpperCase()}x/delete`,
    ]) {
      const res = await fetch(`${l.url}${path}`, { method: 'POST', headers: auth, body: '{"x": 1}' });
      assert.equal(res.status, 404, path);
    }
    const list = (await (await fetch(`${l.url}/api/v1/webhooks`, { headers: auth })).json()) as {
      items: Array<{ id: string; enabled: boolean }>;
    };
    assert.deepEqual(
      list.items.map((w) => [w.id, w.enabled]),
      [[webhook.id, true]],
      'nothing added or changed',
    );
    assert.deepEqual(
      l.logs.filter((r) => r.level === 'error').map((r) => r.event),
      [],
    );
  } finally {
    await l.close();
  }
});
