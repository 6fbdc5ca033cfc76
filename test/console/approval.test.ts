// Approval in the console (docs/contract.md section 16): the mint form's `approval`, the pending
// status on the device page and in the list's filter, the approve and reject buttons one by one
// and in bulk (administrators only), the dashboard's count of waiting devices, the gauge of the
// oldest, and the events: logged, audited and queued for webhooks.
import assert from 'node:assert/strict';
import { refusedMessage } from '../support/refused.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { enrollDevice, harness, type Harness, upload } from '../support/harness.ts';
import { ACCOUNTS } from '../support/scenario.ts';

const TOKEN = 'a-metrics-token-for-the-tests-0123456789';

function as(h: Harness, who: keyof typeof ACCOUNTS) {
  const { cookie, csrf } = h.signIn(ACCOUNTS[who]);
  return {
    csrf,
    get: (path: string) => h.request(path, { headers: { cookie } }),
    post: (path: string, body = '') =>
      h.request(path, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: `csrf=${encodeURIComponent(csrf)}${body ? `&${body}` : ''}`,
      }),
  };
}

/** Mints through the console's form with `approval=required` and enrolls a device with the link's token. */
async function enrollPending(h: Harness, name: string, owner: string = ACCOUNTS.user.subject) {
  const minted = await as(h, 'admin').post(
    '/enroll-tokens',
    new URLSearchParams({ owner, approval: 'required' }).toString(),
  );
  assert.equal(minted.status, 200);
  const page = await minted.text();
  const link = /(paddock:\/\/enroll\?[^<"]+)/.exec(page)?.[1]?.replaceAll('&amp;', '&') ?? '';
  const token = new URL(link).searchParams.get('token');
  const res = await h.control('/v1/enroll', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, name }),
  });
  assert.equal(res.status, 201);
  return { ...((await res.json()) as { device: string; credential: string }), page };
}

const metric = (scrape: string, series: string) =>
  Number(
    scrape
      .split('\n')
      .find((l) => l.startsWith(`${series} `))
      ?.slice(series.length + 1),
  );

test('the mint form takes approval=required, shows it, and refuses any other value', async () => {
  const h = await harness();
  try {
    const admin = as(h, 'admin');
    const form = await (await admin.get('/enroll-tokens')).text();
    assert.match(form, /<input id="approval" name="approval" type="checkbox" value="required" \/>/);
    assert.match(form, /<label for="approval"/);
    const { page } = await enrollPending(h, 'waiting');
    assert.match(page, /required: the devices it enrolls wait on <a href="\/devices\?status=pending">/);
    const minted = h.logs.find((r) => r.event === 'enroll_token.minted');
    assert.equal(minted?.approval, 'required');
    // A token with uses left is listed with its approval.
    await admin.post('/enroll-tokens', 'uses=3&approval=required');
    await admin.post('/enroll-tokens', 'uses=3');
    const listed = await (await admin.get('/enroll-tokens')).text();
    assert.match(listed, /<td>required: devices wait<\/td>/);
    assert.match(listed, /<td>automatic<\/td>/);
    for (const bad of ['yes', 'REQUIRED', 'none']) {
      const refused = await refusedMessage(await admin.post('/enroll-tokens', `approval=${bad}`), bad);
      assert.equal(refused.id, 'approval');
      assert.equal(refused.message, 'approval must be automatic or required');
    }
  } finally {
    await h.close();
  }
});

test('a pending device: its page, the status filter, the buttons for administrators alone, the dashboard count', async () => {
  const h = await harness();
  try {
    const active = await enrollDevice(h, ACCOUNTS.user.subject, 'Active One');
    const { device } = await enrollPending(h, 'Waiting One');
    const admin = as(h, 'admin');
    const user = as(h, 'user');

    const page = await (await admin.get(`/devices/${device}`)).text();
    assert.match(page, /pending: it waits for an administrator to approve or reject it/);
    assert.ok(page.includes(`action="/devices/${device}/approve"`));
    // Reject is confirmed first (docs/contract.md section 22): a link to its confirmation page.
    assert.ok(page.includes(`href="/devices/${device}/reject"`));
    assert.match(page, /A device waiting for approval takes no requests\./);
    const own = await (await user.get(`/devices/${device}`)).text();
    assert.match(own, /pending: it waits/, 'its owner sees it waits');
    assert.ok(!own.includes('/approve"') && !own.includes('/reject"'), 'no buttons for a non-admin');

    const pending = await (await admin.get('/devices?status=pending')).text();
    assert.ok(pending.includes(device) && !pending.includes(active.device), 'only the waiting device');
    assert.ok(pending.includes(`action="/devices/${device}/approve"`), 'its row offers approve');
    assert.match(pending, /<option value="approve">/);
    assert.match(pending, /<option value="reject">/);
    const actives = await (await admin.get('/devices?status=active')).text();
    assert.ok(actives.includes(active.device) && !actives.includes(`/devices/${device}"`), 'pending is not active');
    const owned = await (await user.get('/devices?status=pending')).text();
    assert.ok(owned.includes(device) && !owned.includes('/approve"'));

    const dashboard = await (await admin.get('/')).text();
    assert.match(
      dashboard,
      /<th scope="row">Waiting for approval<\/th>\s*<td><a href="\/devices\?status=pending">1<\/a><\/td>\s*<td>the oldest since/,
    );
    assert.doesNotMatch(
      await (await user.get('/')).text(),
      /Waiting for approval/,
      'administrators decide: they see it',
    );
  } finally {
    await h.close();
  }
});

test('approve and reject: administrators only, 303 to the device, once; a rejected device is revoked at once', async () => {
  const h = await harness();
  try {
    const kept = await enrollPending(h, 'kept');
    const gone = await enrollPending(h, 'gone');
    const admin = as(h, 'admin');
    const user = as(h, 'user');

    const refused = await user.post(`/devices/${kept.device}/approve`);
    assert.equal(refused.status, 403);
    assert.equal(await refused.text(), 'this action needs an administrator account\n');
    assert.equal((await user.post(`/devices/${gone.device}/reject`)).status, 403);

    const approved = await admin.post(`/devices/${kept.device}/approve`);
    assert.equal(approved.status, 303);
    assert.equal(approved.headers.get('location'), `/devices/${kept.device}`);
    const cookie = approved.headers.get('set-cookie') ?? '';
    assert.match(cookie, /service_notice=/);
    assert.equal((await upload(h, kept.credential, 'first', 'x')).status, 201, 'it uploads at once');
    const again = await admin.post(`/devices/${kept.device}/approve`);
    assert.equal(again.status, 409);
    assert.equal(await again.text(), 'the device is not waiting for approval: nothing changed\n');
    assert.equal(
      (await admin.post(`/devices/${kept.device}/reject`)).status,
      409,
      'an approved device is not rejected',
    );
    assert.equal((await admin.post('/devices/d_nosuchdevice0000/approve')).status, 404);

    const rejected = await admin.post(`/devices/${gone.device}/reject`);
    assert.equal(rejected.status, 303);
    assert.equal((await upload(h, gone.credential, 'first', 'x')).status, 401, 'refused at once');
    const page = await (await admin.get(`/devices/${gone.device}`)).text();
    assert.match(page, /revoked: its credential is refused/);
    assert.equal((await admin.post(`/devices/${gone.device}/approve`)).status, 409);

    assert.deepEqual(
      h.logs
        .filter((r) => r.event === 'device.approved' || r.event === 'device.rejected')
        .map((r) => [r.event, r.device, r.account, r.client]),
      [
        ['device.approved', kept.device, 'local:admin', '203.0.113.7'],
        ['device.rejected', gone.device, 'local:admin', '203.0.113.7'],
      ],
    );
    assert.ok(!h.logs.some((r) => r.event === 'device.revoked'), 'a rejection is its own event');
  } finally {
    await h.close();
  }
});

test('bulk approve and reject: each device as if alone, with a summary that counts those that did not wait', async () => {
  const h = await harness();
  try {
    const active = await enrollDevice(h, ACCOUNTS.user.subject, 'active');
    const a = await enrollPending(h, 'a');
    const b = await enrollPending(h, 'b');
    const c = await enrollPending(h, 'c');
    const admin = as(h, 'admin');
    const devices = (...ids: string[]) => ids.map((id) => `device=${id}`).join('&');

    const approved = await admin.post('/devices/bulk', `action=approve&${devices(a.device, b.device, active.device)}`);
    assert.equal(approved.status, 303);
    assert.equal(approved.headers.get('location'), '/devices');
    const notice = (approved.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const shown = await (
      await h.request('/devices', { headers: { cookie: `${h.signIn(ACCOUNTS.admin).cookie}; ${notice}` } })
    ).text();
    assert.match(shown, /2 devices approved; 1 not waiting for approval: nothing done\./);

    const rejected = await admin.post('/devices/bulk', `action=reject&${devices(c.device, a.device)}`);
    assert.equal(rejected.status, 303);
    assert.equal((await upload(h, c.credential, 'r', 'x')).status, 401);
    assert.equal((await upload(h, a.credential, 'r', 'x')).status, 201, 'approved before: not rejected');
    assert.deepEqual(
      h.logs.filter((r) => r.event === 'device.approved').map((r) => r.device),
      [a.device, b.device],
    );
    assert.deepEqual(
      h.logs.filter((r) => r.event === 'device.rejected').map((r) => r.device),
      [c.device],
    );
    const user = as(h, 'user');
    assert.equal((await user.post('/devices/bulk', `action=approve&${devices(b.device)}`)).status, 403);
  } finally {
    await h.close();
  }
});

test('the gauge of the oldest waiting device, and paddock_devices{status="pending"}', async () => {
  const h = await harness({ config: { metricsToken: TOKEN } });
  try {
    const scrape = async () => (await h.request('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    assert.equal(metric(await scrape(), 'paddock_devices_pending_oldest_timestamp_seconds'), 0, 'none waits');
    await enrollDevice(h, ACCOUNTS.user.subject, 'active');
    const first = h.clock.now();
    const older = await enrollPending(h, 'older');
    h.clock.advance(3_600_000);
    await enrollPending(h, 'newer');
    let s = await scrape();
    assert.equal(metric(s, 'paddock_devices_pending_oldest_timestamp_seconds'), first / 1000);
    assert.equal(metric(s, 'paddock_devices{status="pending"}'), 2);
    assert.equal(metric(s, 'paddock_devices{status="active"}'), 1, 'a waiting device is not active');
    await as(h, 'admin').post(`/devices/${older.device}/approve`);
    s = await scrape();
    assert.equal(metric(s, 'paddock_devices_pending_oldest_timestamp_seconds'), first / 1000 + 3600);
    assert.equal(metric(s, 'paddock_devices{status="active"}'), 2);
    assert.match(s, /# TYPE paddock_devices_pending_oldest_timestamp_seconds gauge/);
  } finally {
    await h.close();
  }
});

test('device.pending, device.approved and device.rejected are audited and queued for a webhook with the change', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-approval-'));
  const h = await harness({ store: openSqliteStore(dir) });
  try {
    const admin = as(h, 'admin');
    const hook = await admin.post('/webhooks', 'url=https%3A%2F%2Fhooks.example.com%2Fin&event=*');
    assert.equal(hook.status, 200);
    const kept = await enrollPending(h, 'kept');
    const gone = await enrollPending(h, 'gone');
    await admin.post(`/devices/${kept.device}/approve`);
    await admin.post(`/devices/${gone.device}/reject`);
    const db = new DatabaseSync(join(dir, 'paddock.db'), { readOnly: true });
    // Queued in the outbox, or already fanned out to deliveries by the sender: either holds each message.
    const queued = db
      .prepare(
        `SELECT event, data FROM webhook_outbox WHERE event LIKE 'device.%'
         UNION ALL SELECT event, data FROM webhook_messages WHERE event LIKE 'device.%'`,
      )
      .all() as Array<{ event: string; data: string }>;
    db.close();
    const events = queued.map((q) => `${q.event} ${(JSON.parse(q.data) as { device: string }).device}`).sort();
    assert.deepEqual(
      events,
      [
        `device.approved ${kept.device}`,
        `device.enrolled ${gone.device}`,
        `device.enrolled ${kept.device}`,
        `device.pending ${gone.device}`,
        `device.pending ${kept.device}`,
        `device.rejected ${gone.device}`,
      ].sort(),
    );
    await h.flushAudit();
    const trail: string[] = [];
    for await (const batch of h.store.auditBatches({}, 50))
      trail.push(...batch.filter((r) => /^device\.(pending|approved|rejected)$/.test(r.event)).map((r) => r.event));
    assert.deepEqual(trail.sort(), ['device.approved', 'device.pending', 'device.pending', 'device.rejected']);
  } finally {
    await h.close();
    await rm(dir, { recursive: true, force: true });
  }
});
