/**
 * Regression tests for security review finding 3 (issue 34), its second half: the attempts of an
 * endpoint told apart a closed port (`connection refused` in 1 ms), a filtered one (`timeout`
 * after 10 s), an unreachable host (`ehostunreach` after 3 s) and a service that speaks no TLS
 * (`err_ssl_wrong_version_number`), so an administrator could scan ports through the server. The
 * console and the API now show a failure's class only, without its duration; an answer keeps its
 * status code, and its duration is rounded. The store and the log keep the detail.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { type AddressInfo, createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { test } from 'node:test';
import { createWebhook, testWebhook } from '../../src/actions/webhooks.ts';
import { CLAIM_MS } from '../../src/domain/webhooks.ts';
import { memoryLogger } from '../../src/log/logger.ts';
import { generateSelfSignedCertificate } from '../../src/tls/self_signed.ts';
import { failureClass, shownDuration } from '../../src/webhooks/outcome.ts';
import { send } from '../../src/webhooks/send.ts';
import { consoleAccessToken, type Harness, harness } from '../support/harness.ts';
import { responseChecker } from '../support/openapi.ts';
import { ACCOUNTS, runScenarios } from '../support/scenario.ts';

/** What the sender recorded (error, duration), and the class the doors show. */
const FAILED: Array<[error: string, durationMs: number, shown: string]> = [
  ['connection refused', 1, 'could not connect'],
  ['ehostunreach', 3012, 'could not connect'],
  ['unknown host', 4, 'could not connect'],
  ['connection reset', 7, 'could not connect'],
  ['timeout', 10_003, 'timed out'],
  ['err_ssl_wrong_version_number', 5, 'TLS failed'],
  ['depth_zero_self_signed_cert', 6, 'TLS failed'],
  ['refused: link-local address', 0, 'refused: address not allowed'],
  ["refused: the URL's address is private", 0, 'refused: address not allowed'],
  ['refused: the URL must be https://', 0, 'refused: URL not allowed'],
];
/** The details that must appear on no page and in no answer. */
const DETAILS = [
  'connection refused',
  'ehostunreach',
  'unknown host',
  'err_ssl',
  'self_signed',
  'link-local',
  'private',
];

/** An endpoint with one delivery per recorded failure, one answered with a 503 in 1234 ms last (the newest). */
async function failedAttempts(h: Harness): Promise<Record<string, string>> {
  const deps = {
    store: h.store,
    logger: memoryLogger(),
    clock: h.clock,
    sealKey: randomBytes(32),
    allowPrivate: false,
  };
  const actor = { subject: ACCOUNTS.admin.subject, admin: true, client: null };
  const made = await createWebhook(deps, actor, {
    url: 'https://hooks.example.com/in',
    events: ['*'],
    description: '',
  });
  assert.ok(made.ok);
  const outcomes = [...FAILED.map(([error, durationMs]) => ({ statusCode: null, error, durationMs })), 503] as const;
  for (const outcome of outcomes) {
    assert.equal(await testWebhook(deps, actor, made.webhook.id), 'done');
    const [claimed] = await h.store.claimDeliveries(h.clock.now(), 1, CLAIM_MS);
    assert.ok(claimed);
    const result = typeof outcome === 'number' ? { statusCode: outcome, error: null, durationMs: 1234 } : outcome;
    const attempt = { seq: claimed.seq, attempt: 1, endpoint: made.webhook.id, at: h.clock.now(), ...result };
    await h.store.finishAttempt(attempt, { kind: 'retry', at: h.clock.now() + 60_000, disableIfFailingSince: 0 });
    h.clock.advance(1000);
  }
  return { id: made.webhook.id };
}

test('finding: each recorded error is shown as its class; an answer keeps its code and a rounded duration', () => {
  for (const [error, , shown] of FAILED) assert.equal(failureClass(error), shown, error);
  for (const error of ['cert_has_expired', 'err_tls_cert_altname_invalid', 'unable_to_verify_leaf_signature', 'eproto'])
    assert.equal(failureClass(error), 'TLS failed', error);
  assert.equal(failureClass('something new'), 'could not connect', 'an unknown error tells nothing');
  assert.deepEqual(
    [0, 7, 42, 99, 1234, 10_003].map((ms) => shownDuration(200, ms)),
    [0, 7, 42, 99, 1200, 10_000],
  );
  assert.equal(shownDuration(null, 3012), null, "a failure's duration is not shown");
});

runScenarios('finding: the attempts are no port scanner', [
  {
    name: "an endpoint's page shows each failure's class, without its detail or duration",
    path: (_h, f) => `/webhooks/${f.id}`,
    as: 'admin',
    setup: failedAttempts,
    status: 200,
    events: [],
    contains: [
      // The newest: the receiver answered, so its code, and its duration rounded.
      /<td>503<\/td>\s*<td>1200 ms<\/td>/,
      /<td>could not connect<\/td>\s*<td>not shown<\/td>/,
      /<td>timed out<\/td>\s*<td>not shown<\/td>/,
      /<td>TLS failed<\/td>\s*<td>not shown<\/td>/,
      /<td>refused: address not allowed<\/td>\s*<td>not shown<\/td>/,
      /<td>refused: URL not allowed<\/td>\s*<td>not shown<\/td>/,
      // The last delivery is the 503.
      /: 503<\/dd>/,
    ],
    notContains: [...DETAILS, '3012 ms', '10003 ms', '1234 ms'],
    after: (_h, _r, body) => assert.equal(body.match(/<td>\d+ ms<\/td>/g)?.length, 1, "one duration: the answer's"),
  },
  {
    name: "the endpoints' list shows the last failure's class only",
    path: '/webhooks',
    as: 'admin',
    setup: async (h) => {
      const fixture = await failedAttempts(h);
      // One more attempt, refused by a closed port.
      const deps = {
        store: h.store,
        logger: memoryLogger(),
        clock: h.clock,
        sealKey: randomBytes(32),
        allowPrivate: false,
      };
      await testWebhook(deps, { subject: ACCOUNTS.admin.subject, admin: true, client: null }, fixture.id ?? '');
      const [claimed] = await h.store.claimDeliveries(h.clock.now(), 1, CLAIM_MS);
      assert.ok(claimed);
      await h.store.finishAttempt(
        {
          seq: claimed.seq,
          attempt: 1,
          endpoint: fixture.id ?? '',
          at: h.clock.now(),
          statusCode: null,
          error: 'connection refused',
          durationMs: 1,
        },
        { kind: 'retry', at: h.clock.now() + 60_000, disableIfFailingSince: 0 },
      );
      return fixture;
    },
    status: 200,
    events: [],
    contains: [/: could not connect</],
    notContains: DETAILS,
  },
]);

test('finding: the API shows the same classes, no failed duration, and answers as its OpenAPI document says', async () => {
  const h = await harness();
  try {
    const { id = '' } = await failedAttempts(h);
    const token = await consoleAccessToken(h, ACCOUNTS.admin);
    const headers = { authorization: `Bearer ${token.value}` };
    const res = await h.request(`/api/v1/webhooks/${id}`, { headers });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    const body = JSON.parse(text) as {
      webhook: { last_outcome: string | null };
      attempts: Array<{ status_code: number | null; error: string | null; duration_ms: number | null }>;
    };
    responseChecker()('GET', '/api/v1/webhooks/{id}', 200, res.headers.get('content-type') ?? '', body);
    assert.deepEqual(
      body.attempts.map((a) => [a.status_code, a.error, a.duration_ms]),
      [[503, null, 1200], ...FAILED.map(([, , shown]) => [null, shown, null]).reverse()],
    );
    assert.equal(body.webhook.last_outcome, '503');
    for (const detail of DETAILS) assert.ok(!text.includes(detail), `the answer holds ${detail}`);
    // The store keeps the detail, for whoever runs the server.
    const stored = await h.store.webhookAttempts(id, 50);
    assert.ok(stored.some((a) => a.error === 'ehostunreach' && a.durationMs === 3012));
  } finally {
    await h.close();
  }
});

async function listening(server: Server | NetServer): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

test('finding: what the sender records of real failures is shown as the class it is', async () => {
  const cert = generateSelfSignedCertificate({
    commonName: 'localhost',
    dnsNames: ['localhost'],
    ipAddresses: ['127.0.0.1'],
    notBefore: new Date(Date.now() - 60_000),
    days: 1,
  });
  const closed = createServer();
  const closedPort = await listening(closed);
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const plain = createServer((_req, res) => res.writeHead(200).end());
  const plainPort = await listening(plain);
  // Accepts and never says a word: not even a TLS handshake.
  const held: Socket[] = [];
  const hanging = createNetServer((socket) => held.push(socket));
  const hangingPort = await listening(hanging);
  const untrusted = createTlsServer({ cert: cert.certPem, key: cert.keyPem }, (_req, res) => res.writeHead(204).end());
  const untrustedPort = await listening(untrusted);
  try {
    const cases: Array<[url: string, allowPrivate: boolean, shown: string]> = [
      [`https://127.0.0.1:${closedPort}/`, true, 'could not connect'],
      [`https://127.0.0.1:${plainPort}/`, true, 'TLS failed'],
      [`https://127.0.0.1:${untrustedPort}/`, true, 'TLS failed'],
      [`https://127.0.0.1:${hangingPort}/`, true, 'timed out'],
      [`https://127.0.0.1:${closedPort}/`, false, 'refused: address not allowed'],
      [`https://[64:ff9b::a9fe:a9fe]:${closedPort}/`, false, 'refused: address not allowed'],
    ];
    for (const [url, allowPrivate, shown] of cases) {
      const result = await send(new URL(url), {}, '{}', { allowPrivate, timeoutMs: 300 });
      assert.ok('error' in result, url);
      assert.equal(failureClass(result.error), shown, `${url}: ${result.error}`);
    }
  } finally {
    for (const server of [plain, untrusted]) server.closeAllConnections();
    for (const socket of held) socket.destroy();
    await Promise.all([plain, hanging, untrusted].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
});
