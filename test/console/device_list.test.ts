// The device list at fleet scale (docs/contract.md section 22), on both stores: silent devices
// (`seen=`, `sort=last_seen_oldest`), online status, totals ("1–50 of 53"), devices named and linked
// with the id beside, no per-row irreversible button, the bulk form before the rows, and a bad
// filter answered 400 with the page itself and the message beside the field. The API takes the same.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { COUNT_UP_TO, deviceCounter } from '../../src/console/device_counts.ts';
import type { Store } from '../../src/store/store.ts';
import { apiToken } from '../support/api_table.ts';
import { onBothStores } from '../support/both_stores.ts';
import { fakeClock } from '../support/fake_clock.ts';
import { harness, type Harness } from '../support/harness.ts';
import { ACCOUNTS } from '../support/scenario.ts';

const MIN = 60_000;
const DAY = 86_400_000;

/** A device of `owner` enrolled (so last seen) `ago` ms before the clock's now, with facts. */
async function device(h: Harness, id: string, ago: number, owner: string = ACCOUNTS.user.subject) {
  const at = h.clock.now() - ago;
  await h.store.createEnrollToken({
    hash: `tok-${id}`,
    owner,
    createdBy: 'local:admin',
    createdAt: at,
    expiresAt: at + DAY,
    labels: { site: 'berlin' },
  });
  const made = await h.store.enrollDevice({
    tokenHash: `tok-${id}`,
    now: at,
    deviceId: id,
    name: `name ${id}`,
    credentialHash: `cred-${id}`,
    facts: { os: 'linux', os_version: '6.1', client_version: '1.4.0' },
  });
  assert.ok(made, id);
}

function as(h: Harness, who: keyof typeof ACCOUNTS) {
  const { cookie } = h.signIn(ACCOUNTS[who]);
  return async (path: string) => {
    const res = await h.request(path, { headers: { cookie } });
    return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() };
  };
}

/** The device ids of a list page, in order (each row's link). */
const ids = (body: string) => [...body.matchAll(/<th scope="row"><a href="\/devices\/([^"]+)">/g)].map((m) => m[1]);
const older = (body: string) => /href="(\/devices\?[^"]*before=[0-9]+)"/.exec(body)?.[1]?.replaceAll('&amp;', '&');

/**
 * One world a store: the user's six devices seen from 40 days to a minute ago (one revoked), and the
 * other account's 55 seen a minute apart, in an order unlike their enrollment's.
 */
async function world(h: Harness) {
  for (const [id, ago] of [
    ['d_month', 40 * DAY],
    ['d_days', 2 * DAY],
    ['d_hour', 30 * MIN],
    ['d_now', MIN],
    ['d_off', 10 * MIN],
    ['d_gone', MIN],
  ] as const)
    await device(h, id, ago);
  await h.store.revokeDevice({ subject: 'local:admin', admin: true }, 'd_gone', h.clock.now());
  for (let i = 0; i < 55; i++) await device(h, OTHERS[i] ?? '', ((i * 37) % 55) * MIN + MIN, ACCOUNTS.other.subject);
}
const OTHERS = Array.from({ length: 55 }, (_, i) => `d_${String(i).padStart(2, '0')}`);

await onBothStores((name, open, skip) => {
  describe(`the device list on ${name}`, { skip }, () => {
    let h: Harness;
    before(async () => {
      h = await harness({ store: await open() });
      await world(h);
    });
    after(() => h?.close());

    test('seen= keeps devices seen within a window, or with not: those silent longer; silent longest first', async () => {
      const get = as(h, 'user');
      const cases: Array<[string, string[]]> = [
        ['seen=5m', ['d_gone', 'd_now']],
        ['seen=1h', ['d_gone', 'd_off', 'd_now', 'd_hour']],
        ['seen=24h', ['d_gone', 'd_off', 'd_now', 'd_hour']],
        ['seen=7d', ['d_gone', 'd_off', 'd_now', 'd_hour', 'd_days']],
        ['seen=not:5m', ['d_off', 'd_hour', 'd_days', 'd_month']],
        ['seen=not:7d', ['d_month']],
        // Ties (d_now and d_gone were seen at once) go by enrollment, as the keyset does.
        ['sort=last_seen_oldest', ['d_month', 'd_days', 'd_hour', 'd_off', 'd_now', 'd_gone']],
        ['seen=not:5m&sort=last_seen_oldest', ['d_month', 'd_days', 'd_hour', 'd_off']],
        ['seen=1h&sort=last_seen', ['d_gone', 'd_now', 'd_off', 'd_hour']],
        ['seen=7d&sort=name', ['d_days', 'd_gone', 'd_hour', 'd_now', 'd_off']],
        ['seen=not:24h&status=active', ['d_days']],
        ['seen=not:24h&status=stale', ['d_month']],
      ];
      for (const [query, expected] of cases) {
        const page = await get(`/devices?${query}`);
        assert.equal(page.status, 200, query);
        assert.deepEqual(ids(page.body), expected, query);
      }
      assert.match(
        (await get('/devices?seen=not:7d')).body,
        /1 of 1 device that you own, seen “not:7d”, newest first\./,
      );
      // An administrator's list, of every owner, reads the same range.
      assert.deepEqual(ids((await as(h, 'admin')('/devices?seen=not:24h')).body), ['d_days', 'd_month']);

      const token = await apiToken(h, 'admin');
      const api = (path: string) => h.request(path, { headers: { authorization: `Bearer ${token}` } });
      const res = await api('/api/v1/devices?owner=oidc%3Auser-1&seen=not:5m&sort=last_seen_oldest');
      assert.equal(res.status, 200);
      const items = ((await res.json()) as { items: Array<{ id: string }> }).items.map((d) => d.id);
      assert.deepEqual(items, ['d_month', 'd_days', 'd_hour', 'd_off']);
      const bad = await api('/api/v1/devices?seen=3d');
      assert.equal(bad.status, 400);
      assert.match(await bad.text(), /seen/);
    });

    test('silent longest first pages by its keyset; the totals say where the page is and how old the count', async () => {
      const get = as(h, 'other');
      const first = await get('/devices?sort=last_seen_oldest');
      assert.match(first.body, /1–50 of 55 devices that you own, silent longest first\./);
      const next = older(first.body) ?? '';
      assert.ok(next?.includes('sort=last_seen_oldest') && next.includes('from=51'), next);
      const second = await get(next);
      assert.match(second.body, /51–55 of 55 devices/);
      const expected = Array.from({ length: 55 }, (_, i) => i)
        .sort((a, b) => ((b * 37) % 55) - ((a * 37) % 55))
        .map((i) => OTHERS[i]);
      assert.deepEqual([...ids(first.body), ...ids(second.body)], expected);
      // A later page reached without its position still says the total.
      assert.match((await get(next.replace('from=51&', ''))).body, /5 older, of (about )?55 devices/);

      // A filtered list says its own total; a view within seconds says the count's age.
      const admin = as(h, 'admin');
      assert.match(
        (await admin('/devices?label=site%3Dberlin')).body,
        /1–50 of 61 devices, labelled “site=berlin”, newest first\./,
      );
      h.clock.advance(2_000);
      const again = await admin('/devices?label=site%3Dberlin');
      assert.match(again.body, /1–50 of about 61 devices.*<small>\(counted 2\u00a0s ago\)<\/small>/s);
    });

    test('rows name devices by name, linked, with the id beside; status online, offline, revoked; OS and client', async () => {
      const { body } = await as(h, 'admin')('/devices?owner=oidc%3Auser-1');
      assert.match(body, /<a href="\/devices\/d_now">name d_now<\/a> <small><code>d_now<\/code><\/small>/);
      const row = (id: string) => {
        const at = body.indexOf(`<a href="/devices/${id}">`);
        return body.slice(at, body.indexOf('</tr>', at));
      };
      assert.match(row('d_now'), /<td>online<\/td>/);
      assert.match(row('d_off'), /<td>offline<\/td>/);
      assert.match(row('d_month'), /<td>offline, stale<\/td>/);
      assert.match(
        row('d_gone'),
        /<td>revoked <time datetime="[^"]+" title="[^"]+ UTC">(now|\d+\u00a0s\u00a0ago)<\/time><\/td>/,
      );
      assert.match(row('d_off'), /<time datetime="[^"]+Z" title="[^"]+">10\u00a0min\u00a0ago<\/time>/);
      assert.match(row('d_now'), /<td>linux 6\.1<\/td>\s*<td>1\.4\.0<\/td>/);
      // No row posts an irreversible action: revoking and deleting are links to their confirmation.
      assert.doesNotMatch(body, /action="\/devices\/[^"]+\/(revoke|delete|reject)"/);
      assert.match(
        body,
        /<a href="\/devices\/d_now\/revoke\?return=%2Fdevices%3Fowner%3Doidc%253Auser-1">Revoke…<\/a>/,
      );
      assert.match(body, /<a href="\/devices\/d_gone\/delete\?return=[^"]+">Delete…<\/a>/);
      // The bulk form comes before the rows it acts on, and keeps its fields.
      const bulk = body.slice(body.indexOf('id="bulk-devices"'), body.indexOf('<table>'));
      assert.ok(body.indexOf('id="bulk-devices"') > 0 && bulk.length > 0, 'bulk form first');
      for (const field of ['name="action"', 'name="label"', 'name="owner"', 'name="csrf"', 'name="return"'])
        assert.ok(bulk.includes(field), field);
      assert.match(body, /1–6 of 6 devices, owned by “oidc:user-1”, newest first\./);
      // A non-admin sees its own, without the select column, the bulk form or an action.
      const mine = await as(h, 'user')('/devices');
      assert.match(mine.body, /1–6 of 6 devices that you own/);
      assert.doesNotMatch(mine.body, /bulk-devices|Revoke…/);
    });

    test('a bad filter answers 400 with the page itself, the form as sent, the message beside the field', async () => {
      const get = as(h, 'admin');
      const cases: Array<[string, string, string, RegExp]> = [
        ['q=ab', 'q', 'value="ab"', /q must be 3 to 128 printable characters/],
        ['label=Site%3Dx', 'label-1', 'value="Site=x"', /label/],
        ['fact=os', 'fact-1', 'value="os"', /key=value/],
        ['seen=3d', 'seen', '<option value="3d" selected>3d</option>', /seen must be 5m, 1h, 24h, 7d/],
        ['status=sleeping&q=lab', 'status', 'value="lab"', /status must be/],
      ];
      for (const [query, field, kept, message] of cases) {
        const page = await get(`/devices?${query}`);
        assert.equal(page.status, 400, query);
        assert.match(page.type, /^text\/html/, query);
        assert.ok(page.body.includes(kept), `${query}: ${kept}`);
        assert.ok(
          new RegExp(`id="${field}"[^>]*aria-invalid="true" aria-describedby="${field}-error"`).test(page.body),
          `${query}: ${field} marked`,
        );
        const said = new RegExp(`<strong id="${field}-error">([^<]*)</strong>`).exec(page.body)?.[1] ?? '';
        assert.match(said.replaceAll('&quot;', '"'), message, query);
        assert.ok(page.body.includes(`href="#${field}"`), `${query}: the alert links the field`);
        assert.doesNotMatch(page.body, /<table>/, `${query}: no rows`);
      }
    });
  });
});

test('counts are bounded and kept a few seconds per scope and filter', async () => {
  const clock = fakeClock();
  let asked = 0;
  const store = {
    countsVisibleTo: async () => ({ devices: 123_456, activeDevices: 0, runs: 0 }),
    countDevicesVisibleTo: async (_v: unknown, _f: unknown, upTo: number) => (asked++, upTo + 1),
  } as unknown as Store;
  const count = deviceCounter(store, clock);
  const admin = { subject: 'local:admin', admin: true };
  const filter = { staleBefore: 0 };
  assert.deepEqual(await count(admin, {}, filter), { n: 123_456, more: false, countedAt: clock.now() });
  const common = await count(admin, { label: ['fleet=main'] }, filter);
  assert.deepEqual(common, { n: COUNT_UP_TO, more: true, countedAt: clock.now() });
  await count(admin, { label: ['fleet=main'], sort: 'name' }, filter);
  assert.equal(asked, 1, 'the order does not change the count');
  await count({ subject: 'oidc:someone', admin: false }, { label: ['fleet=main'] }, filter);
  assert.equal(asked, 2, 'another scope is counted apart');
  clock.advance(5_000);
  await count(admin, { label: ['fleet=main'] }, filter);
  assert.equal(asked, 3, 'counted again after five seconds');
});
