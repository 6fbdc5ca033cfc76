// The fleet console of docs/contract.md section 9: the device page, filters that survive paging, rename,
// delete, bulk actions (each item checked, scoped and logged as if alone), plain-text 400s (the device list's; the run list keeps its form: run_search.test.ts).
import assert from 'node:assert/strict';
import { refusedMessage } from '../support/refused.ts';
import { test } from 'node:test';
import { enrollDevice, harness, type Harness, upload } from '../support/harness.ts';
import { ACCOUNTS } from '../support/scenario.ts';

const DAY = 86_400_000;

async function fleet() {
  const h = await harness();
  const uma = await enrollDevice(h, ACCOUNTS.user.subject, 'Uma Laptop');
  const otto = await enrollDevice(h, ACCOUNTS.other.subject, 'Otto Phone');
  await upload(h, uma.credential, 'run-a', 'aaaa', 'full');
  await upload(h, uma.credential, 'run-b', 'bb', 'minimal');
  await upload(h, otto.credential, 'run-o', 'o', 'redacted');
  return { h, uma, otto };
}

function as(h: Harness, who: keyof typeof ACCOUNTS) {
  const { cookie, csrf } = h.signIn(ACCOUNTS[who]);
  return {
    csrf,
    get: (path: string) => h.request(path, { headers: { cookie } }),
    post: (path: string, body: string) =>
      h.request(path, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: `csrf=${encodeURIComponent(csrf)}${body ? `&${body}` : ''}`,
      }),
  };
}

const admin = { subject: 'local:admin', admin: true };

test('the device page shows what an operator asks about one device, and its runs', async () => {
  const { h, uma } = await fleet();
  try {
    const res = await as(h, 'user').get(`/devices/${uma.device}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const page = await res.text();
    for (const want of [
      'Uma Laptop',
      ACCOUNTS.user.subject,
      'active: it has called Paddock recently',
      'with a token minted by local:admin',
      'Last seen',
      'Last upload',
      '6 B in its runs',
      'full: the most revealing level',
      'run-a',
      'run-b',
      `action="/devices/${uma.device}/rename"`,
      'Revoking and deleting devices is for administrators.',
    ])
      assert.ok(page.includes(want), `device page holds ${want}`);
    assert.ok(!page.includes('run-o'), 'only its own runs');
    assert.ok(!page.includes('/revoke"'), 'no revoke for a non-admin');
    assert.doesNotMatch(page, /<script|style=/);
  } finally {
    await h.close();
  }
});

test('the device page is 404 outside the scope, for an unknown id and for a malformed one; a bad cursor is 400', async () => {
  const { h, otto } = await fleet();
  try {
    const user = as(h, 'user');
    for (const path of [`/devices/${otto.device}`, '/devices/d_nope', '/devices/%3Cb%3E']) {
      const res = await user.get(path);
      assert.equal(res.status, 404, path);
      assert.equal(await res.text(), 'device not found\n');
    }
    // A bad cursor is the page with its alert and no runs (docs/contract.md section 22).
    const bad = await as(h, 'admin').get(`/devices/${otto.device}?before=abc`);
    assert.equal(bad.status, 400);
    assert.match(bad.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await bad.text(), /<div role="alert">[\s\S]*bad page cursor[\s\S]*Newest runs/);
  } finally {
    await h.close();
  }
});

test('device ids in the device and run lists link to the device page', async () => {
  const { h, uma } = await fleet();
  try {
    const user = as(h, 'user');
    for (const path of ['/devices', '/runs'])
      assert.ok((await (await user.get(path)).text()).includes(`href="/devices/${uma.device}"`), path);
  } finally {
    await h.close();
  }
});

test('device filters: search, owner, status and sort; the page says which apply; paging keeps them', async () => {
  const h = await harness();
  try {
    for (let i = 0; i < 53; i++) await enrollDevice(h, ACCOUNTS.user.subject, `lab-${String(i).padStart(2, '0')}`);
    await enrollDevice(h, ACCOUNTS.other.subject, 'lab-other');
    await enrollDevice(h, ACCOUNTS.user.subject, 'kitchen');
    let a = as(h, 'admin');
    const first = await (await a.get('/devices?q=LAB-&owner=oidc%3Auser-1&sort=name')).text();
    assert.match(first, /1–50 of 53 devices, matching “LAB-”, owned by “oidc:user-1”, by name\./);
    assert.ok(first.includes('lab-00') && !first.includes('lab-50') && !first.includes('kitchen'));
    assert.ok(!first.includes('lab-other'));
    const next = /href="(\/devices\?[^"]*before=[0-9]+)"/.exec(first)?.[1]?.replaceAll('&amp;', '&');
    assert.ok(next, 'a link to the next page');
    assert.match(next, /q=LAB-/);
    assert.match(next, /owner=oidc%3Auser-1/);
    assert.match(next, /sort=name/);
    const second = await (await a.get(next)).text();
    assert.ok(second.includes('lab-50') && second.includes('lab-52') && !second.includes('lab-49'));
    assert.match(second, /51–53 of 53 devices/);
    assert.ok(second.includes('value="LAB-"'), 'the form shows the filter in use');

    h.clock.advance(40 * DAY);
    const fresh = await enrollDevice(h, ACCOUNTS.user.subject, 'fresh-one');
    a = as(h, 'admin'); // the earlier session has expired
    const stale = await (await a.get('/devices?status=stale')).text();
    assert.ok(stale.includes('kitchen') && !stale.includes('fresh-one'));
    assert.match(stale, /1–50 of 55 devices, status “stale”/);
    const active = await (await a.get('/devices?status=active')).text();
    assert.ok(active.includes(fresh.device) && !active.includes('lab-00'));
    assert.match(active, /1 of 1 device, status “active”/);
    const seen = await (await a.get('/devices?sort=last_seen')).text();
    assert.ok(seen.indexOf('fresh-one') < seen.indexOf('lab-'), 'most recently seen first');

    const user = await (await as(h, 'other').get('/devices?owner=oidc%3Auser-1')).text();
    assert.match(user, /No devices that you own/, "another account's devices stay out of the scope");
  } finally {
    await h.close();
  }
});

test('run filters: device, privacy and days; paging keeps them', async () => {
  const { h, uma } = await fleet();
  try {
    const day0 = new Date(h.clock.now()).toISOString().slice(0, 10);
    h.clock.advance(2 * DAY);
    await upload(h, uma.credential, 'run-later', 'later', 'full');
    const a = as(h, 'admin');
    const ids = async (query: string) =>
      [...(await (await a.get(`/runs${query}`)).text()).matchAll(/<a href="\/runs\/[^/]+\/([^"]+)">/g)].map(
        (m) => m[1],
      );
    assert.deepEqual(await ids(`?device=${uma.device}`), ['run-later', 'run-b', 'run-a']);
    assert.deepEqual(await ids('?privacy=minimal'), ['run-b']);
    assert.deepEqual(await ids(`?until=${day0}`), ['run-o', 'run-b', 'run-a'], 'until includes its day');
    assert.deepEqual(await ids(`?since=${day0}&until=${day0}&privacy=full`), ['run-a']);
    const laterDay = new Date(h.clock.now()).toISOString().slice(0, 10);
    assert.deepEqual(await ids(`?since=${laterDay}`), ['run-later']);
    assert.deepEqual(await ids('?device=&privacy=&since=&until='), ['run-later', 'run-o', 'run-b', 'run-a']);
    const page = await (await a.get('/runs?privacy=minimal')).text();
    assert.match(
      page,
      /Runs 1–1 of 1 \(counted within the last few seconds\), at privacy level “minimal”,\s+newest first\./,
    );
    assert.ok(page.includes('<option value="minimal" selected>'));
  } finally {
    await h.close();
  }
});

test('every bad query parameter of the device list is a 400 page that says what is wrong, never a 500', async () => {
  const { h } = await fleet();
  try {
    const a = as(h, 'admin');
    // The page itself, the message beside the field (docs/contract.md section 22): test/console/device_list.test.ts.
    const cases: Array<[string, RegExp]> = [
      ['/devices?status=sleeping', /status must be active, stale, pending or revoked/],
      ['/devices?sort=size', /sort must be newest, name, last_seen or last_seen_oldest/],
      ['/devices?q=ab', /q must be 3 to 128 printable characters/],
      ['/devices?q=%00%00%00', /q must be/],
      [`/devices?q=${'x'.repeat(129)}`, /q must be/],
      ['/devices?owner=root', /neither an account subject/],
      ['/devices?before=0', /bad page cursor/],
      ['/devices?status=active&status=stale', /a query parameter is given more than once/],
      ['/devices?seen=3d', /seen must be 5m, 1h, 24h, 7d, not:5m/],
      // The run list answers with its page too: test/console/run_search.test.ts.
    ];
    for (const [path, message] of cases) {
      const res = await a.get(path);
      assert.equal(res.status, 400, path);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(await res.text(), message, path);
    }
  } finally {
    await h.close();
  }
});

test('rename: the owner or an admin, 303 to the device; another account gets 404; a bad name 400', async () => {
  const { h, uma } = await fleet();
  try {
    const res = await as(h, 'user').post(`/devices/${uma.device}/rename`, 'name=%20Uma%E2%80%99s%20desk%20');
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), `/devices/${uma.device}`);
    assert.equal((await h.store.deviceVisibleTo(admin, uma.device))?.name, 'Uma’s desk');
    assert.ok(
      h.logs.some(
        (r) =>
          r.event === 'device.renamed' &&
          r.account === 'oidc:user-1' &&
          r.device === uma.device &&
          r.client === '203.0.113.7',
      ),
    );
    const other = await as(h, 'other').post(`/devices/${uma.device}/rename`, 'name=mine');
    assert.equal(other.status, 404);
    const bad = await as(h, 'admin').post(`/devices/${uma.device}/rename`, 'name=%E2%80%AEevil');
    const refused = await refusedMessage(bad, 'rename');
    assert.equal(refused.id, 'name');
    assert.equal(refused.message, 'name must be 1 to 128 printable characters');
    assert.match(refused.body, /id="name" name="name" value="\u202eevil"/, 'the name as sent');
    assert.equal((await h.store.deviceVisibleTo(admin, uma.device))?.name, 'Uma’s desk');
    const found = await (await as(h, 'admin').get('/devices?q=desk')).text();
    assert.ok(found.includes(uma.device), 'the search finds the new name');
  } finally {
    await h.close();
  }
});

test('delete: admin only, 409 while the device is not revoked, then the device and its runs are gone', async () => {
  const { h, uma } = await fleet();
  try {
    const a = as(h, 'admin');
    const early = await a.post(`/devices/${uma.device}/delete`, '');
    assert.equal(early.status, 409);
    assert.equal(await early.text(), 'revoke the device before deleting it\n');
    const byUser = await as(h, 'user').post(`/devices/${uma.device}/delete`, '');
    assert.equal(byUser.status, 403);
    assert.equal((await a.post(`/devices/${uma.device}/revoke`, '')).status, 303);
    const res = await a.post(`/devices/${uma.device}/delete`, '');
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), '/devices');
    assert.equal(await h.store.deviceVisibleTo(admin, uma.device), undefined);
    assert.equal(await h.store.runVisibleTo(admin, uma.device, 'run-a'), undefined);
    assert.ok(
      h.logs.some((r) => r.event === 'device.deleted' && r.device === uma.device && r.account === 'local:admin'),
    );
    assert.equal((await a.post(`/devices/${uma.device}/delete`, '')).status, 404);
  } finally {
    await h.close();
  }
});

test('bulk revoke: each device acted on and logged alone; ids it cannot act on change nothing and are counted', async () => {
  const { h, uma, otto } = await fleet();
  try {
    const a = as(h, 'admin');
    await a.post(`/devices/${otto.device}/revoke`, '');
    const before = h.logs.filter((r) => r.event === 'device.revoked').length;
    const res = await a.post(
      '/devices/bulk',
      `action=revoke&device=${uma.device}&device=${otto.device}&device=d_missing&device=%3Cb%3E`,
    );
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), '/devices');
    assert.notEqual((await h.store.deviceVisibleTo(admin, uma.device))?.revokedAt, null);
    assert.equal(h.logs.filter((r) => r.event === 'device.revoked').length, before + 1);
    const notice = (res.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
    const next = await h.request('/devices', { headers: { cookie: `${h.signIn(ACCOUNTS.admin).cookie}; ${notice}` } });
    assert.match(
      await next.text(),
      /1 device revoked; 1 already revoked; 2 not found or not yours: nothing done\./,
      'the summary says what happened to each',
    );
  } finally {
    await h.close();
  }
});

test('bulk delete: revoked devices go with their runs; active ones stay and are counted', async () => {
  const { h, uma, otto } = await fleet();
  try {
    const a = as(h, 'admin');
    await a.post(`/devices/${otto.device}/revoke`, '');
    const res = await a.post('/devices/bulk', `action=delete&device=${uma.device}&device=${otto.device}`);
    assert.equal(res.status, 303);
    assert.ok(await h.store.deviceVisibleTo(admin, uma.device));
    assert.equal(await h.store.deviceVisibleTo(admin, otto.device), undefined);
    assert.equal(await h.store.runVisibleTo(admin, otto.device, 'run-o'), undefined);
    assert.ok(h.logs.some((r) => r.event === 'device.deleted' && r.device === otto.device));
  } finally {
    await h.close();
  }
});

test('bulk on devices: admin only, CSRF first, and a bad action or no selection is 400 changing nothing', async () => {
  const { h, uma } = await fleet();
  try {
    const user = as(h, 'user');
    assert.equal((await user.post('/devices/bulk', `action=revoke&device=${uma.device}`)).status, 403);
    const noCsrf = await h.request('/devices/bulk', {
      method: 'POST',
      headers: { cookie: h.signIn(ACCOUNTS.user).cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: `action=revoke&device=${uma.device}`,
    });
    assert.equal(noCsrf.status, 403);
    assert.equal(await noCsrf.text(), 'stale form: reload the page and retry\n', 'CSRF is checked before admin');
    const a = as(h, 'admin');
    const bad = await a.post('/devices/bulk', `action=explode&device=${uma.device}`);
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /^action must be one the form offers/);
    const none = await a.post('/devices/bulk', 'action=revoke');
    assert.equal(none.status, 400);
    assert.equal(await none.text(), 'select at least one item\n');
    const twice = await a.post('/devices/bulk', `action=revoke&action=delete&device=${uma.device}`);
    assert.equal(twice.status, 403, 'a repeated field other than the items is a malformed form');
    assert.equal((await h.store.deviceVisibleTo(admin, uma.device))?.revokedAt, null);
  } finally {
    await h.close();
  }
});

test('bulk run delete: deletes what the account may, leaves the rest, says so', async () => {
  const { h, uma, otto } = await fleet();
  try {
    const res = await as(h, 'user').post(
      '/runs/bulk',
      `action=delete&run=${uma.device}%2Frun-a&run=${otto.device}%2Frun-o&run=nonsense&run=${uma.device}%2Frun-b`,
    );
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), '/runs');
    assert.equal(await h.store.runVisibleTo(admin, uma.device, 'run-a'), undefined);
    assert.equal(await h.store.runVisibleTo(admin, uma.device, 'run-b'), undefined);
    assert.ok(await h.store.runVisibleTo(admin, otto.device, 'run-o'), "another account's run stays");
    assert.equal(h.logs.filter((r) => r.event === 'run.deleted' && r.account === 'oidc:user-1').length, 2);
    const notice = (res.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
    const next = await h.request('/runs', { headers: { cookie: `${h.signIn(ACCOUNTS.user).cookie}; ${notice}` } });
    assert.match(await next.text(), /2 runs deleted; 2 not found or not yours: nothing done\./);
    const page = await (await as(h, 'user').get('/runs')).text();
    assert.doesNotMatch(page, /action="\/runs\/bulk/, 'no bulk form without runs');
  } finally {
    await h.close();
  }
});

test('the run list carries one bulk form with one csrf, and a checkbox per run bound to it', async () => {
  const { h, uma } = await fleet();
  try {
    const page = await (await as(h, 'user').get('/runs')).text();
    // Confirmed first (docs/contract.md section 22): the list's one bulk form posts to the confirm step.
    assert.equal(page.match(/action="\/runs\/bulk\/confirm"/g)?.length, 1);
    assert.ok(page.includes(`form="bulk-runs" name="run" value="${uma.device}/run-a"`));
  } finally {
    await h.close();
  }
});

test('every authenticated control call updates last seen, written at most once a minute', async () => {
  const { h, uma } = await fleet();
  try {
    const seen = async () => (await h.store.deviceVisibleTo(admin, uma.device))?.lastSeenAt;
    h.clock.advance(5 * 60_000);
    const t1 = h.clock.now();
    assert.equal((await upload(h, uma.credential, 'run-a', 'aaaa')).status, 200, 'an identical retry');
    assert.equal(await seen(), t1);
    h.clock.advance(30_000);
    assert.equal((await upload(h, uma.credential, 'run-a', 'other')).status, 409);
    assert.equal(await seen(), t1, 'not written again within the minute');
    h.clock.advance(31_000);
    assert.equal((await upload(h, uma.credential, 'bad%21', 'x')).status, 400, 'an authenticated call with a bad id');
    assert.equal(await seen(), h.clock.now());
  } finally {
    await h.close();
  }
});
