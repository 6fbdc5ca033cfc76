// Security review finding 6 (issue 34): no minimum body rate on POST /v1/enroll, POST /logout and
// PUT /v1/runs/{id} with a declared length of 64 KiB or less. A body declared as 1,000 bytes and
// sent as 5 held each of them open for minutes (and a device's upload slot with it), and a client
// that half-closed went unnoticed. Against a live server, over raw sockets, the stalls in parallel.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, suite, test } from 'node:test';
import { controlRoutes } from '../../src/control/routes.ts';
import { DEFAULT_UPLOAD_LIMITS } from '../../src/control/upload_budget.ts';
import { interfaceRoutes } from '../../src/host/interface.ts';
import { MIN_BODY_RATE } from '../../src/http/body.ts';
import { type Live, live, statuses } from '../support/live.ts';

/** What every stall must be answered within: the rule's 10 s and its last second, with room for a loaded machine. */
const ANSWERED_WITHIN = 15_000;
const SLOTS = DEFAULT_UPLOAD_LIMITS.deviceUploads;

let l: Live;
before(async () => {
  l = await live();
});
after(() => l.close());

interface Sent {
  out: string;
  /** From connecting until the server closed the connection (or `giveUpMs` passed). */
  ms: number;
}

/** Sends `bytes`, then half-closes (`end`) or waits; resolves with what the server wrote. */
function send(bytes: string, leave: 'end' | 'wait', giveUpMs = 25_000): Promise<Sent> {
  return new Promise((resolve, reject) => {
    let out = '';
    const started = Date.now();
    const socket = connect(l.port, '127.0.0.1', () => {
      socket.write(bytes);
      if (leave === 'end') setTimeout(() => socket.end(), 100);
    });
    const timer = setTimeout(() => socket.destroy(), giveUpMs);
    socket.setEncoding('latin1').on('data', (d: string) => (out += d));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ out, ms: Date.now() - started });
    });
    socket.on('error', reject);
  });
}

/** A request head declaring 1,000 bytes of body, and the 5 that are all it sends. */
function declared1000(method: string, path: string, headers: Record<string, string>): string {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\n${lines.join('')}Content-Length: 1000\r\n\r\n12345`;
}

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
const JSON_TYPE = { 'Content-Type': 'application/json' };

/** The routes the finding names, and the two that already answered 408, each stalled the same way. */
async function findingRoutes(leave: 'end' | 'wait') {
  const { device, credential } = await l.enroll(`stalled-${leave}`);
  const { cookie } = await l.signIn();
  const token = await l.accessToken(`stalled-${leave}`);
  const upload = (id: string) =>
    declared1000('PUT', `/v1/runs/${id}`, { Authorization: `Bearer ${credential}`, 'X-Privacy-Level': 'full' });
  const requests: Array<[string, string]> = [
    ['POST /v1/enroll', declared1000('POST', '/v1/enroll', JSON_TYPE)],
    ['POST /logout', declared1000('POST', '/logout', { ...FORM, Cookie: cookie })],
    ['POST /login', declared1000('POST', '/login', FORM)],
    [
      'POST /api/v1/enroll-tokens',
      declared1000('POST', '/api/v1/enroll-tokens', { ...JSON_TYPE, Authorization: `Bearer ${token}` }),
    ],
    // Every upload slot of the device.
    ...Array.from({ length: SLOTS }, (_, i): [string, string] => [
      `PUT /v1/runs/${leave}-${i}`,
      upload(`${leave}-${i}`),
    ]),
  ];
  return { device, credential, cookie, token, requests };
}

function putRun(credential: string, id: string): Promise<Response> {
  return fetch(`${l.url}/v1/runs/${id}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${credential}`, 'x-privacy-level': 'full' },
    body: 'a whole run',
  });
}

function assert408(name: string, sent: Sent): void {
  assert.deepEqual(statuses(sent.out), [408], `${name}: ${sent.out.slice(0, 200)}`);
  if (name.startsWith('POST /api/')) assert.match(sent.out, /application\/problem\+json/, name);
  else assert.match(sent.out, name.startsWith('PUT') ? /too slowly/ : /request timeout\n$/, name);
}

suite('finding 6 (issue 34): a minimum body rate on every route that reads a body', { concurrency: true }, () => {
  test('declared 1,000 bytes, sent 5: 408 within 15 s on each route, and the stalled uploads give back their slots', async () => {
    const { device, credential, cookie, token, requests } = await findingRoutes('wait');
    const stalls = requests.map(([, bytes]) => send(bytes, 'wait'));
    // While they stall, the device's slots are theirs (the premise of the last assertion).
    let busy = 0;
    for (let i = 0; i < 20 && busy !== 429; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      busy = (await putRun(credential, `during-${i}`)).status;
    }
    assert.equal(busy, 429, 'every slot of the device is held by a stalled upload');

    const sent = await Promise.all(stalls);
    for (const [i, [name]] of requests.entries()) {
      const { ms } = sent[i] as Sent;
      assert408(name, sent[i] as Sent);
      assert.ok(ms >= MIN_BODY_RATE.graceMs && ms < ANSWERED_WITHIN, `${name}: answered after ${ms} ms`);
    }
    assert.equal((await putRun(credential, 'after')).status, 201, 'the slots are free again');
    const stalled = await fetch(`${l.url}/api/v1/runs/${device}/wait-0/raw`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(stalled.status, 404, 'nothing of a stalled upload is stored');
    const page = await fetch(`${l.url}/devices`, { headers: { cookie } });
    assert.equal(page.status, 200, 'a stalled sign-out ends no session');
  });

  test('declared 1,000 bytes, sent 5, then half-closed: 408 at once on each route, and the slots are free', async () => {
    const { credential, requests } = await findingRoutes('end');
    const sent = await Promise.all(requests.map(([, bytes]) => send(bytes, 'end', 5_000)));
    for (const [i, [name]] of requests.entries()) {
      assert408(name, sent[i] as Sent);
      assert.ok((sent[i] as Sent).ms < 3_000, `${name}: answered after ${(sent[i] as Sent).ms} ms`);
    }
    // A chunked body has no length to fall short of: cut by the half-close, its connection is dropped.
    const chunked = await send(
      `PUT /v1/runs/chunked HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\nAuthorization: Bearer ${credential}\r\n` +
        'X-Privacy-Level: full\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n12345\r\n',
      'end',
      5_000,
    );
    assert.ok(chunked.ms < 3_000, `chunked: closed after ${chunked.ms} ms`);
    assert.deepEqual(statuses(chunked.out), [], 'nothing is answered for a body that cannot be known whole');
    assert.equal((await putRun(credential, 'after')).status, 201, 'the slots are free again');
  });

  test('every POST and PUT route of the routes tables: a stalled body holds none of them past the rule', async () => {
    const { credential } = await l.enroll('every-route');
    const { cookie } = await l.signIn();
    const token = await l.accessToken('every-route');
    const routes = [
      ...interfaceRoutes,
      ...controlRoutes.map((r) => ({ ...r, access: r.path === '/v1/enroll' ? 'none' : 'device' })),
    ].filter((r) => r.method === 'POST' || r.method === 'PUT');
    const headers = (access: string, path: string): Record<string, string> => {
      if (access === 'device') return { Authorization: `Bearer ${credential}`, 'X-Privacy-Level': 'full' };
      if (access === 'token') return { ...JSON_TYPE, Authorization: `Bearer ${token}` };
      if (path === '/v1/enroll') return JSON_TYPE;
      return { ...FORM, Cookie: cookie };
    };
    const sent = await Promise.all(
      routes.map((r) =>
        send(declared1000(r.method, r.path.replace(/:[a-z]+/g, 'nothing'), headers(r.access, r.path)), 'wait'),
      ),
    );
    for (const [i, r] of routes.entries()) {
      const { out, ms } = sent[i] as Sent;
      const [status] = statuses(out);
      // A route that reads its body answers 408; one that answers without it (the back-channel logout
      // without a provider: 501), long before the rule's grace.
      const ok = status === 408 ? ms < ANSWERED_WITHIN : status !== undefined && ms < MIN_BODY_RATE.graceMs;
      assert.ok(ok, `${r.method} ${r.path}: ${status} after ${ms} ms`);
    }
    assert.deepEqual(
      l.logs.filter((r) => r.level === 'error').map((r) => r.event),
      [],
      'no error records (no 500)',
    );
  });
});
