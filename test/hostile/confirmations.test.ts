// The confirmation pages and `return` under attack (docs/contract.md section 22): malformed ids,
// huge and evil `return` values, repeated fields and open-redirect attempts, in process and on a raw
// socket. Never a 500 or a stack; never a redirect off-site or to another page; nothing acted on
// by a confirmation page or by a form the guard refuses.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { enrollDevice, harness, type Harness, upload } from '../support/harness.ts';
import { exchange, live, statuses } from '../support/live.ts';
import { ACCOUNTS } from '../support/scenario.ts';

const EVIL_RETURNS = [
  'https://evil.example/devices',
  'http:evil.example',
  '//evil.example/devices',
  '/\\evil.example',
  '\\/evil.example',
  '/%2F%2Fevil.example',
  '/devices/..//evil.example',
  '/devices@evil.example',
  '/devices\r\nLocation: https://evil.example',
  '/devices?\u0000',
  '/devices?q="><script>alert(1)</script>',
  'javascript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  ` /devices`,
  `/devices?q=${'a'.repeat(100_000)}`,
  '/accounts',
  '/devices/d_x',
  '/runs/d_x/r1',
];

const noStack = (body: string, what: string) => assert.doesNotMatch(body, /at .*\.ts:\d+|Error:|node:internal/, what);

/** A redirect stays here: a local path, never `//` or `/\` (which browsers read as another host). */
function local(location: string | null, what: string): void {
  if (location === null) return;
  assert.match(location, /^\/(?![/\\])/, `${what}: ${location}`);
  assert.equal(new URL(location, 'http://paddock.invalid').origin, 'http://paddock.invalid', what);
}

async function fleet(h: Harness) {
  const a = await enrollDevice(h, ACCOUNTS.user.subject, 'Uma Laptop');
  assert.equal((await upload(h, a.credential, 'r1', 'one')).status, 201);
  return a.device;
}

test('confirmation pages with malformed ids: 404 as the action, or a 4xx; never a 500 or a stack', async () => {
  const h = await harness();
  try {
    const device = await fleet(h);
    const admin = h.signIn(ACCOUNTS.admin);
    const ids = [
      '%ZZ',
      '%00',
      '..%2F..%2Fetc',
      '%C3%28',
      'a'.repeat(5000),
      '%E2%80%AE',
      'd_%0d%0aX',
      encodeURIComponent('<b>'),
    ];
    const pages = [
      '/devices/:id/revoke',
      '/devices/:id/reject',
      '/devices/:id/delete',
      '/webhooks/:id/delete',
      '/accounts/:id/disable',
      `/runs/:id/r1/delete`,
      `/runs/${device}/:id/delete`,
    ];
    for (const route of pages)
      for (const id of ids) {
        const path = route.replace(':id', id);
        const res = await h.request(path, { headers: { cookie: admin.cookie } });
        const body = await res.text();
        assert.ok(res.status >= 400 && res.status < 500, `${path.slice(0, 60)}: ${res.status}`);
        noStack(body, path.slice(0, 60));
        assert.ok(!body.includes('<b>'), 'nothing of the id unescaped');
      }
    assert.equal((await h.store.deviceVisibleTo({ subject: 'local:admin', admin: true }, device))?.revokedAt, null);
  } finally {
    await h.close();
  }
});

test('evil return values: ignored by every confirmation page and action; never an off-site redirect', async () => {
  const h = await harness();
  try {
    const device = await fleet(h);
    const admin = h.signIn(ACCOUNTS.admin);
    const user = h.signIn(ACCOUNTS.user);
    for (const evil of EVIL_RETURNS) {
      const what = JSON.stringify(evil.slice(0, 60));
      // On the pages, from the query: the form carries no return, the way back is the page's own.
      for (const [page, who] of [
        [`/devices/${device}/revoke`, admin],
        [`/runs/${device}/r1/delete`, user],
      ] as const) {
        const res = await h.request(`${page}?return=${encodeURIComponent(evil)}`, { headers: { cookie: who.cookie } });
        const body = await res.text();
        assert.equal(res.status, 200, `${page} ${what}`);
        assert.ok(!body.includes('name="return"'), `${page} ${what}: not carried`);
        assert.ok(!body.includes('evil.example') && !body.includes('<script>'), `${page} ${what}: not shown`);
      }
      // Posted to the bulk steps: not carried either.
      const step = await h.request('/runs/bulk/confirm', {
        method: 'POST',
        headers: { cookie: user.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams([
          ['csrf', user.csrf],
          ['run', `${device}/r1`],
          ['return', evil],
        ]).toString(),
      });
      const stepBody = await step.text();
      // A value past the form's limit makes the whole form too large: refused (413), never acted on.
      assert.ok(step.status === 200 || step.status === 413, `${what}: ${step.status}`);
      assert.ok(!stepBody.includes('name="return"'), `${what}: not carried by the step`);
      // Posted to an action: the plain list.
      const res = await h.request('/devices/bulk', {
        method: 'POST',
        headers: { cookie: admin.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams([
          ['csrf', admin.csrf],
          ['action', 'label'],
          ['label', 'k=v'],
          ['device', device],
          ['return', evil],
        ]).toString(),
      });
      noStack(await res.text(), what);
      assert.ok(res.status === 303 || res.status === 413, `${what}: ${res.status}`);
      local(res.headers.get('location'), what);
      if (res.status === 303) assert.equal(res.headers.get('location'), '/devices', what);
    }
  } finally {
    await h.close();
  }
});

test('repeated fields: a repeated return or action is a malformed form (403), nothing acted on; a repeated query return is ignored', async () => {
  const h = await harness();
  try {
    const device = await fleet(h);
    const admin = h.signIn(ACCOUNTS.admin);
    const post = (path: string, pairs: Array<[string, string]>) =>
      h.request(path, {
        method: 'POST',
        headers: { cookie: admin.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams([['csrf', admin.csrf], ...pairs]).toString(),
      });
    for (const [path, pairs] of [
      [
        `/devices/${device}/revoke`,
        [
          ['return', '/devices'],
          ['return', '//evil.example'],
        ],
      ],
      [
        '/devices/bulk',
        [
          ['action', 'revoke'],
          ['device', device],
          ['return', '/devices?a=1'],
          ['return', '/devices?b=2'],
        ],
      ],
      [
        '/devices/bulk/confirm',
        [
          ['action', 'label'],
          ['action', 'revoke'],
          ['device', device],
        ],
      ],
      [
        '/runs/bulk/confirm',
        [
          ['action', 'delete'],
          ['action', 'delete'],
          ['run', `${device}/r1`],
        ],
      ],
      [
        '/collections/confirm',
        [
          ['privacy', 'minimal'],
          ['privacy', 'full'],
          ['reason', 'x'],
          ['device', device],
        ],
      ],
    ] as Array<[string, Array<[string, string]>]>) {
      const res = await post(path, pairs);
      assert.equal(res.status, 403, path);
      assert.equal(await res.text(), 'stale form: reload the page and retry\n', path);
    }
    assert.equal((await h.store.deviceVisibleTo({ subject: 'local:admin', admin: true }, device))?.revokedAt, null);
    const twice = `return=${encodeURIComponent('/devices?a=1')}&return=${encodeURIComponent('/devices?b=2')}`;
    const page = await (
      await h.request(`/devices/${device}/revoke?${twice}`, { headers: { cookie: admin.cookie } })
    ).text();
    assert.ok(!page.includes('name="return"'), 'a query return given twice is not carried');
    const handOver = await h.request('/accounts/oidc%3Auser-1/disable?hand_over_to=group%3Aa&hand_over_to=group%3Ab', {
      headers: { cookie: admin.cookie },
    });
    assert.equal(handOver.status, 400);
    // Thousands of selected ids, most of them nonsense: named or counted, never a 500.
    const many: Array<[string, string]> = [['action', 'revoke']];
    for (let i = 0; i < 2000; i++) many.push(['device', i % 2 ? `d_${i}` : `<i>${i}`]);
    many.push(['device', device]);
    const bulk = await post('/devices/bulk/confirm', many);
    const body = await bulk.text();
    assert.equal(bulk.status, 200);
    assert.match(body, /<h1>Revoke 1 device\?<\/h1>/);
    assert.match(body, /2000 selected devices were not found/);
    assert.ok(!body.includes('<i>'), 'escaped');
  } finally {
    await h.close();
  }
});

test('on a raw socket: confirmation pages and actions with evil request lines and returns; no 500, no stack, no off-site Location', async () => {
  const l = await live();
  try {
    const { cookie, csrf } = await l.signIn();
    const targets = [
      'GET /devices/%ZZ/revoke?return=%2F%2Fevil.example',
      'GET /devices/x/revoke?return=%0d%0aLocation:%20https://evil.example',
      'GET /runs/..%2F/x/delete?return=/runs',
      `GET /devices/d_x/delete?return=${'%2F'.repeat(3000)}`,
      'GET //evil.example/devices/x/revoke',
      'GET /\\evil.example/devices',
      'POST /devices/x/revoke',
      'POST /devices/bulk/confirm',
      'POST /runs/bulk/confirm',
    ];
    const trailer = `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\nConnection: close\r\n\r\n`;
    for (const target of targets) {
      const post = target.startsWith('POST');
      const body = post ? `csrf=${csrf}&action=revoke&device=x&return=${encodeURIComponent('//evil.example')}` : '';
      const head =
        `${target} HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\nCookie: ${cookie}\r\n` +
        (post ? `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n` : '') +
        '\r\n';
      const raw = await exchange(l.port, `${head}${body}${trailer}`);
      const codes = statuses(raw);
      const what = target.slice(0, 60);
      assert.equal(codes.length, 2, `${what}: both answered (${codes.join()})`);
      assert.ok(
        codes.every((code) => code < 500),
        `${what}: ${codes.join()}`,
      );
      noStack(raw, what);
      for (const [, location] of raw.matchAll(/^location: (.*)$/gim)) local(location?.trim() ?? '', what);
    }
  } finally {
    await l.close();
  }
});
