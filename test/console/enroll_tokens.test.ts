// Enrollment under control (docs/contract.md section 9): minting with every field, the outstanding tokens
// page, revoking a token; CSRF before the admin check; no token value on a page after the mint or
// in a log record.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { secretHash } from '../../src/crypto/random.ts';
import { form, harness, type Harness } from '../support/harness.ts';
import { ACCOUNTS, runScenarios, type Scenario } from '../support/scenario.ts';

const admin = { subject: 'local:admin', admin: true };
const tokenIn = (body: string) => /token=([A-Za-z0-9_-]{43})/.exec(body)?.[1] ?? '';
const enroll = (h: Harness, token: string, name?: string) =>
  h.control('/v1/enroll', { method: 'POST', body: JSON.stringify({ token, name }) });

/** Tokens in every state, minted in the store: only `outstanding` and `partly` are outstanding. */
async function tokensInEveryState(h: Harness) {
  const now = h.clock.now();
  const mint = (hash: string, fields: { expiresAt?: number; uses?: number; note?: string; name?: string } = {}) =>
    h.store.createEnrollToken({
      hash,
      owner: 'oidc:user-1',
      createdBy: 'local:admin',
      createdAt: now,
      expiresAt: now + 3_600_000,
      ...fields,
    });
  const outstanding = await mint('h-outstanding', { note: 'for the <lab>', name: 'Lab scanner' });
  const partly = await mint('h-partly', { uses: 3 });
  await h.store.enrollDevice({ tokenHash: 'h-partly', now, deviceId: 'd_p', name: 'p', credentialHash: 'c_p' });
  const used = await mint('h-used');
  await h.store.enrollDevice({ tokenHash: 'h-used', now, deviceId: 'd_u', name: 'u', credentialHash: 'c_u' });
  const revoked = await mint('h-revoked');
  await h.store.revokeEnrollToken(revoked.publicId, now);
  const expired = await mint('h-expired', { expiresAt: now - 1 });
  return {
    outstanding: outstanding.publicId,
    partly: partly.publicId,
    used: used.publicId,
    revoked: revoked.publicId,
    expired: expired.publicId,
  };
}

/** Every bad value of every mint field: 400, the message names the field, nothing minted. */
const badFields: Array<[field: string, value: string]> = [
  ['expires_in', '599'],
  ['expires_in', '2592001'],
  ['expires_in', 'soon'],
  ['expires_in', '1e3'],
  ['expires_in', '-600'],
  ['expires_in', '3600.5'],
  ['uses', '0'],
  ['uses', '1001'],
  ['uses', 'many'],
  ['uses', '+2'],
  ['name', 'x'.repeat(129)],
  ['name', 'evil\u202eeman'],
  ['name', 'zero\u200bwidth'],
  ['note', 'n'.repeat(201)],
  ['note', 'two\nlines'],
  ['max_privacy', 'secret'],
  ['max_privacy', 'FULL'],
];

runScenarios('enroll tokens', [
  {
    name: 'mint with every field: the link once, uses, name, note, ceiling and labels shown; logged without the token',
    method: 'POST',
    path: '/enroll-tokens',
    as: 'admin',
    form: {
      csrf: '$csrf',
      owner: 'oidc:user-1',
      expires_in: '3600',
      uses: '3',
      name: 'Line 4 scanner',
      note: 'bench <4>',
      max_privacy: 'redacted',
      labels: 'site=berlin\r\n\r\n  line=3  \r\n',
    },
    status: 200,
    events: ['enroll_token.minted'],
    headersMatch: { 'content-type': /^text\/html/, 'cache-control': /^no-store$/ },
    contains: [
      /paddock:\/\/enroll\?server=127\.0\.0\.1:8080&amp;pin=sha256\/A{43}=&amp;token=[A-Za-z0-9_-]{43}&amp;max_privacy=redacted</,
      'up to 3 devices',
      '<time datetime="2026-11-22T13:00:00.000Z"',
      'Line 4 scanner',
      'bench &lt;4&gt;',
      '<dd>redacted</dd>',
      '<dd>3</dd>',
      '<code>line=3</code>',
      '<code>site=berlin</code>',
      'href="/enroll-tokens"',
    ],
    notContains: ['<script', 'style='],
    logs: [
      {
        event: 'enroll_token.minted',
        account: 'local:admin',
        client: '203.0.113.7',
        owner: 'oidc:user-1',
        uses: 3,
        max_privacy: 'redacted',
        approval: 'automatic',
      },
    ],
    after: async (h, _r, body) => {
      const token = tokenIn(body);
      const [listed] = (await h.store.outstandingEnrollTokens({ limit: 10 }, h.clock.now())).items;
      assert.equal(h.logs[0]?.token, listed?.publicId, 'the record names the token by its public id');
      assert.ok(listed?.publicId, 'the token is listed');
      assert.ok(!body.includes(listed.publicId), 'the result page needs no public id');
      assert.deepEqual(
        { ...listed, publicId: '', labels: { ...listed?.labels } },
        {
          publicId: '',
          owner: 'oidc:user-1',
          createdBy: 'local:admin',
          createdAt: h.clock.now(),
          expiresAt: h.clock.now() + 3_600_000,
          uses: 3,
          usesLeft: 3,
          name: 'Line 4 scanner',
          note: 'bench <4>',
          maxPrivacy: 'redacted',
          revokedAt: null,
          labels: { line: '3', site: 'berlin' },
          approval: 'automatic',
        },
      );
      const devices: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await enroll(h, token, `own-name-${i}`);
        assert.equal(res.status, 201, `use ${i + 1} of 3`);
        devices.push(((await res.json()) as { device: string }).device);
      }
      assert.equal((await enroll(h, token)).status, 401, 'used up after three');
      for (const id of devices) {
        const d = await h.store.deviceVisibleTo({ subject: 'oidc:user-1', admin: false }, id);
        assert.equal(d?.name, 'Line 4 scanner', "the token's name, not the device's own");
        assert.equal(d?.enrollNote, 'bench <4>');
        assert.equal(d?.maxPrivacy, 'redacted');
        assert.equal(d?.enrolledBy, 'local:admin');
        assert.deepEqual({ ...d?.labels }, { line: '3', site: 'berlin' }, 'each device starts with the labels');
      }
      const logged = JSON.stringify(h.logs);
      assert.ok(!logged.includes(token) && !logged.includes(secretHash(token)), 'no token or hash in a log record');
    },
  },
  {
    name: 'mint with every optional field empty: the defaults (configured lifetime, one use, own name, full)',
    method: 'POST',
    path: '/enroll-tokens',
    as: 'admin',
    form: { csrf: '$csrf', owner: '', expires_in: '', uses: '', name: '', note: '', max_privacy: '' },
    status: 200,
    events: ['enroll_token.minted'],
    contains: ['one device', '<time datetime="2026-11-23T12:00:00.000Z"', 'chosen by the device', '<dd>full</dd>'],
    logs: [{ event: 'enroll_token.minted', owner: 'local:admin', uses: 1, max_privacy: 'full' }],
    after: async (h, _r, body) => {
      const res = await enroll(h, tokenIn(body), 'its-own-name');
      const { device } = (await res.json()) as { device: string };
      const d = await h.store.deviceVisibleTo(admin, device);
      assert.equal(d?.name, 'its-own-name');
      assert.equal(d?.maxPrivacy, 'full');
      assert.equal(d?.enrollNote, '');
      assert.equal((await enroll(h, tokenIn(body))).status, 401, 'single use');
    },
  },
  {
    name: 'the edges of every range are accepted',
    method: 'POST',
    path: '/enroll-tokens',
    as: 'admin',
    form: { csrf: '$csrf', expires_in: '600', uses: '1000', name: 'n'.repeat(128), note: 'é'.repeat(200) },
    status: 200,
    events: ['enroll_token.minted'],
    contains: ['up to 1000 devices', '<time datetime="2026-11-22T12:10:00.000Z"'],
    after: async (h) => {
      const [t] = (await h.store.outstandingEnrollTokens({ limit: 10 }, h.clock.now())).items;
      assert.equal(t?.uses, 1000);
      assert.equal(t?.note, 'é'.repeat(200));
    },
  },
  {
    name: 'the longest expires_in is accepted',
    method: 'POST',
    path: '/enroll-tokens',
    as: 'admin',
    form: { csrf: '$csrf', expires_in: '2592000', max_privacy: 'minimal' },
    status: 200,
    events: ['enroll_token.minted'],
    contains: ['<time datetime="2026-12-22T12:00:00.000Z"', '<dd>minimal</dd>'],
  },
  ...badFields.map(([field, value]): Scenario => ({
    name: `a bad ${field} (${JSON.stringify(value.slice(0, 12))}) → 400, the form with the message beside the field, nothing minted`,
    method: 'POST',
    path: '/enroll-tokens',
    as: 'admin',
    form: { csrf: '$csrf', [field]: value },
    status: 400,
    events: [],
    // docs/contract.md section 22: the tokens page, the field invalid and described by its message.
    headersMatch: { 'content-type': /^text\/html/ },
    contains: [
      new RegExp(`id="${field}"[^>]*aria-invalid="true" aria-describedby="${field}-error"`),
      new RegExp(`<strong id="${field}-error">${field} must be `),
    ],
    after: async (h) => {
      assert.equal(h.logs.length, 0);
      assert.deepEqual((await h.store.outstandingEnrollTokens({ limit: 10 }, h.clock.now())).items, []);
    },
  })),
  {
    name: 'the tokens page lists the outstanding tokens only, with every column, a revoke button each, and the mint form',
    path: '/enroll-tokens',
    as: 'admin',
    setup: tokensInEveryState,
    status: 200,
    headersMatch: {
      'content-type': /^text\/html/,
      'cache-control': /^no-store$/,
      'content-security-policy': /^default-src 'none'$/,
    },
    contains: [
      '<!doctype html>',
      '<html lang="en">',
      '<title>Enrollment tokens · Paddock</title>',
      'Outstanding tokens 1–2 of 2',
      'oidc:user-1',
      'local:admin',
      'for the &lt;lab&gt;',
      'Lab scanner',
      '1 of 1',
      '2 of 3',
      '<td>full</td>',
      'in 1 hour (<time datetime="2026-11-22T13:00:00.000Z"',
      'action="/enroll-tokens"',
      'name="csrf"',
      ...['owner', 'expires_in', 'uses', 'name', 'note', 'max_privacy'].map((f) => `name="${f}"`),
      '<option value="redacted">',
    ],
    notContains: ['<script', 'style=', '<style', 'http://', 'https://', 'h-outstanding'],
    after: (_h, _r, body, f) => {
      for (const id of [f.outstanding, f.partly])
        assert.ok(body.includes(`action="/enroll-tokens/${id}/revoke"`), `${id} is listed with its revoke button`);
      for (const id of [f.used, f.revoked, f.expired])
        assert.ok(!body.includes(id ?? 'missing'), `${id} is not listed`);
      const csrfFields = body.match(/<input type="hidden" name="csrf" value="[^"]+" \/>/g) ?? [];
      assert.equal(csrfFields.length, 4, 'every form carries csrf: two revokes, the mint form, sign-out');
    },
  },
  {
    name: 'no outstanding token: the page says so and still has the mint form',
    path: '/enroll-tokens',
    as: 'admin',
    status: 200,
    contains: ['No outstanding tokens', 'action="/enroll-tokens"'],
    notContains: ['<table'],
  },
  ...['t_', 'not-a-token-id', 'x'.repeat(70)].map((before): Scenario => ({
    name: `a bad cursor (${before.slice(0, 12)}) → 400`,
    path: `/enroll-tokens?before=${before}`,
    as: 'admin',
    status: 400,
    contains: ['bad page cursor'],
  })),
  {
    name: 'an admin revokes an outstanding token: 303 to /enroll-tokens, it enrolls nothing more, logged',
    method: 'POST',
    path: (_h, f) => `/enroll-tokens/${f.partly}/revoke`,
    as: 'admin',
    setup: tokensInEveryState,
    form: { csrf: '$csrf' },
    status: 303,
    events: ['enroll_token.revoked'],
    location: /^\/enroll-tokens$/,
    after: async (h, _r, _b, f) => {
      assert.ok(
        h.logs.some(
          (r) =>
            r.event === 'enroll_token.revoked' &&
            r.account === 'local:admin' &&
            r.client === '203.0.113.7' &&
            r.token === f.partly,
        ),
      );
      assert.equal(
        await h.store.enrollDevice({
          tokenHash: 'h-partly',
          now: h.clock.now(),
          deviceId: 'd_x',
          name: 'x',
          credentialHash: 'c_x',
        }),
        undefined,
      );
      const ids = (await h.store.outstandingEnrollTokens({ limit: 10 }, h.clock.now())).items.map((t) => t.publicId);
      assert.deepEqual(ids, [f.outstanding]);
    },
  },
  ...(['used', 'revoked', 'expired', 'unknown'] as const).map((state): Scenario => ({
    name: `revoking a token that is ${state} → 404, nothing logged`,
    method: 'POST',
    path: (_h, f) => `/enroll-tokens/${f[state] ?? 't_unknown0000000'}/revoke`,
    as: 'admin',
    setup: tokensInEveryState,
    form: { csrf: '$csrf' },
    status: 404,
    events: [],
    contains: ['enrollment token not found'],
    after: (h) => assert.equal(h.logs.length, 0),
  })),
  {
    name: 'revoking by a malformed id → 404',
    method: 'POST',
    path: '/enroll-tokens/%3Cscript%3E/revoke',
    as: 'admin',
    form: { csrf: '$csrf' },
    status: 404,
    events: [],
  },
]);

for (const path of ['/enroll-tokens', '/enroll-tokens/t_sample000000000/revoke']) {
  test(`enroll tokens: POST ${path} checks CSRF before admin: a non-admin without csrf gets the CSRF failure, with it 403 admin`, async () => {
    const h = await harness();
    try {
      const { cookie, csrf } = h.signIn(ACCOUNTS.user);
      const without = await h.request(path, form({ owner: '' }, cookie));
      assert.equal(without.status, 403);
      assert.match(await without.text(), /^stale form/);
      assert.equal(h.logs.length, 0, 'no admin refusal before the CSRF check');
      const withCsrf = await h.request(path, form({ csrf, owner: '' }, cookie));
      assert.equal(withCsrf.status, 403);
      assert.match(await withCsrf.text(), /administrator/);
      assert.ok(h.logs.some((r) => r.event === 'access.admin_refused' && r.account === 'oidc:user-1'));
      assert.deepEqual((await h.store.outstandingEnrollTokens({ limit: 10 }, h.clock.now())).items, []);
    } finally {
      await h.close();
    }
  });
}

test('enroll tokens: a non-admin is refused the tokens page', async () => {
  const h = await harness();
  try {
    const { cookie } = h.signIn(ACCOUNTS.user);
    const res = await h.request('/enroll-tokens', { headers: { cookie } });
    assert.equal(res.status, 403);
  } finally {
    await h.close();
  }
});

test('enroll tokens: the list pages by keyset, newest first, 50 a page, and never shows a token value', async () => {
  const h = await harness();
  try {
    const { cookie, csrf } = h.signIn(ACCOUNTS.admin);
    const tokens: string[] = [];
    for (let i = 0; i < 52; i++) {
      const res = await h.request('/enroll-tokens', form({ csrf, note: `token ${i}` }, cookie));
      assert.equal(res.status, 200);
      tokens.push(tokenIn(await res.text()));
      h.clock.advance(1_000);
    }
    const first = await (await h.request('/enroll-tokens', { headers: { cookie } })).text();
    assert.match(first, /Outstanding tokens 1–50 of 52, newest first/);
    assert.ok(first.indexOf('token 51') < first.indexOf('token 50'), 'newest first');
    assert.ok(!first.includes('<td>token 1</td>'));
    const older = /href="\/enroll-tokens\?from=51&amp;before=(t_[A-Za-z0-9_-]+)"/.exec(first)?.[1];
    assert.ok(older, 'a link to the older page');
    const second = await (await h.request(`/enroll-tokens?from=51&before=${older}`, { headers: { cookie } })).text();
    assert.match(second, /Outstanding tokens 51–52 of 52, newest first/);
    assert.ok(second.includes('<td>token 1</td>') && second.includes('<td>token 0</td>'));
    assert.ok(second.includes('href="/enroll-tokens">Newest tokens'));
    assert.ok(!second.includes('>Older tokens</a>'), 'the last page');
    assert.ok(
      second.includes(`<input type="hidden" name="return" value="/enroll-tokens?from=51&amp;before=${older}" />`),
      'each revoke button goes back to this page',
    );
    const logged = JSON.stringify(h.logs);
    for (const token of tokens) {
      assert.ok(!first.includes(token) && !second.includes(token), 'no token value on the list');
      assert.ok(!logged.includes(token) && !logged.includes(secretHash(token)), 'nor in a log record');
    }
    assert.equal(h.logs.filter((r) => r.event === 'enroll_token.minted').length, 52);
  } finally {
    await h.close();
  }
});
