// POST /v1/credential (docs/contract.md section 16) as an attacker and a bad network would send it,
// on raw sockets of a live server: malformed credentials, bodies and framing get a precise 4xx,
// never a 500 or a stack, and rotate nothing; a body cut short rotates nothing; a rotation whose
// answer is never read leaves the device a credential that works, and asking again gets it; a
// thief's rotation with a copy, then the real device's flood with the credential it replaced:
// every answer 401, the device pending, one record and one delivery, neither copy let through.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import { exchange, live, statuses } from '../support/live.ts';
import { receiver } from '../webhooks/world.ts';

/** Sends `bytes`, then goes away before reading anything. */
function sendAndLeave(port: number, bytes: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(bytes);
      setTimeout(() => socket.destroy(), 50);
    });
    socket.on('close', () => resolve());
    socket.on('error', reject);
  });
}

test('POST /v1/credential on raw sockets: a precise 4xx for each malformed request, nothing rotated, no 500', async () => {
  const l = await live();
  try {
    const d = await l.enroll();
    const auth = `Authorization: Bearer ${d.credential}\r\n`;
    const head = (line: string, extra = '') => `${line} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}`;
    const post = (extra: string, body: string) =>
      `${head('POST /v1/credential', `${auth}${extra}`)}Content-Length: ${Buffer.byteLength(body, 'latin1')}\r\n\r\n${body}`;
    // null: the connection may be closed without an answer (Node's parser refuses the framing).
    const cases: Array<[string, string, number | null]> = [
      ['no credential', `${head('POST /v1/credential')}Content-Length: 0\r\n\r\n`, 401],
      [
        'a credential of 44 characters',
        `${head('POST /v1/credential', `Authorization: Bearer ${d.credential}x\r\n`)}Content-Length: 0\r\n\r\n`,
        401,
      ],
      [
        'a credential in another scheme',
        `${head('POST /v1/credential', `Authorization: Basic ${d.credential}\r\n`)}Content-Length: 0\r\n\r\n`,
        401,
      ],
      [
        'a credential with a NUL',
        `${head('POST /v1/credential', `Authorization: Bearer ${d.credential.slice(0, 42)}%00\r\n`)}Content-Length: 0\r\n\r\n`,
        401,
      ],
      ['GET', `${head('GET /v1/credential', auth)}\r\n`, 405],
      ['PUT', `${head('PUT /v1/credential', auth)}Content-Length: 0\r\n\r\n`, 405],
      ['a path below it', `${head('POST /v1/credential/x', auth)}Content-Length: 0\r\n\r\n`, 404],
      ['a field', post('Content-Type: application/json\r\n', '{"credential":"chosen-by-me"}'), 400],
      ['a JSON string', post('', '"{}"'), 400],
      ['null', post('', 'null'), 400],
      ['bad UTF-8', post('', '\xff\xfe{}'), 400],
      ['a body of 9 KiB', post('', `{"x":"${'y'.repeat(9_300)}"}`), 413],
      [
        'a declared length of 10^20',
        `${head('POST /v1/credential', auth)}Content-Length: 100000000000000000000\r\n\r\n`,
        400,
      ],
      [
        'chunked, with a field',
        `${head('POST /v1/credential', auth)}Transfer-Encoding: chunked\r\n\r\n5\r\n{"a":\r\n3\r\n 1}\r\n0\r\n\r\n`,
        400,
      ],
      [
        'chunked, malformed',
        `${head('POST /v1/credential', auth)}Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
        null,
      ],
    ];
    for (const [why, bytes, status] of cases) {
      const raw = await exchange(
        l.port,
        `${bytes}${head('GET /healthz', 'Connection: close\r\n')}\r\n`,
        status === null ? 1_000 : 3_000,
      );
      const codes = statuses(raw);
      if (status === null)
        assert.ok(
          codes.every((code) => code >= 400 && code < 500),
          `${why}: ${codes.join()}`,
        );
      else assert.equal(codes[0], status, `${why}: ${raw.slice(0, 300)}`);
      assert.ok(!codes.includes(500), why);
      assert.doesNotMatch(raw, /at .*\.ts:\d+|Error:/, `${why}: no stack`);
    }
    // A body cut short: the connection goes, nothing is rotated.
    await sendAndLeave(l.port, `${head('POST /v1/credential', auth)}Content-Length: 2\r\n\r\n{`);
    assert.equal(l.logs.filter((r) => r.event === 'device.credential_rotated').length, 0, 'nothing rotated');
    assert.equal(
      l.logs.filter((r) => r.level === 'error').length,
      0,
      JSON.stringify(l.logs.filter((r) => r.level === 'error')),
    );

    // A rotation whose answer the device never reads: its old credential still works, and asking
    // again with it answers the credential it missed.
    await sendAndLeave(l.port, post('', ''));
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(l.logs.filter((r) => r.event === 'device.credential_rotated').length, 1, 'the lost rotation happened');
    const again = await fetch(`${l.url}/v1/credential`, {
      method: 'POST',
      headers: { authorization: `Bearer ${d.credential}` },
    });
    assert.equal(again.status, 201);
    const { credential } = (await again.json()) as { credential: string };
    const upload = await fetch(`${l.url}/v1/runs/after`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${credential}`, 'x-privacy-level': 'full' },
      body: 'x',
    });
    assert.equal(upload.status, 201);
    assert.equal(l.logs.filter((r) => r.event === 'device.credential_rotated').length, 1, 'one rotation in all');
    assert.equal((await fetch(`${l.url}/healthz`)).status, 200);
  } finally {
    await l.close();
  }
});

test("reuse is theft, on a live server: a thief's rotation, the real device's flood with the old credential, a hook that hears it once", async () => {
  const l = await live({ PADDOCK_WEBHOOK_ALLOW_PRIVATE: 'true' });
  let secret = '';
  const hook = await receiver(() => [secret]);
  try {
    const token = await l.accessToken();
    const made = await fetch(`${l.url}/api/v1/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: hook.url, events: ['device.credential_reused'] }),
    });
    assert.equal(made.status, 201, await made.clone().text());
    secret = ((await made.json()) as { secret: string }).secret;
    const real = await l.enroll('the-real-one');
    const bearer = (credential: string) => ({ authorization: `Bearer ${credential}` });
    const put = (credential: string, id: string) =>
      fetch(`${l.url}/v1/runs/${id}`, {
        method: 'PUT',
        headers: { ...bearer(credential), 'x-privacy-level': 'full' },
        body: id,
      });
    const rotate = (credential: string) =>
      fetch(`${l.url}/v1/credential`, { method: 'POST', headers: bearer(credential) });

    // The thief holds a copy: it rotates, chains rotations to keep the credential young, and uses it.
    const first = await rotate(real.credential);
    assert.equal(first.status, 201);
    const { credential: thief } = (await first.json()) as { credential: string };
    const chained = await Promise.all(Array.from({ length: 50 }, () => rotate(thief)));
    for (const res of chained) {
      assert.equal(res.status, 201);
      assert.equal(((await res.json()) as { credential: string }).credential, thief, 'at most one rotation a minute');
    }
    assert.equal((await put(thief, 'thief-1')).status, 201);

    // The real device, with what it holds: a flood on every route, raw and fetched.
    const raw = `PUT /v1/runs/raw HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${real.credential}\r\nX-Privacy-Level: full\r\nContent-Length: 1\r\n\r\nx`;
    const answers = await Promise.all([
      ...Array.from({ length: 100 }, (_, i) => put(real.credential, `real-${i}`).then((r) => r.status)),
      ...Array.from({ length: 20 }, () => rotate(real.credential).then((r) => r.status)),
      fetch(`${l.url}/v1/requests?wait=5`, { headers: bearer(real.credential) }).then((r) => r.status),
      exchange(l.port, raw, 3_000).then((text) => statuses(text)[0]),
    ]);
    assert.deepEqual(new Set(answers), new Set([401]), 'each refused with 401');
    const [delivered] = await hook.waitFor(1);
    assert.equal(delivered?.payload.type, 'device.credential_reused');
    assert.equal(delivered?.payload.data.device, real.device);

    // Neither copy reaches anything until an administrator decides.
    assert.equal((await put(thief, 'thief-2')).status, 403);
    assert.equal((await rotate(thief)).status, 403);
    const facts = await fetch(`${l.url}/v1/device/facts`, {
      method: 'PUT',
      headers: { ...bearer(thief), 'content-type': 'application/json' },
      body: '{"os":"stolen"}',
    });
    assert.equal(facts.status, 403);
    const shown = await fetch(`${l.url}/api/v1/devices/${real.device}`, { headers: bearer(token) });
    const json = (await shown.json()) as { status: string; pending_reason: string | null };
    assert.deepEqual([json.status, json.pending_reason], ['pending', 'credential reused']);

    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(hook.received.length, 1, 'delivered once');
    assert.equal(l.logs.filter((r) => r.event === 'device.credential_reused').length, 1, 'logged once');
    assert.equal(l.logs.filter((r) => r.event === 'device.credential_rotated').length, 1, 'one rotation');
    assert.equal(l.logs.filter((r) => r.level === 'error').length, 0);
    const audit = await fetch(`${l.url}/api/v1/audit?event=device.credential_reused`, { headers: bearer(token) });
    assert.equal(((await audit.json()) as { items: unknown[] }).items.length, 1, 'audited once');

    // Rejected: revoked, and both copies are unknown alike.
    const rejected = await fetch(`${l.url}/api/v1/devices/${real.device}/reject`, {
      method: 'POST',
      headers: bearer(token),
    });
    assert.equal(rejected.status, 204, await rejected.clone().text());
    assert.deepEqual([(await put(thief, 'thief-3')).status, (await put(real.credential, 'real-x')).status], [401, 401]);
    assert.equal((await fetch(`${l.url}/healthz`)).status, 200);
  } finally {
    await hook.close();
    await l.close();
  }
});
