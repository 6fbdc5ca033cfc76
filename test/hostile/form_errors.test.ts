// Errors keep the form (docs/contract.md section 22) against what an attacker sends: huge values,
// control characters, markup, repeated fields and parameters. Each answer is its status with no
// stack trace and no 500; a refused page holds nothing sent unescaped, and nothing is created.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { enrollDevice, form, harness } from '../support/harness.ts';

const ADMIN = { subject: 'local:admin', admin: true };
const HUGE = 'x'.repeat(60_000);
const CONTROLS = 'a\u0000b\u001bc\u007fd\u0085e\u202ef\ufffe';
/** Markup, with a control character so that no field takes it. */
const MARKUP = '"><script>alert(1)</script><b x=\'\u0001';

/** No 500, no stack trace, no markup sent reaching the page unescaped, no unfit character in it. */
function clean(status: number, body: string, where: string) {
  assert.notEqual(status, 500, where);
  assert.doesNotMatch(body, /at .*\.ts:\d+|Error:|internal error/, `${where}: no stack trace`);
  assert.doesNotMatch(body, /<script|<b x=/, `${where}: nothing sent unescaped`);
  assert.doesNotMatch(body, /[\u0000-\u0008\u000b\u000e-\u001f\u007f\ufffe]/, `${where}: no raw control character`);
}

test('hostile list queries: huge, control, markup and repeated values answer 400 pages, never a 500', async () => {
  const h = await harness();
  try {
    const { cookie } = h.signIn(ADMIN);
    const { device } = await enrollDevice(h, 'local:admin');
    const values = [HUGE.slice(0, 6000), CONTROLS, MARKUP];
    const paths = ['/audit?actor=', '/audit?device=', '/audit?since=', '/collections?state=', '/enroll-tokens?before='];
    paths.push('/accounts?before=', '/groups?before=', '/tokens?before=', `/devices/${device}?before=`);
    for (const path of paths)
      for (const value of values) {
        const res = await h.request(`${path}${encodeURIComponent(value)}`, { headers: { cookie } });
        const body = await res.text();
        clean(res.status, body, `${path}…`);
        assert.ok(res.status === 400 || res.status === 200, `${path}: ${res.status}`);
        if (res.status === 400) assert.match(res.headers.get('content-type') ?? '', /^text\/html/, path);
      }
    for (const query of ['actor=system&actor=system', 'before=1&before=2', `event=${'e'.repeat(200)}&event=x`]) {
      const res = await h.request(`/audit?${query}`, { headers: { cookie } });
      const body = await res.text();
      assert.equal(res.status, 400, query);
      clean(res.status, body, query);
      assert.match(body, /<div role="alert">/, query);
    }
  } finally {
    await h.close();
  }
});

test('hostile form posts: each bad field is a 400 page or the specification’s plain text, nothing created', async () => {
  const h = await harness();
  try {
    const { device } = await enrollDevice(h, 'local:admin', 'kept');
    const { cookie, csrf } = h.signIn(ADMIN);
    const forms: Array<[path: string, field: string]> = [
      ['/enroll-tokens', 'uses'],
      ['/enroll-tokens', 'owner'],
      ['/enroll-tokens', 'note'],
      ['/enroll-tokens', 'labels'],
      ['/enroll-tokens', 'expires_in'],
      ['/enroll-tokens', 'max_privacy'],
      ['/tokens', 'name'],
      ['/tokens', 'scope'],
      ['/webhooks', 'url'],
      ['/webhooks', 'description'],
      [`/devices/${device}/rename`, 'name'],
      [`/devices/${device}/labels`, 'labels'],
      [`/devices/${device}/owner`, 'owner'],
    ];
    for (const [path, field] of forms)
      for (const value of [HUGE, CONTROLS, MARKUP]) {
        const fields: Record<string, string> = { csrf, [field]: value };
        if (path === '/tokens' && field !== 'name') fields.name = 'ok';
        if (path === '/webhooks') fields.event = '*';
        if (path === '/webhooks' && field !== 'url') fields.url = 'https://example.com/hook';
        const res = await h.request(path, form(fields, cookie));
        const body = await res.text();
        const where = `${path} ${field}=${JSON.stringify(value.slice(0, 20))}`;
        clean(res.status, body, where);
        // A body past the form limit is the specification's plain-text failure, not a page.
        if (res.status === 413) continue;
        assert.equal(res.status, 400, `${where}: ${body.slice(0, 200)}`);
        assert.match(res.headers.get('content-type') ?? '', /^text\/html/, where);
        assert.match(body, /aria-invalid="true"/, where);
      }
    // A repeated field that may not repeat makes the form unparseable: 403, plain text, as specified.
    for (const path of ['/enroll-tokens', '/tokens', `/devices/${device}/rename`]) {
      const res = await h.request(path, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: `csrf=${csrf}&name=a&name=b&uses=1&uses=2`,
      });
      assert.equal(res.status, 403, path);
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain/, path);
    }
    assert.equal((await h.store.outstandingEnrollTokens({ limit: 10 }, h.clock.now())).items.length, 0);
    assert.equal((await h.store.accessTokensOf('local:admin', { limit: 10 })).items.length, 0);
    assert.equal((await h.store.webhooks(10)).length, 0);
    const kept = await h.store.deviceVisibleTo({ subject: 'local:admin', admin: true, groups: [] }, device);
    assert.equal(kept?.name, 'kept');
    assert.equal(kept?.owner, 'local:admin');
    assert.equal(h.logs.filter((r) => r.level === 'error').length, 0, 'no error logged');
  } finally {
    await h.close();
  }
});
