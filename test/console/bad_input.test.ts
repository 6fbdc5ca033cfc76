// Malformed paths, cookies, headers and bodies get a clear status and a plain-text message:
// never a 500, never a stack trace, never a change to stored data.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { enrollDevice, harness, upload } from '../support/harness.ts';
import { readAll } from '../support/read_all.ts';

const cases: Array<{
  path: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  status: number;
  page?: true;
}> = [
  { path: '/runs/%ZZ/x', status: 404 },
  { path: '/runs/d_a/%00', status: 404 },
  { path: '/runs/d_a/..%2F..%2Fetc', status: 404 },
  { path: `/runs/d_a/${'x'.repeat(5000)}`, status: 404 },
  { path: '/devices/%ZZ/revoke', method: 'POST', status: 404 },
  // The run list answers a bad query with its page (docs/contract.md section 22), still a 400.
  { path: '/runs?before=99999999999999999999', status: 400, page: true },
  { path: '/runs?before=0', status: 400, page: true },
  { path: '/runs?before=-1', status: 400, page: true },
  { path: '/', headers: { cookie: 'service_admin=' }, status: 303 },
  { path: '/', headers: { cookie: 'service_admin=a.b.c; service_admin=%00' }, status: 303 },
  {
    path: '/login',
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '99999999' },
    body: 'a=1',
    status: 413,
  },
  {
    path: '/login',
    method: 'POST',
    headers: { 'content-type': 'multipart/form-data; boundary=x' },
    body: '--x--',
    status: 400,
  },
  { path: '/login', method: 'POST', status: 400 },
  { path: '/admin/callback?state=%ZZ&code=%ZZ', status: 501 },
];

test('malformed requests get their status with a plain-text body, never 500 or a stack trace', async () => {
  const h = await harness();
  try {
    const { device, credential } = await enrollDevice(h, 'local:admin');
    await upload(h, credential, 'keep', 'keep me');
    const { cookie, csrf } = h.signIn({ subject: 'local:admin', admin: true });
    for (const c of cases) {
      const headers: Record<string, string> = { cookie, ...c.headers };
      let body = c.body;
      if (c.method === 'POST' && body === undefined && c.path !== '/login') {
        headers['content-type'] = 'application/x-www-form-urlencoded';
        body = `csrf=${csrf}`;
      }
      const res = await h.request(c.path, { method: c.method ?? 'GET', headers, body });
      const text = await res.text();
      assert.equal(res.status, c.status, `${c.method ?? 'GET'} ${c.path.slice(0, 60)}: ${text.slice(0, 200)}`);
      assert.doesNotMatch(text, /at .*\.ts:\d+|Error:/, 'no stack trace');
      if (res.status >= 400)
        assert.match(res.headers.get('content-type') ?? '', c.page ? /^text\/html/ : /^text\/plain/);
    }
    const run = await h.store.runVisibleTo({ subject: 'x', admin: true }, device, 'keep');
    assert.equal(new TextDecoder().decode(await readAll(run)), 'keep me', 'stored data is untouched');
    assert.equal(h.logs.filter((r) => r.level === 'error').length, 0, JSON.stringify(h.logs));
  } finally {
    await h.close();
  }
});

test('a full page of 50 with a link to the older page; the older page holds the rest', async () => {
  const h = await harness();
  try {
    const { credential } = await enrollDevice(h, 'local:admin');
    for (let i = 0; i < 53; i++) await upload(h, credential, `run-${String(i).padStart(3, '0')}`, `body ${i}`);
    const { cookie } = h.signIn({ subject: 'local:admin', admin: true });
    const first = await (await h.request('/runs', { headers: { cookie } })).text();
    assert.equal(first.match(/name="run"/g)?.length, 50);
    assert.match(first, /run-052/);
    assert.doesNotMatch(first, /run-002</);
    const next = /href="(\/runs\?before=\d+)"/.exec(first)?.[1];
    assert.ok(next);
    const second = await (await h.request(next, { headers: { cookie } })).text();
    assert.equal(second.match(/name="run"/g)?.length, 3);
    assert.match(second, /run-002/);
    assert.doesNotMatch(second, /href="\/runs\?before=/);
  } finally {
    await h.close();
  }
});
