// Groups own devices, and accounts leave (docs/contract.md sections 19 and 20), in a real browser
// against a real OpenID provider (oidc-provider, whose identity tokens carry the groups claim):
// a device enrolled for `group:ops` is seen (and labelled) by a member of ops and by nobody else;
// handed over by an administrator (by keyboard), it leaves the member's view at their next request;
// the groups pages. Then SCIM, as Okta sends it: a user provisioned and listed as not signed in, who signs in
// in the browser with the groups SCIM pushed, and whose live session ends at its next request once
// Okta sets `active` false, their devices handed to PADDOCK_SCIM_HAND_OVER_TO. Every page is
// audited (CSP, other origins, axe-core, labels, Tab order); screenshots at 1280×900.
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { type PaddockProcess, paddock } from '../support/process.ts';
import { freePort } from '../support/tls_fixture.ts';
import { audit, chromiumAvailable, launch, openMore, type Watched, watchedContext } from './browser.ts';
import { ADMIN_GROUP, CLIENT, type StartedProvider, startProvider } from './provider.ts';

const PASSWORD = 'e2e groups password';
const VIEWPORT = { width: 1280, height: 900 };
const SCIM_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const SCIM_GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const SCIM_PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
let browser: Browser;
let idp: StartedProvider;
let server: PaddockProcess;
let origin = '';
let admin: Watched;
const devices: Record<string, string> = {};

/** Waits for the document a keypress or a click leads to. */
async function navigation(page: Page, act: () => Promise<void>): Promise<void> {
  await Promise.all([page.waitForEvent('framenavigated', (frame) => frame === page.mainFrame()), act()]);
  await page.waitForLoadState('load');
}

/** The main element's text with its white space collapsed. */
async function mainText(page: Page): Promise<string> {
  return ((await page.textContent('main')) ?? '').replace(/\s+/g, ' ');
}

/** A new browser that signs in through the provider's own pages as `login`. */
async function oidcSignIn(login: string): Promise<Watched> {
  const w = await watchedContext(browser, VIEWPORT);
  await w.page.goto(`${origin}/login`);
  await w.page.click('text=Sign in with your identity provider');
  await w.page.fill('input[name=login]', login);
  await w.page.fill('input[name=password]', 'any password');
  await w.page.click('button[type=submit]');
  // The provider asks for consent the first time.
  if (!w.page.url().startsWith(origin)) await w.page.click('button[type=submit]');
  await w.page.waitForURL(`${origin}/`);
  // Sign-in visited the provider's origin; every later check is about Paddock's pages only.
  w.requests.length = 0;
  return w;
}

/** Mints an enrollment link for `owner` on the console, with `uses` uses. */
async function mint(owner: string, uses: number): Promise<string> {
  await admin.page.goto(`${origin}/enroll-tokens`);
  await admin.page.fill('#owner', owner);
  await admin.page.fill('#uses', String(uses));
  await navigation(admin.page, () => admin.page.click('text=Mint enrollment link'));
  return (await admin.page.inputValue('#link')).trim();
}

async function enroll(link: string, name: string): Promise<{ device: string; credential: string }> {
  const res = await fetch(`${origin}/v1/enroll`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: new URL(link).searchParams.get('token'), name }),
  });
  assert.equal(res.status, 201);
  return (await res.json()) as { device: string; credential: string };
}

async function upload(credential: string, id: string): Promise<void> {
  const res = await fetch(`${origin}/v1/runs/${id}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${credential}`, 'x-privacy-level': 'redacted', 'content-type': 'text/plain' },
    body: `run ${id}\n`,
  });
  assert.equal(res.status, 201);
}

/** What `w` sees of the fleet: the device list's and the run list's text, and the device page's status. */
async function sees(w: Watched, device: string): Promise<{ devices: string; runs: string; page: number }> {
  await w.page.goto(`${origin}/devices`);
  const list = await mainText(w.page);
  await w.page.goto(`${origin}/runs`);
  const runs = await mainText(w.page);
  const res = await w.page.goto(`${origin}/devices/${device}`);
  return { devices: list, runs, page: res?.status() ?? 0 };
}

if (!chromiumAvailable()) {
  test('groups in the browser (skipped: no Chromium at /usr/bin/chromium and not on CI)', { skip: true }, () => {});
} else {
  describe('groups own devices, and accounts leave, in Chromium', () => {
    before(async () => {
      const [port, providerPort] = [await freePort(), await freePort()];
      origin = `http://127.0.0.1:${port}`;
      idp = await startProvider(providerPort, `${origin}/admin/callback`);
      server = paddock(['serve'], {
        PADDOCK_LISTEN: `127.0.0.1:${port}`,
        PADDOCK_BASE_URL: origin,
        PADDOCK_DATA_DIR: join(await mkdtemp(join(tmpdir(), 'paddock-e2e-groups-')), 'data'),
        PADDOCK_ADMIN_PASSWORD: PASSWORD,
        PADDOCK_OIDC_ISSUER: idp.issuer,
        PADDOCK_OIDC_CLIENT_ID: CLIENT.id,
        PADDOCK_OIDC_CLIENT_SECRET: CLIENT.secret,
        PADDOCK_OIDC_ADMIN_GROUP: ADMIN_GROUP,
        PADDOCK_SCIM_HAND_OVER_TO: 'group:ops',
      });
      await server.waitFor(/serving on/);
      browser = await launch();
      admin = await watchedContext(browser, VIEWPORT);
      await admin.page.goto(`${origin}/login`);
      await admin.page.fill('#username', 'admin');
      await admin.page.fill('#password', PASSWORD);
      await navigation(admin.page, () => admin.page.click('button[type=submit]'));
      const link = await mint('group:ops', 2);
      for (const name of ['ops-pump', 'ops-valve']) {
        const enrolled = await enroll(link, name);
        devices[name] = enrolled.device;
        await upload(enrolled.credential, `${name}-run-1`);
      }
    });
    after(async () => {
      await browser?.close();
      server?.child.kill('SIGTERM');
      idp?.close();
    });

    test('a member of ops sees the group’s devices and runs; an account outside it sees neither', async () => {
      const pump = devices['ops-pump'] ?? '';
      const olga = await oidcSignIn('olga');
      assert.match((await olga.page.textContent('header')) ?? '', /Signed in as Olga Operator \(oidc:olga\)/);
      assert.deepEqual(idp.idTokens.at(-1)?.groups, ['staff', 'ops'], 'the provider issued the groups claim');
      const member = await sees(olga, pump);
      assert.match(member.devices, /ops-pump/);
      assert.match(member.devices, /ops-valve/);
      assert.match(member.runs, /ops-pump-run-1/);
      assert.match(member.runs, /ops-valve-run-1/);
      assert.equal(member.page, 200);
      const page = await mainText(olga.page);
      assert.match(page, /Owner group:ops/);
      assert.match(page, /ops-pump-run-1/);
      assert.doesNotMatch(page, /Hand over this device/, 'handing over is for administrators');
      // An owner's action, by a member of the owning group, with the keyboard.
      await olga.page.focus('#labels');
      await olga.page.keyboard.type('site=plant-2');
      await olga.page.keyboard.press('Tab');
      await navigation(olga.page, () => olga.page.keyboard.press('Enter'));
      assert.equal(olga.page.url(), `${origin}/devices/${pump}`);
      assert.match((await olga.page.textContent('[role=status]')) ?? '', /The labels of device .+ were saved\./);
      await audit(olga, origin, 'device-group-member');
      await olga.context.close();

      const bob = await oidcSignIn('bob');
      const outsider = await sees(bob, pump);
      assert.doesNotMatch(outsider.devices, /ops-pump|ops-valve/);
      assert.doesNotMatch(outsider.runs, /ops-pump-run-1|ops-valve-run-1/);
      assert.equal(outsider.page, 404, 'a device out of scope is not found');
      await bob.context.close();
    });

    test('the groups pages by keyboard: every group with its members and devices, then one group', async () => {
      const { page } = admin;
      await page.goto(`${origin}/`);
      await openMore(page);
      await navigation(page, () => page.click('nav >> text=Groups'));
      assert.equal(page.url(), `${origin}/groups`);
      const list = await mainText(page);
      assert.match(list, /ops 1: Olga Operator 2 devices/);
      assert.match(list, /staff 2: (Bob Builder, Olga Operator|Olga Operator, Bob Builder) 0 devices/);
      await audit(admin, origin, 'groups');
      await page.focus('td >> a:text-is("ops")');
      await navigation(page, () => page.keyboard.press('Enter'));
      assert.equal(page.url(), `${origin}/groups/ops`);
      const one = await mainText(page);
      assert.match(one, /Owner name group:ops/);
      assert.match(one, /Members 1: Olga Operator/);
      assert.match(one, /ops-pump/);
      assert.match(one, /ops-valve/);
      await audit(admin, origin, 'group');
      await page.focus('main a:has-text("2 devices")');
      await navigation(page, () => page.keyboard.press('Enter'));
      assert.equal(page.url(), `${origin}/devices?owner=group%3Aops`);
      assert.match(await mainText(page), /1–2 of 2 devices/);
    });

    test('handed over by keyboard, a device leaves the group member’s view at their next request', async () => {
      const pump = devices['ops-pump'] ?? '';
      const olga = await oidcSignIn('olga');
      assert.match((await sees(olga, pump)).devices, /ops-pump/);

      const { page } = admin;
      await page.goto(`${origin}/devices/${pump}`);
      assert.equal(await page.inputValue('#owner'), 'group:ops');
      await audit(admin, origin, 'device-hand-over');
      await page.focus('#owner');
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.type('oidc:bob');
      await page.keyboard.press('Tab');
      assert.ok(
        await page
          .locator('button:has-text("Hand over this device and its runs")')
          .evaluate((b) => b === b.ownerDocument.activeElement),
      );
      await navigation(page, () => page.keyboard.press('Enter'));
      assert.equal(page.url(), `${origin}/devices/${pump}`);
      assert.equal((await page.textContent('[role=status]')) ?? '', `Device ${pump} was handed over, with its runs.`);
      assert.match(await mainText(page), /Owner oidc:bob/);

      // Olga's live session, its next request: the device and its run are gone; the other stays.
      const after = await sees(olga, pump);
      assert.doesNotMatch(after.devices, /ops-pump/);
      assert.match(after.devices, /ops-valve/);
      assert.doesNotMatch(after.runs, /ops-pump-run-1/);
      assert.equal(after.page, 404);
      await olga.context.close();
      const bob = await oidcSignIn('bob');
      const now = await sees(bob, pump);
      assert.match(now.devices, /ops-pump/);
      assert.match(now.runs, /ops-pump-run-1/);
      assert.equal(now.page, 200);
      await bob.context.close();

      const trail = await page.request.get(`${origin}/audit.jsonl?event=device.owner_changed`);
      assert.equal(trail.status(), 200);
      const records = (await trail.text())
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { account: string; device: string; detail: string });
      assert.deepEqual(
        records.map((r) => [r.account, r.device, r.detail]),
        [['local:admin', pump, 'from=group:ops to=oidc:bob']],
      );
    });

    test('SCIM as Okta sends it: provisioned, signed in with its pushed groups, then deactivated, which ends the live session', async () => {
      const { page } = admin;
      // The token the identity provider is given: scope scim, made on the console.
      await page.goto(`${origin}/tokens`);
      await page.fill('#name', 'okta');
      await page.selectOption('#scope', 'scim');
      await navigation(page, () => page.click('button:has-text("Create token")'));
      const token = (await page.inputValue('#token')).trim();
      const scim = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${origin}/scim/v2${path}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            accept: 'application/scim+json',
            ...(body === undefined ? {} : { 'content-type': 'application/scim+json; charset=utf-8' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await res.text();
        return { status: res.status, body: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown> };
      };

      // Okta: does the user exist? No: create it, then push the group ops with it as a member.
      const lookup = await scim(
        'GET',
        `/Users?filter=${encodeURIComponent('userName eq "sam"')}&startIndex=1&count=100`,
      );
      assert.equal(lookup.status, 200);
      assert.equal(lookup.body.totalResults, 0);
      const created = await scim('POST', '/Users', {
        schemas: [SCIM_USER],
        userName: 'sam',
        name: { givenName: 'Sam', familyName: 'Seasonal' },
        emails: [{ primary: true, value: 'sam@example.com', type: 'work' }],
        displayName: 'Sam Seasonal',
        locale: 'en-US',
        externalId: '00usam0000000000001',
        groups: [],
        active: true,
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = String(created.body.id);
      const pushed = await scim('POST', '/Groups', {
        schemas: [SCIM_GROUP],
        displayName: 'ops',
        members: [{ value: id, display: 'sam' }],
      });
      assert.equal(pushed.status, 201, JSON.stringify(pushed.body));
      const tablet = await enroll(await mint('oidc:sam', 1), 'sam-tablet');
      devices['sam-tablet'] = tablet.device;

      await page.goto(`${origin}/accounts`);
      assert.match(await mainText(page), /Provisioned, not signed in \(1\) .*sam Sam Seasonal active/);
      await audit(admin, origin, 'accounts-provisioned');

      // Sam signs in: the provider's groups claim says staff, SCIM says ops, and SCIM wins.
      const sam = await oidcSignIn('sam');
      assert.match((await sam.page.textContent('header')) ?? '', /Signed in as Sam Seasonal \(oidc:sam\)/);
      const reach = await sees(sam, tablet.device);
      assert.match(reach.devices, /sam-tablet/);
      assert.match(reach.devices, /ops-valve/, 'the group SCIM pushed');
      assert.doesNotMatch(reach.devices, /ops-pump/);
      assert.equal(reach.page, 200);
      await page.goto(`${origin}/accounts`);
      assert.doesNotMatch(await mainText(page), /Provisioned, not signed in/);

      // Okta deactivates: PATCH active=false, never DELETE.
      const off = await scim('PATCH', `/Users/${id}`, {
        schemas: [SCIM_PATCH],
        Operations: [{ op: 'replace', value: { active: false } }],
      });
      assert.equal(off.status, 200, JSON.stringify(off.body));
      assert.equal(off.body.active, false);

      // Sam's live session, its next request: refused, as a disabled account's is (section 14).
      const refused = await sam.page.request.get(`${origin}/devices`, { maxRedirects: 0 });
      assert.equal(refused.status(), 303, 'the session cookie is refused');
      assert.equal(refused.headers()['location'], '/login');
      await sam.page.goto(`${origin}/devices`);
      assert.equal(sam.page.url(), `${origin}/login`);
      // Signing in again (the provider still knows Sam) is refused as a disabled account's sign-in.
      const again = await sam.page.request.get(`${origin}/auth/start`);
      assert.equal(again.status(), 403);
      assert.match(await again.text(), /this account is disabled/);
      await sam.context.close();

      // PADDOCK_SCIM_HAND_OVER_TO: Sam's tablet went to group:ops, so Olga sees it now.
      await page.goto(`${origin}/devices/${tablet.device}`);
      assert.match(await mainText(page), /Owner group:ops/);
      await page.goto(`${origin}/accounts/${encodeURIComponent('oidc:sam')}`);
      assert.match(await mainText(page), /disabled/i);
      const olga = await oidcSignIn('olga');
      assert.match((await sees(olga, tablet.device)).devices, /sam-tablet/);
      await olga.context.close();
      const deactivated = await page.request.get(`${origin}/audit.jsonl?event=scim.user_deactivated`);
      const [record] = (await deactivated.text())
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { detail: string });
      assert.match(record?.detail ?? '', /handed_over=1/);
      assert.match(record?.detail ?? '', /to=group:ops/);
    });
  });
}
