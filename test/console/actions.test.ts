// The state-changing routes: run delete, device revoke, token mint; their redirects and log records.
import assert from 'node:assert/strict';
import { enrollDevice, upload, type Harness } from '../support/harness.ts';
import { runScenarios } from '../support/scenario.ts';

async function twoOwners(h: Harness) {
  const mine = await enrollDevice(h, 'oidc:user-1');
  const theirs = await enrollDevice(h, 'oidc:user-2');
  await upload(h, mine.credential, 'run-mine', 'a');
  await upload(h, theirs.credential, 'run-theirs', 'b');
  return { mine: mine.device, theirs: theirs.device, mineCred: mine.credential, theirsCred: theirs.credential };
}

const visible = async (h: Harness, device: string, id: string) =>
  h.store.runVisibleTo({ subject: 'local:admin', admin: true }, device, id);

runScenarios('actions', [
  {
    name: 'an owner deletes its run: 303 to /runs, gone, logged with who did it',
    method: 'POST',
    path: (_h, f) => `/runs/${f.mine}/run-mine/delete`,
    as: 'user',
    setup: twoOwners,
    form: { csrf: '$csrf' },
    status: 303,
    events: ['run.deleted'],
    location: /^\/runs$/,
    after: async (h, _r, _b, f) => {
      assert.equal(await visible(h, f.mine ?? '', 'run-mine'), undefined);
      assert.ok(
        h.logs.some(
          (r) =>
            r.event === 'run.deleted' && r.account === 'oidc:user-1' && r.device === f.mine && r.run === 'run-mine',
        ),
      );
    },
  },
  {
    name: 'the confirmation after a delete is shown once by the next page, through a short-lived cookie',
    method: 'POST',
    path: (_h, f) => `/runs/${f.mine}/run-mine/delete`,
    as: 'user',
    setup: twoOwners,
    form: { csrf: '$csrf' },
    status: 303,
    events: ['run.deleted'],
    location: /^\/runs$/,
    setCookies: [/^service_notice=[A-Za-z0-9_-]+; Path=\/; Max-Age=60; HttpOnly; SameSite=Lax$/],
    after: async (h, res, _b, f) => {
      const notice = (res.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
      const cookie = `${h.signIn({ subject: 'oidc:user-1', admin: false }).cookie}; ${notice}`;
      const next = await h.request('/runs', { headers: { cookie } });
      const page = await next.text();
      assert.match(
        page,
        new RegExp(`<p role="status"><strong>Run run-mine of device ${f.mine} was deleted\\.</strong></p>`),
      );
      assert.ok(
        next.headers.getSetCookie().some((c) => /^service_notice=; Path=\/; Max-Age=-1;/.test(c)),
        'cleared once shown',
      );
      const forged = Buffer.from(JSON.stringify(['deleted', '<b>', 'x'])).toString('base64url');
      const again = await (
        await h.request('/runs', {
          headers: { cookie: `${h.signIn({ subject: 'oidc:user-1', admin: false }).cookie}; service_notice=${forged}` },
        })
      ).text();
      assert.doesNotMatch(again, /role="status"|<b>/, 'a notice with ids outside their grammar is ignored');
    },
  },
  {
    name: 'deleting another account’s run answers 404 and deletes nothing',
    method: 'POST',
    path: (_h, f) => `/runs/${f.theirs}/run-theirs/delete`,
    as: 'user',
    setup: twoOwners,
    form: { csrf: '$csrf' },
    status: 404,
    events: [],
    after: async (h, _r, _b, f) => {
      assert.ok(await visible(h, f.theirs ?? '', 'run-theirs'));
      assert.equal(h.logs.filter((r) => r.event === 'run.deleted').length, 0);
    },
  },
  {
    name: 'an admin deletes any run',
    method: 'POST',
    path: (_h, f) => `/runs/${f.theirs}/run-theirs/delete`,
    as: 'admin',
    setup: twoOwners,
    form: { csrf: '$csrf' },
    status: 303,
    events: ['run.deleted'],
    logs: [{ event: 'run.deleted', account: 'local:admin', run: 'run-theirs' }],
  },
  {
    name: 'a delete with a wrong csrf deletes nothing',
    method: 'POST',
    path: (_h, f) => `/runs/${f.mine}/run-mine/delete`,
    as: 'user',
    setup: twoOwners,
    form: { csrf: 'forged' },
    status: 403,
    events: [],
    after: async (h, _r, _b, f) => assert.ok(await visible(h, f.mine ?? '', 'run-mine')),
  },
  {
    name: 'an admin revokes a device: 303 to /devices, logged, and its next upload is refused',
    method: 'POST',
    path: (_h, f) => `/devices/${f.theirs}/revoke`,
    as: 'admin',
    setup: twoOwners,
    form: { csrf: '$csrf' },
    status: 303,
    events: ['device.revoked'],
    location: /^\/devices$/,
    after: async (h, _r, _b, f) => {
      assert.ok(
        h.logs.some((r) => r.event === 'device.revoked' && r.account === 'local:admin' && r.device === f.theirs),
      );
      assert.equal((await upload(h, f.theirsCred ?? '', 'run-2', 'c')).status, 401);
      assert.equal((await upload(h, f.mineCred ?? '', 'run-2', 'c')).status, 201);
      const list = await (
        await h.request('/devices', { headers: { cookie: h.signIn({ subject: 'local:admin', admin: true }).cookie } })
      ).text();
      assert.match(list, /revoked <time datetime="[^"]+" title="[^"]+ UTC">now<\/time>/);
    },
  },
  {
    name: 'revoking an unknown device answers 404',
    method: 'POST',
    path: '/devices/d_missing/revoke',
    as: 'admin',
    form: { csrf: '$csrf' },
    status: 404,
    events: [],
  },
  {
    name: 'an admin mints a link: 200, link as text and QR code, expiry; token stored only as hash; logged without the token',
    method: 'POST',
    path: '/enroll-tokens',
    as: 'admin',
    form: { csrf: '$csrf', owner: '' },
    status: 200,
    events: ['enroll_token.minted'],
    headersMatch: { 'content-type': /^text\/html/, 'cache-control': /^no-store$/ },
    contains: [
      /paddock:\/\/enroll\?server=127\.0\.0\.1:8080&amp;pin=sha256\/A{43}=&amp;token=[A-Za-z0-9_-]{43}</,
      '<svg',
      '<time datetime="2026-11-23T12:00:00.000Z"',
      'local:admin',
    ],
    notContains: ['<script', 'style='],
    logs: [{ event: 'enroll_token.minted', account: 'local:admin', owner: 'local:admin' }],
    after: async (h, _r, body) => {
      const token = /token=([A-Za-z0-9_-]{43})/.exec(body)?.[1] ?? '';
      assert.ok(!JSON.stringify(h.logs).includes(token), 'the token is in no log record');
      const enrolled = await h.control('/v1/enroll', { method: 'POST', body: JSON.stringify({ token }) });
      assert.equal(enrolled.status, 201, 'the link’s token enrolls a device');
      const again = await h.control('/v1/enroll', { method: 'POST', body: JSON.stringify({ token }) });
      assert.equal(again.status, 401, 'single use');
    },
  },
  {
    name: 'minting for another owner: the enrolled device belongs to that owner',
    method: 'POST',
    path: '/enroll-tokens',
    as: 'admin',
    form: { csrf: '$csrf', owner: 'oidc:user-1' },
    status: 200,
    events: ['enroll_token.minted'],
    logs: [{ event: 'enroll_token.minted', account: 'local:admin', owner: 'oidc:user-1' }],
    after: async (h, _r, body) => {
      const token = /token=([A-Za-z0-9_-]{43})/.exec(body)?.[1] ?? '';
      const res = await h.control('/v1/enroll', { method: 'POST', body: JSON.stringify({ token, name: 'for-uma' }) });
      const { device } = (await res.json()) as { device: string };
      assert.equal((await h.store.deviceVisibleTo({ subject: 'oidc:user-1', admin: false }, device))?.name, 'for-uma');
    },
  },
  {
    name: 'a malformed owner → 400, nothing minted',
    method: 'POST',
    path: '/enroll-tokens',
    as: 'admin',
    form: { csrf: '$csrf', owner: 'bob' },
    status: 400,
    events: [],
    after: (h) => assert.equal(h.logs.length, 0),
  },
  {
    name: 'an owner with a bidi override or a zero-width character → 400, nothing minted',
    method: 'POST',
    path: '/enroll-tokens',
    as: 'admin',
    form: { csrf: '$csrf', owner: 'oidc:\u202eevil\u200b' },
    status: 400,
    events: [],
    after: (h) => assert.equal(h.logs.length, 0),
  },
]);
