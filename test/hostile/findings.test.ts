// Regression tests, one per finding of the black-box probe (issue 12, item 4), against a real
// server on a loopback port, over raw sockets where the finding needs them.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { exchange, type Live, live, statuses } from '../support/live.ts';

let l: Live;
before(async () => {
  l = await live();
});
after(() => l.close());

const CONTRACT_HEADERS = [
  /^content-security-policy: default-src 'none'$/im,
  /^x-content-type-options: nosniff$/im,
  /^x-frame-options: DENY$/im,
  /^referrer-policy: no-referrer$/im,
];

for (const host of ['1.2.3.256', '327.0.0.1', '4294967296', '1.2.3.4.5', '.1']) {
  test(`finding: a Host shaped like a bad IPv4 address (${host}) gets 400, never 500`, async () => {
    for (const path of ['/login', '/', '/v1/discover', '/v1/runs/x', '/no/such/path']) {
      const raw = await exchange(l.port, `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      assert.deepEqual(statuses(raw), [400], `${path}: ${raw}`);
      for (const header of CONTRACT_HEADERS) assert.match(raw, header);
    }
  });
}

test('finding: Expect other than 100-continue gets 417 with the contract headers', async () => {
  const raw = await exchange(
    l.port,
    'POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: nope\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc',
  );
  assert.deepEqual(statuses(raw), [417]);
  for (const header of CONTRACT_HEADERS) assert.match(raw, header);
});

test('finding: an upload is acknowledged exactly when stored (bytes past Content-Length)', async () => {
  const { device, credential } = await l.enroll('short-length');
  const head = `PUT /v1/runs/short HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${credential}\r\nX-Privacy-Level: full\r\nContent-Length: 5\r\n\r\n`;
  const raw = await exchange(l.port, `${head}hello, and more bytes \x01 than declared\r\n\r\n`);
  // The first answer is the upload's own, and it says what happened: the five declared bytes are stored.
  assert.equal(statuses(raw)[0], 201, raw);
  const { cookie } = await l.signIn();
  const view = await (await fetch(`${l.url}/runs/${device}/short`, { headers: { cookie } })).text();
  assert.match(view, /<pre>\n<a id="L1" href="#L1">1<\/a> {2}hello<\/pre>/);
  // The device's retry of the same bytes is the idempotent 200, not a conflict.
  const retry = await fetch(`${l.url}/v1/runs/short`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${credential}`, 'x-privacy-level': 'full' },
    body: 'hello',
  });
  assert.equal(retry.status, 200);
});

for (const [framing, head] of [
  ['a declared length', 'Content-Length: 100\r\n\r\nabc'],
  ['chunks', 'Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n'],
] as const) {
  test(`finding: an aborted body (${framing}) on POST /logout writes no error record and no stack`, async () => {
    const { cookie } = await l.signIn();
    const before = l.logs.length;
    const request = `POST /logout HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${cookie}\r\nContent-Type: application/x-www-form-urlencoded\r\n`;
    await exchange(l.port, request + head, 300);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const records = l.logs.slice(before);
    assert.deepEqual(
      records.filter((r) => r.level === 'error' || 'stack' in r),
      [],
    );
  });
}
