// Every console route, the fleet console's included, taken from the routes table and attacked on
// raw sockets of a live server: malformed paths and queries, forms that are too many fields or
// cut short, requests pipelined behind them. Nothing answers 500, nothing logs an error, the
// server stays healthy; and a stop while a bulk action runs finishes it and keeps its audit trail.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import { interfaceRoutes } from '../../src/host/interface.ts';
import { exchange, live, statuses } from '../support/live.ts';

/** The route's path with each parameter given `value` (a raw, possibly malformed, path segment). */
const pathWith = (path: string, value: string) => path.replace(/:[a-z]+/g, value);

/**
 * Sends the head and part of a body, then goes away (`end`: half-closed, waiting for an answer;
 * `destroy`: gone); resolves with what the server wrote and when it closed.
 */
function cutShort(
  port: number,
  head: string,
  part: string,
  leave: 'end' | 'destroy',
): Promise<{ out: string; ms: number }> {
  return new Promise((resolve, reject) => {
    let out = '';
    const started = Date.now();
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(head + part);
      setTimeout(() => (leave === 'end' ? socket.end() : socket.destroy()), 100);
    });
    socket.setEncoding('latin1').on('data', (d: string) => (out += d));
    socket.on('close', () => resolve({ out, ms: Date.now() - started }));
    socket.on('error', reject);
  });
}

test('every console route on raw sockets: malformed paths, queries and forms never get a 500 or a stack', async () => {
  const l = await live();
  try {
    const { cookie, csrf } = await l.signIn();
    const { device, credential } = await l.enroll('target');
    await fetch(`${l.url}/v1/runs/kept`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${credential}`, 'x-privacy-level': 'full' },
      body: 'kept',
    });
    const head = (method: string, path: string, extra = '') =>
      `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\nCookie: ${cookie}\r\n${extra}`;
    const tooMany = [`csrf=${csrf}`, 'action=delete', ...Array.from({ length: 70 }, (_, i) => `device=d_${i}`)].join(
      '&',
    );
    for (const route of interfaceRoutes) {
      // 501 is the answer of the sign-in routes (and back-channel logout) when no provider is configured.
      const expected = (code: number) => code < 500 || (code === 501 && /^\/(auth|admin|oidc)\//.test(route.path));
      const targets = [
        pathWith(route.path, '%ZZ'),
        pathWith(route.path, '%00'),
        `${pathWith(route.path, device)}?q=%ZZ&status=%C3%28&before=${'9'.repeat(40)}&since=${'x'.repeat(4000)}`,
        `${pathWith(route.path, device)}?owner=a&owner=b&device=..%2F..%2F&privacy=%00`,
      ];
      for (const target of targets) {
        const body = route.method === 'POST' ? tooMany : '';
        const extra =
          route.method === 'POST'
            ? `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body}`
            : '\r\n';
        // Each malformed request is followed on the same connection by one that must still be answered.
        const raw = await exchange(
          l.port,
          `${head(route.method, target, extra)}GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\nConnection: close\r\n\r\n`,
        );
        const codes = statuses(raw);
        assert.ok(codes.length >= 1, `${route.method} ${target.slice(0, 80)}: answered`);
        for (const code of codes) assert.ok(expected(code), `${route.method} ${target.slice(0, 80)}: ${code}`);
        assert.doesNotMatch(raw, /at .*\.ts:\d+|Error:/, 'no stack trace');
      }
      if (route.method === 'POST') {
        // A form announced longer than what arrives before the client leaves.
        const cut = await cutShort(
          l.port,
          head(
            route.method,
            pathWith(route.path, device),
            'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 500\r\n\r\n',
          ),
          `csrf=${csrf}&device=${device}`,
          'destroy',
        );
        for (const code of statuses(cut.out)) assert.ok(expected(code), `${route.path} cut short: ${code}`);
      }
    }
    assert.equal((await fetch(`${l.url}/healthz`)).status, 200, 'still serving');
    const view = await fetch(`${l.url}/runs/${device}/kept`, { headers: { cookie } });
    assert.equal(view.status, 200, 'the device and its run are untouched');
    assert.deepEqual(
      l.logs.filter((r) => r.level === 'error').map((r) => r.event),
      [],
      'no error records',
    );
  } finally {
    await l.close();
  }
});

test('a form that stalls half-sent gets 408 within seconds, not the five-minute request timeout', async () => {
  const l = await live();
  try {
    const { cookie, csrf } = await l.signIn();
    const head = (path: string) =>
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\nCookie: ${cookie}\r\n` +
      'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 500\r\n\r\n';
    const [bulk, login] = await Promise.all([
      cutShort(l.port, head('/devices/bulk'), `csrf=${csrf}&action=revoke`, 'end'),
      cutShort(l.port, head('/login'), 'username=admin', 'end'),
    ]);
    for (const r of [bulk, login]) {
      assert.deepEqual(statuses(r.out), [408]);
      assert.match(r.out, /request timeout\n$/);
      assert.ok(r.ms < 20_000, `answered after ${r.ms} ms`);
    }
  } finally {
    await l.close();
  }
});

test('a stop while a bulk delete runs: the request completes, and every deletion is in the audit trail', async () => {
  const l = await live();
  let closed = false;
  try {
    const { cookie, csrf } = await l.signIn();
    const { device, credential } = await l.enroll('bulk-target');
    const ids = Array.from({ length: 50 }, (_, i) => `bulk-${i}`);
    for (const id of ids)
      await fetch(`${l.url}/v1/runs/${id}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${credential}`, 'x-privacy-level': 'minimal' },
        body: id,
      });
    const body = new URLSearchParams([
      ['csrf', csrf],
      ['action', 'delete'],
      ...ids.map((id): [string, string] => ['run', `${device}/${id}`]),
    ]);
    const pending = fetch(`${l.url}/runs/bulk`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
      redirect: 'manual',
    });
    // The stop comes once the bulk delete is under way (its first deletion logged): a fixed wait
    // could stop the server before the request had even arrived, on a busy machine.
    const started = Date.now();
    while (!l.logs.some((r) => r.event === 'run.deleted' && r.device === device) && Date.now() - started < 10_000)
      await new Promise((resolve) => setImmediate(resolve));
    const stopping = l.server.close();
    const res = await pending;
    assert.equal(res.status, 303, 'the bulk action in flight is finished, not cut');
    await stopping;
    closed = true;
    const deleted = l.logs.filter((r) => r.event === 'run.deleted' && r.device === device).length;
    assert.equal(deleted, 50);
    const { openSqliteStore } = await import('../../src/store/sqlite/store.ts');
    const store = openSqliteStore(l.dataDir);
    try {
      const trail = [];
      for await (const batch of store.auditBatches({ event: 'run.deleted', device }, 100)) trail.push(...batch);
      assert.equal(trail.length, 50, 'each item of the bulk action is its own audit record, flushed before the stop');
      assert.deepEqual((await store.runsVisibleTo({ subject: 'x', admin: true }, { limit: 60 }, { device })).items, []);
    } finally {
      await store.close();
    }
  } finally {
    if (!closed) await l.server.close().catch(() => undefined);
    await l.close().catch(() => undefined);
  }
});

test('the webhook routes on raw sockets, with a real endpoint: hostile forms are refused and change nothing', async () => {
  const l = await live();
  try {
    const { cookie, csrf } = await l.signIn();
    const made = await fetch(`${l.url}/webhooks`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, url: 'https://hooks.example.com/in', event: 'device.revoked' }).toString(),
    });
    assert.equal(made.status, 200);
    const list = await (await fetch(`${l.url}/webhooks`, { headers: { cookie } })).text();
    const id = /href="\/webhooks\/(wh_[A-Za-z0-9_-]{16})"/.exec(list)?.[1] ?? '';
    assert.ok(id, 'the endpoint is listed');
    const routes = interfaceRoutes.filter((r) => r.path.startsWith('/webhooks'));
    // Nine, and the delete's confirmation page (docs/contract.md section 22).
    assert.equal(routes.length, 10, 'every webhook route of the table');
    const forms = [
      // 70 fields: more than a form may hold.
      [`csrf=${csrf}`, 'url=https%3A%2F%2Fa.example%2F', ...Array.from({ length: 70 }, () => 'event=*')].join('&'),
      `csrf=${csrf}&url=%00&event=*`,
      `csrf=${csrf}&url=javascript%3Aalert(1)&event=*`,
      `csrf=${csrf}&url=https%3A%2F%2Fu%3Ap%40a.example%2F&event=*`,
      `csrf=${csrf}&url=https%3A%2F%2F${'a'.repeat(5000)}.example%2F&event=*`,
      `csrf=${csrf}&url=https%3A%2F%2F%5B%3A%3Affff%3A127.0.0.1%5D%2F&event=*`,
      `csrf=${csrf}&url=https%3A%2F%2Fa.example%2F&event=%C3%28`,
      `csrf=${csrf}&url=https%3A%2F%2Fa.example%2F&event=*&description=a%0D%0AX-Injected%3A%201`,
      `csrf=${csrf}&url=https%3A%2F%2Fa.example%2F&url=https%3A%2F%2Fb.example%2F&event=*`,
      `csrf=${csrf}&event=${encodeURIComponent('<script>')}`,
    ];
    for (const route of routes)
      // The real endpoint is deleted only at the end, by hand: every other route meets it.
      for (const value of route.path.endsWith('/delete')
        ? ['%ZZ', '%00', 'wh_AAAAAAAAAAAAAAAA', '..%2F..%2F']
        : [id, '%ZZ', '%00', 'wh_AAAAAAAAAAAAAAAA', '..%2F..%2F'])
        for (const body of route.method === 'POST' ? forms : ['']) {
          const target = route.path
            .replace(':id', value)
            .replace(':delivery', value === id ? '99999999999999999' : value);
          const extra =
            route.method === 'POST'
              ? `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
              : '\r\n';
          const raw = await exchange(
            l.port,
            `${route.method} ${target} HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\nCookie: ${cookie}\r\n${extra}` +
              `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\nConnection: close\r\n\r\n`,
          );
          const codes = statuses(raw);
          const what = `${route.method} ${target.slice(0, 60)} ${body.slice(44, 90)}`;
          assert.equal(codes.length, 2, `${what}: both answered (${codes.join()})`);
          // Only the actions of a known endpoint, with a form that parses, may succeed.
          for (const code of codes) assert.ok(code < 500, `${what}: ${code}`);
          if (route.path === '/webhooks' && route.method === 'POST') assert.ok(codes[0] !== 200, `${what}: refused`);
          assert.doesNotMatch(raw, /at .*\.ts:\d+|Error:|<script>/, 'no stack trace, no markup echoed');
          // A refused form is shown as sent (docs/contract.md section 22): the description may be in
          // its field, escaped, but never in a header.
          const heads = raw.split('HTTP/1.1 ').map((answer) => answer.split('\r\n\r\n')[0] ?? '');
          for (const head of heads) assert.doesNotMatch(head, /X-Injected/, 'nothing injected into a header');
        }
    const after = await (await fetch(`${l.url}/webhooks`, { headers: { cookie } })).text();
    assert.deepEqual(
      [...after.matchAll(/href="\/webhooks\/(wh_[^"]+)"/g)].map((m) => m[1]),
      [id],
      'no endpoint was added or lost',
    );
    assert.equal((await fetch(`${l.url}/healthz`)).status, 200, 'still serving');
    assert.deepEqual(
      l.logs.filter((r) => r.level === 'error').map((r) => r.event),
      [],
      'no error records',
    );
  } finally {
    await l.close();
  }
});
