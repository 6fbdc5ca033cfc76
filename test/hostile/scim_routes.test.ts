// Every SCIM route (docs/contract.md section 20), taken from its routes table and attacked on raw
// sockets of a live server: without a token, with a wrong one, with a write token (not of the scim
// scope); with the scim token, hostile paths and bodies (cut, deep, huge, prototype keys, bytes
// that are not UTF-8, at the size limit and one byte past it), a request pipelined behind each,
// and a body that stalls. Nothing answers 500 or shows a stack, nothing changes, the server stays
// healthy.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import { SCIM_BODY_LIMIT } from '../../src/scim/body.ts';
import { scimRoutes } from '../../src/scim/routes.ts';
import { exchange, live, statuses } from '../support/live.ts';

const pathWith = (path: string, value: string) => path.replace(/:[a-z]+/g, value);

/** A body of exactly `size` bytes that is a valid user (a long displayName pads it). */
function userOfSize(size: number): string {
  const shell = JSON.stringify({ userName: 'limit@example.com', title: '' });
  return JSON.stringify({ userName: 'limit@example.com', title: 'x'.repeat(size - shell.length) });
}

const BODIES: Array<string | Buffer> = [
  '{"userName": "cut',
  `${'['.repeat(4000)}${']'.repeat(4000)}`,
  '{"userName": 1e400, "active": -0.5}',
  '{"__proto__": {"admin": true}, "constructor": {"prototype": {"admin": true}}}',
  Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
  'null',
  '"a string"',
  '{"Operations": [{"op": "replace", "path": "members[value eq \\"x\\" or value pr]", "value": 1}]}',
  '{"Operations": [{"op": "add", "path": "emails[type eq \\"work\\"].value", "value": {"deep": [[[[]]]]}}]}',
  `{"displayName": "${'x'.repeat(SCIM_BODY_LIMIT)}"}`,
];

test('every SCIM route on raw sockets: hostile requests never get a 500, a stack, or a change', async () => {
  const l = await live();
  try {
    const scim = await l.accessToken('idp', 'scim');
    const write = await l.accessToken('writer');
    const id = '00000000-0000-4000-8000-000000000000';
    const trailer = `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\nConnection: close\r\n\r\n`;
    assert.ok(scimRoutes.length >= 15);
    for (const route of scimRoutes) {
      // Without the scim token: 401 with the challenge, whatever the body.
      for (const auth of [
        '',
        `Authorization: Bearer ${write}\r\n`,
        'Authorization: Bearer pdk_wrong\r\n',
        'Authorization: Basic YTpi\r\n',
      ]) {
        const raw = await exchange(
          l.port,
          `${route.method} ${pathWith(route.path, id)} HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\n${auth}Content-Type: application/scim+json\r\nContent-Length: 2\r\n\r\n{}${trailer}`,
        );
        assert.deepEqual(statuses(raw), [401, 200], `${route.method} ${route.path} ${auth.slice(0, 30)}`);
        assert.match(raw, /WWW-Authenticate: Bearer/i);
      }
      const targets = [
        pathWith(route.path, '%ZZ'),
        pathWith(route.path, '%00'),
        pathWith(route.path, '..%2F..%2Fetc'),
        `${pathWith(route.path, id)}?filter=${encodeURIComponent('userName eq "a" or x')}&count=-9&startIndex=99999999999`,
        `${pathWith(route.path, id)}?filter=%C3%28&filter=a&excludedAttributes=%00`,
      ];
      const bodies = route.method === 'GET' || route.method === 'DELETE' ? [''] : BODIES;
      for (const target of targets)
        for (const body of bodies) {
          const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
          const head =
            `${route.method} ${target} HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\nAuthorization: Bearer ${scim}\r\n` +
            (bytes.length ? `Content-Type: application/scim+json\r\nContent-Length: ${bytes.length}\r\n` : '') +
            '\r\n';
          const raw = await exchange(l.port, Buffer.concat([Buffer.from(head), bytes, Buffer.from(trailer)]));
          const codes = statuses(raw);
          const what = `${route.method} ${target.slice(0, 60)} ${bytes.subarray(0, 20).toString()}`;
          assert.ok(codes.length >= 1, `${what}: answered (${codes.join()})`);
          for (const code of codes) assert.ok(code < 500, `${what}: ${code}`);
          assert.doesNotMatch(raw, /at .*\.ts:\d+|Error:/, 'no stack trace');
        }
    }
    // A body at the limit is read (and stored); one byte more is 413, nothing stored.
    const post = (body: string) =>
      fetch(`${l.url}/scim/v2/Users`, {
        method: 'POST',
        headers: { authorization: `Bearer ${scim}`, 'content-type': 'application/scim+json' },
        body,
      });
    const atLimit = userOfSize(SCIM_BODY_LIMIT);
    assert.equal(Buffer.byteLength(atLimit), SCIM_BODY_LIMIT);
    const refused = await post(userOfSize(SCIM_BODY_LIMIT + 1));
    assert.equal(refused.status, 413);
    assert.equal(((await refused.json()) as { status: string }).status, '413');
    // A value past the longest kept is an invalidValue, not a stored megabyte.
    const long = await post(atLimit);
    assert.equal(long.status, 400);
    assert.equal(((await long.json()) as { scimType: string }).scimType, 'invalidValue');
    const users = (await (
      await fetch(`${l.url}/scim/v2/Users`, { headers: { authorization: `Bearer ${scim}` } })
    ).json()) as { totalResults: number };
    assert.equal(users.totalResults, 0, 'nothing was provisioned');
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

test('a SCIM body that stalls half-sent gets 408 within seconds, and nothing is provisioned', async () => {
  const l = await live();
  try {
    const scim = await l.accessToken('idp', 'scim');
    const started = Date.now();
    const out = await new Promise<string>((resolve, reject) => {
      let text = '';
      const socket = connect(l.port, '127.0.0.1', () => {
        socket.write(
          `POST /scim/v2/Users HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\nAuthorization: Bearer ${scim}\r\n` +
            'Content-Type: application/scim+json\r\nContent-Length: 500\r\n\r\n{"userName": "slow',
        );
      });
      socket.setEncoding('latin1').on('data', (d: string) => (text += d));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
      setTimeout(() => socket.destroy(), 25_000);
    });
    assert.deepEqual(statuses(out), [408]);
    assert.match(out, /application\/scim\+json/);
    assert.ok(Date.now() - started < 20_000, `answered after ${Date.now() - started} ms`);
    const users = (await (
      await fetch(`${l.url}/scim/v2/Users`, { headers: { authorization: `Bearer ${scim}` } })
    ).json()) as { totalResults: number };
    assert.equal(users.totalResults, 0);
  } finally {
    await l.close();
  }
});
