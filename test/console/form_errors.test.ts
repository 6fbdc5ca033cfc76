// Errors keep the form (docs/contract.md section 22): a console list or form given a bad value
// answers 400 with its page, the form filled in as sent (escaped), the message beside the field at
// fault (aria-invalid, aria-describedby) and nothing created; the specification's own failures
// (csrf, unparseable form) stay plain text.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { enrollDevice, form, harness, type Harness } from '../support/harness.ts';

const ADMIN = { subject: 'local:admin', admin: true };
const SENT = '<b>"x';
const ESCAPED = '&lt;b&gt;&quot;x';

/** The page answered 400 as HTML, with the field `id` invalid and described by its message, which holds `message`. */
async function refusedPage(res: Response, id: string, message: RegExp, where: string): Promise<string> {
  const body = await res.text();
  assert.equal(res.status, 400, `${where}: ${body.slice(0, 200)}`);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/, where);
  const field = new RegExp(`<(?:input|select|textarea)[^>]*\\bid="${id}"[^>]*>`).exec(body)?.[0] ?? '';
  assert.match(field, /aria-invalid="true"/, `${where}: ${id} is marked invalid`);
  const describedBy = /aria-describedby="([^"]*)"/.exec(field)?.[1]?.split(' ') ?? [];
  assert.ok(describedBy.includes(`${id}-error`), `${where}: ${id} is described by its message`);
  const shown = new RegExp(`<strong id="${id}-error">([^<]*)</strong>`).exec(body)?.[1] ?? '';
  assert.match(shown, message, `${where}: the message beside the field`);
  assert.match(body, new RegExp(`<div role="alert">[\\s\\S]*href="#${id}"`), `${where}: the alert links the field`);
  assert.doesNotMatch(body, /<script|<b>"x/, `${where}: nothing sent reaches the page unescaped`);
  return body;
}

async function post(h: Harness, path: string, fields: Record<string, string>, who = ADMIN) {
  const { cookie, csrf } = h.signIn(who);
  return h.request(path, form({ csrf, ...fields }, cookie));
}

test('lists: a bad filter is its page with the form as sent, the message beside the field; a bad cursor the alert alone', async () => {
  const h = await harness();
  try {
    const { cookie } = h.signIn(ADMIN);
    const get = (path: string) => h.request(path, { headers: { cookie } });
    const audit = await refusedPage(
      await get(`/audit?actor=${encodeURIComponent(SENT)}`),
      'audit-actor',
      /^actor must be/,
      '/audit',
    );
    assert.match(audit, new RegExp(`id="audit-actor"[^>]*value="${ESCAPED}"`), 'the actor as sent');
    assert.match(audit, /No records are shown until the filter is corrected/);
    await refusedPage(
      await get('/audit?since=2026-11-05&until=2026-11-04'),
      'audit-until',
      /^since must be a day before/,
      'range',
    );
    const collections = await refusedPage(
      await get(`/collections?state=${encodeURIComponent(SENT)}`),
      'state',
      /^state must be open or closed/,
      '/collections',
    );
    assert.match(
      collections,
      new RegExp(`<option value="${ESCAPED}" selected>${ESCAPED}</option>`),
      'the state as sent',
    );
    const cursors = ['/enroll-tokens?before=', '/accounts?before=', '/groups?before=', '/tokens?before='];
    for (const path of [...cursors, '/audit?before=1.2.3', '/collections?before=1.2.3']) {
      const res = await get(path);
      const body = await res.text();
      assert.equal(res.status, 400, path);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/, path);
      assert.match(body, /<div role="alert">[\s\S]*bad page cursor/, `${path}: the alert says what is wrong`);
      assert.doesNotMatch(body, /aria-invalid/, `${path}: a cursor has no field`);
      assert.doesNotMatch(body, /<b>"x/, path);
    }
    // A collection's targets: an unknown collection is still 404 first.
    assert.equal((await get('/collections/c_1?state=nope')).status, 404);
    // The download is not a page: its bad parameter stays plain text.
    const jsonl = await get('/audit.jsonl?actor=nope');
    assert.equal(jsonl.status, 400);
    assert.match(jsonl.headers.get('content-type') ?? '', /^text\/plain/);
  } finally {
    await h.close();
  }
});

test('the mint form: a bad field is the tokens page with every field as sent, nothing minted', async () => {
  const h = await harness();
  try {
    const sent = {
      owner: 'local:ops',
      expires_in: '3600',
      uses: SENT,
      name: 'Line 4',
      note: 'n <1>',
      labels: 'site=b\nline=3',
      approval: 'required',
      max_privacy: 'redacted',
    };
    const body = await refusedPage(
      await post(h, '/enroll-tokens', sent),
      'uses',
      /^uses must be a whole number/,
      'uses',
    );
    assert.match(body, new RegExp(`id="uses"[^>]*value="${ESCAPED}"`), 'uses as sent');
    assert.match(body, /id="owner"[^>]*value="local:ops"/);
    assert.match(body, /<option value="3600" selected>/);
    assert.match(body, /id="name"[^>]*value="Line 4"/);
    assert.match(body, /id="note"[^>]*value="n &lt;1&gt;"/);
    assert.match(body, /<option value="redacted" selected>/);
    assert.match(body, />site=b\nline=3<\/textarea/);
    assert.match(body, /id="approval"[^>]*checked/);
    assert.match(body, /Outstanding enrollment tokens|No outstanding tokens/, 'the list is on the page');
    const labels = await refusedPage(
      await post(h, '/enroll-tokens', { labels: `a=${SENT}` }),
      'labels',
      /^labels refused/,
      'labels',
    );
    assert.match(labels, /aria-describedby="labels-rules labels-error"/, 'the rules still describe the field');
    await refusedPage(
      await post(h, '/enroll-tokens', { expires_in: SENT }),
      'expires_in',
      /^expires_in must be/,
      'expires_in',
    );
    await refusedPage(await post(h, '/enroll-tokens', { owner: SENT }), 'owner', /^owner must be/, 'owner');
    assert.equal(
      (await h.store.outstandingEnrollTokens({ limit: 10 }, h.clock.now())).items.length,
      0,
      'nothing minted',
    );
  } finally {
    await h.close();
  }
});

test('the access token and webhook forms: a bad field is their page as sent, nothing created', async () => {
  const h = await harness();
  try {
    const user = { subject: 'oidc:user-1', admin: false };
    const token = await refusedPage(
      await post(h, '/tokens', { name: `${SENT}\u0007`, expires_in: '3600', scope: 'read' }, user),
      'name',
      /^name must be 1 to 64/,
      'token name',
    );
    assert.match(token, new RegExp(`id="name"[^>]*value="${ESCAPED}\u2407"`), 'the control shown as its picture');
    assert.match(token, /<option value="read" selected>/);
    await refusedPage(
      await post(h, '/tokens', { name: 'ok', expires_in: SENT }, user),
      'expires_in',
      /^expires_in must be/,
      'expires_in',
    );
    assert.equal((await h.store.accessTokensOf('oidc:user-1', { limit: 10 })).items.length, 0, 'no token created');

    const hook = await refusedPage(
      await post(h, '/webhooks', { url: `http://example.com/${SENT}`, event: 'device.revoked', description: SENT }),
      'url',
      /^url is not a webhook target/,
      'webhook url',
    );
    assert.match(hook, /value="http:\/\/example\.com\/&lt;b&gt;&quot;x"/, 'the url as sent');
    assert.match(hook, new RegExp(`id="description"[^>]*value="${ESCAPED}"`), 'the description as sent');
    assert.match(hook, /value="device\.revoked" checked/, 'the event ticked as sent');
    const { cookie, csrf } = h.signIn(ADMIN);
    const body = new URLSearchParams([
      ['csrf', csrf],
      ['url', 'https://example.com/hook'],
      ['event', 'device.revoked'],
      ['event', SENT],
    ]);
    const res = await h.request('/webhooks', {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
    });
    const events = await refusedPage(res, 'event-all', /^event must name events/, 'events');
    assert.match(events, new RegExp(`value="${ESCAPED}" checked`), 'an event not offered is kept as sent');
    assert.equal((await h.store.webhooks(10)).length, 0, 'no endpoint added');
  } finally {
    await h.close();
  }
});

test('the device page: rename, labels and owner refused show the page with that form as sent, nothing changed', async () => {
  const h = await harness();
  try {
    const { device } = await enrollDevice(h, 'local:admin', 'keep-name');
    const path = `/devices/${device}`;
    const renamed = await refusedPage(
      await post(h, `${path}/rename`, { name: `${SENT}\u202e` }),
      'name',
      /^name must be 1 to 128/,
      'rename',
    );
    assert.match(renamed, /id="name"[^>]*value="&lt;b&gt;&quot;x\u202e"/, 'the name as sent');
    assert.match(renamed, /id="owner"[^>]*value="local:admin"/, 'the other forms show the device');
    const labelled = await refusedPage(
      await post(h, `${path}/labels`, { labels: `ok=1\n${SENT}` }),
      'labels',
      /^labels refused/,
      'labels',
    );
    assert.match(labelled, new RegExp(`>ok=1\\n${ESCAPED}</textarea`), 'the set as sent');
    await refusedPage(await post(h, `${path}/owner`, { owner: SENT }), 'owner', /^owner must be/, 'owner');
    const stored = await h.store.deviceVisibleTo({ subject: 'local:admin', admin: true, groups: [] }, device);
    assert.equal(stored?.name, 'keep-name');
    assert.equal(stored?.owner, 'local:admin');
    assert.deepEqual({ ...stored?.labels }, {});
    const cursor = await h.request(`${path}?before=${encodeURIComponent(SENT)}`, {
      headers: { cookie: h.signIn(ADMIN).cookie },
    });
    assert.equal(cursor.status, 400);
    assert.match(await cursor.text(), /<div role="alert">[\s\S]*bad page cursor[\s\S]*Newest runs/);
    assert.equal(
      (await post(h, '/devices/d_nope/rename', { name: SENT })).status,
      404,
      'an unknown device is still 404',
    );
  } finally {
    await h.close();
  }
});

test('the specification’s failures stay plain text: a wrong csrf is 403, a repeated field an unparseable form', async () => {
  const h = await harness();
  try {
    const { cookie, csrf } = h.signIn(ADMIN);
    for (const path of ['/enroll-tokens', '/tokens', '/webhooks']) {
      const res = await h.request(path, form({ csrf: 'wrong', uses: SENT, name: SENT }, cookie));
      assert.equal(res.status, 403, path);
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain/, path);
    }
    const repeated = await h.request('/enroll-tokens', {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: `csrf=${csrf}&uses=1&uses=2`,
    });
    assert.equal(repeated.status, 403);
    assert.match(repeated.headers.get('content-type') ?? '', /^text\/plain/);
    const user = h.signIn({ subject: 'oidc:user-1', admin: false });
    const notAdmin = await h.request('/enroll-tokens', form({ csrf: user.csrf, uses: SENT }, user.cookie));
    assert.equal(notAdmin.status, 403, 'a non-admin on an admin route');
    assert.match(notAdmin.headers.get('content-type') ?? '', /^text\/plain/);
    assert.equal((await h.store.outstandingEnrollTokens({ limit: 10 }, h.clock.now())).items.length, 0);
  } finally {
    await h.close();
  }
});
