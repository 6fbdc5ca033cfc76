// Personal access tokens on the console (docs/contract.md section 11): creating shows the token once and
// nowhere else (not the list, a log record or the audit trail); the form's bounds; an account
// revokes only its own tokens; every POST needs the CSRF token.
import assert from 'node:assert/strict';
import { refusedMessage } from '../support/refused.ts';
import { test } from 'node:test';
import { secretHash } from '../../src/crypto/random.ts';
import { form, harness, type Harness } from '../support/harness.ts';

const ANN = { subject: 'oidc:ann', admin: false };
const ADMIN = { subject: 'local:admin', admin: true };
const TOKEN = /pdk_[A-Za-z0-9_-]{43}/g;

async function create(h: Harness, who: { subject: string; admin: boolean }, fields: Record<string, string>) {
  const { cookie, csrf } = h.signIn(who);
  const res = await h.request('/tokens', form({ csrf, ...fields }, cookie));
  return { res, body: await res.text() };
}

test('creating a token shows it once; the list, the log and the audit trail never hold it', async () => {
  const h = await harness();
  try {
    const { res, body } = await create(h, ANN, { name: 'CI <deploy>', expires_in: '7200' });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('cache-control') ?? '', /^no-store$/);
    const shown = body.match(TOKEN) ?? [];
    assert.equal(shown.length, 1, 'the token appears once on the result page');
    const token = shown[0]!;
    assert.match(token, /^pdk_[A-Za-z0-9_-]{43}$/);
    assert.match(body, /CI &lt;deploy&gt;/);

    const [record] = (await h.store.accessTokensOf(ANN.subject, { limit: 10 })).items;
    assert.ok(record);
    assert.equal(record.name, 'CI <deploy>');
    assert.equal(record.admin, false);
    assert.equal(record.expiresAt - record.createdAt, 7_200_000);
    const found = await h.store.accessTokenByHash(secretHash(token), h.clock.now());
    assert.equal(found?.publicId, record.publicId, 'stored as its hash');

    const { cookie } = h.signIn(ANN);
    const list = await (await h.request('/tokens', { headers: { cookie } })).text();
    assert.ok(list.includes('CI &lt;deploy&gt;') && list.includes(record.publicId), 'listed by name and id');
    assert.doesNotMatch(list, TOKEN, 'the list never shows a token');
    assert.ok(!list.includes(secretHash(token)));
    assert.match(list, /never/, 'not used yet');

    assert.deepEqual(
      h.logs.filter((r) => r.event === 'access_token.created'),
      [
        {
          level: 'info',
          event: 'access_token.created',
          account: ANN.subject,
          client: '203.0.113.7',
          token: record.publicId,
          scope: 'write',
        },
      ],
    );
    const logText = JSON.stringify(h.logs);
    assert.ok(!logText.includes(token) && !logText.includes(token.slice(4)), 'no log record holds the token');
    assert.ok(!logText.includes(secretHash(token)), 'nor its hash');
    await h.flushAudit();
    const audit = (await h.store.auditPage({}, { limit: 50 })).items;
    assert.deepEqual(
      audit.map((r) => [r.event, r.account]),
      [['access_token.created', ANN.subject]],
    );
    const auditText = JSON.stringify(audit);
    assert.ok(!auditText.includes(token.slice(4)) && !auditText.includes(secretHash(token)));
  } finally {
    await h.close();
  }
});

test('an empty expires_in is thirty days; an admin token keeps the admin right', async () => {
  const h = await harness();
  try {
    const { res } = await create(h, ADMIN, { name: 'fleet script', expires_in: '' });
    assert.equal(res.status, 200);
    const [record] = (await h.store.accessTokensOf(ADMIN.subject, { limit: 10 })).items;
    assert.equal(record?.expiresAt, h.clock.now() + 2_592_000_000);
    assert.equal(record?.admin, true);
  } finally {
    await h.close();
  }
});

test('expiry bounds and the name rule: each bad field a 400 with the form, the message beside it, nothing created', async () => {
  const h = await harness();
  try {
    for (const expires of ['3600', '31536000']) {
      const { res } = await create(h, ANN, { name: `ok ${expires}`, expires_in: expires });
      assert.equal(res.status, 200, `expires_in ${expires}`);
    }
    const bad: Array<[Record<string, string>, RegExp]> = [
      [{ name: 'x', expires_in: '3599' }, /^expires_in must be/],
      [{ name: 'x', expires_in: '31536001' }, /^expires_in must be/],
      [{ name: 'x', expires_in: 'soon' }, /^expires_in must be/],
      [{ name: 'x', expires_in: '3600.5' }, /^expires_in must be/],
      [{ name: 'x', expires_in: '-3600' }, /^expires_in must be/],
      [{ name: '', expires_in: '3600' }, /^name must be/],
      [{ expires_in: '3600' }, /^name must be/],
      [{ name: 'n'.repeat(65), expires_in: '3600' }, /^name must be/],
      [{ name: 'evil\u202eeman', expires_in: '3600' }, /^name must be/],
      [{ name: 'two\nlines', expires_in: '3600' }, /^name must be/],
    ];
    for (const [fields, message] of bad) {
      const { res, body } = await create(h, ANN, fields);
      const refused = await refusedMessage(res, JSON.stringify(fields), body);
      assert.match(refused.message, message, JSON.stringify(fields));
      assert.equal(refused.id, message.source.slice(1).split(' ')[0], 'beside the field it names');
    }
    const made = (await h.store.accessTokensOf(ANN.subject, { limit: 50 })).items;
    assert.deepEqual(made.map((t) => t.name).sort(), ['ok 31536000', 'ok 3600']);
    assert.equal(made.find((t) => t.name === 'ok 31536000')!.expiresAt, h.clock.now() + 31_536_000_000);
  } finally {
    await h.close();
  }
});

test("an account revokes its own token; another account's, even an admin's, is 404", async () => {
  const h = await harness();
  try {
    const { body } = await create(h, ANN, { name: 'mine', expires_in: '3600' });
    const token = body.match(TOKEN)![0];
    const [record] = (await h.store.accessTokensOf(ANN.subject, { limit: 10 })).items;
    const id = record!.publicId;

    for (const other of [ADMIN, { subject: 'oidc:bob', admin: false }]) {
      const { cookie, csrf } = h.signIn(other);
      const res = await h.request(`/tokens/${id}/revoke`, form({ csrf }, cookie));
      assert.equal(res.status, 404, other.subject);
    }
    assert.notEqual(await h.store.accessTokenByHash(secretHash(token), h.clock.now()), undefined, 'still live');

    const { cookie, csrf } = h.signIn(ANN);
    const unknown = await h.request('/tokens/a_unknown/revoke', form({ csrf }, cookie));
    assert.equal(unknown.status, 404);
    const bad = await h.request('/tokens/not%20an%20id/revoke', form({ csrf }, cookie));
    assert.equal(bad.status, 404);

    const res = await h.request(`/tokens/${id}/revoke`, form({ csrf }, cookie));
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), '/tokens');
    assert.equal(await h.store.accessTokenByHash(secretHash(token), h.clock.now()), undefined, 'refused at once');
    const notice = /service_notice=[^;]+/.exec(res.headers.get('set-cookie') ?? '')?.[0];
    assert.ok(notice);
    const list = await (await h.request('/tokens', { headers: { cookie: `${cookie}; ${notice}` } })).text();
    assert.match(list, new RegExp(`Access token ${id} was revoked`));
    assert.match(list, /<td>revoked<\/td>/);
    assert.ok(!list.includes(`/tokens/${id}/revoke`), 'no revoke button on a revoked token');
    assert.equal((await h.request(`/tokens/${id}/revoke`, form({ csrf }, cookie))).status, 404, 'once');

    const revoked = h.logs.filter((r) => r.event === 'access_token.revoked');
    assert.deepEqual(
      revoked.map((r) => [r.account, r.client, r.token]),
      [[ANN.subject, '203.0.113.7', id]],
    );
    await h.flushAudit();
    const events = (await h.store.auditPage({}, { limit: 50 })).items.map((r) => r.event);
    assert.ok(events.includes('access_token.revoked'));
  } finally {
    await h.close();
  }
});

test('creating and revoking need the CSRF token; the page needs a session', async () => {
  const h = await harness();
  try {
    const { cookie, csrf } = h.signIn(ANN);
    const missing = await h.request('/tokens', form({ name: 'x', expires_in: '3600' }, cookie));
    assert.equal(missing.status, 403);
    const wrong = await h.request('/tokens', form({ csrf: `${csrf}x`, name: 'x', expires_in: '3600' }, cookie));
    assert.equal(wrong.status, 403);
    assert.deepEqual((await h.store.accessTokensOf(ANN.subject, { limit: 10 })).items, []);
    const made = await h.store.createAccessToken({
      hash: 'h',
      subject: ANN.subject,
      admin: false,
      scope: 'write',
      name: 'n',
      createdAt: h.clock.now(),
      expiresAt: h.clock.now() + 3_600_000,
    });
    const revoke = await h.request(`/tokens/${made.publicId}/revoke`, form({}, cookie));
    assert.equal(revoke.status, 403);
    assert.equal((await h.store.accessTokensOf(ANN.subject, { limit: 10 })).items[0]?.revokedAt, null);
    const anonymous = await h.request('/tokens');
    assert.equal(anonymous.headers.get('location'), '/login', 'no session: sent to sign in');
  } finally {
    await h.close();
  }
});

test('the list is keyset paged, newest first, and a bad cursor is a 400', async () => {
  const h = await harness();
  try {
    for (let n = 1; n <= 51; n++)
      await h.store.createAccessToken({
        hash: `h${n}`,
        subject: ANN.subject,
        admin: false,
        scope: 'write',
        name: `token-${String(n).padStart(2, '0')}`,
        createdAt: h.clock.now(),
        expiresAt: h.clock.now() + 3_600_000,
      });
    const { cookie } = h.signIn(ANN);
    const first = await (await h.request('/tokens', { headers: { cookie } })).text();
    assert.ok(first.includes('token-51') && first.includes('token-02') && !first.includes('token-01'));
    const next = /href="\/tokens\?before=([0-9]+)"/.exec(first)?.[1];
    assert.ok(next);
    const second = await (await h.request(`/tokens?before=${next}`, { headers: { cookie } })).text();
    assert.ok(second.includes('token-01') && !second.includes('token-02'));
    const bad = await h.request('/tokens?before=abc', { headers: { cookie } });
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /cursor/);
  } finally {
    await h.close();
  }
});

test('every signed-in account has the Access tokens link', async () => {
  const h = await harness();
  try {
    for (const who of [ANN, ADMIN]) {
      const { cookie } = h.signIn(who);
      assert.match(
        await (await h.request('/', { headers: { cookie } })).text(),
        /<a href="\/tokens">Access tokens<\/a>/,
      );
    }
  } finally {
    await h.close();
  }
});
