// The console in a real browser against a real OpenID provider (oidc-provider): sign-in through
// the provider's own pages, break-glass sign-in, the dashboard, minting (the QR code decodes to the
// link), a non-admin account's view and refusal, delete, revoke and sign-out, the webhook pages;
// every page audited. Last, signing out on the provider's own page ends the Paddock session
// (back-channel logout).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { type PaddockProcess, paddock } from '../support/process.ts';
import { freePort } from '../support/tls_fixture.ts';
import { audit, chromiumAvailable, launch, openMore, type Watched, watchedContext } from './browser.ts';
import { ADMIN_GROUP, CLIENT, type StartedProvider, startProvider } from './provider.ts';
import { decodeQrSvg } from './qr.ts';
import { codeAt } from '../support/totp.ts';

/**
 * Presses Enter on the focused button and waits for the document its form leads to. A form that
 * posts back to the page it is on ends on the same URL, so waiting for the URL alone could read
 * the page from before the post (and its old notice).
 */
async function submitByKeyboard(page: Page): Promise<void> {
  await Promise.all([
    page.waitForEvent('framenavigated', (frame) => frame === page.mainFrame()),
    page.keyboard.press('Enter'),
  ]);
  await page.waitForLoadState('load');
}

/**
 * Opens the device list's folded filters (owner, labels, facts) by keyboard, unless they are open
 * already: docs/contract.md section 22 keeps the common ones on one line and folds the others.
 */
async function openFilters(page: Page): Promise<void> {
  if (await page.$('form[role=search] details[open]')) return;
  await page.focus('form[role=search] summary');
  await page.keyboard.press('Enter');
  await page.waitForSelector('form[role=search] details[open]');
}

const PASSWORD = 'e2e break-glass password';
const available = chromiumAvailable();
let browser: Browser;
let provider: Server;
/** The provider as started: its issuer, and the logout tokens it posted. */
let idp: StartedProvider;
let server: PaddockProcess;
let origin = '';
const devices: Record<string, { device: string; credential: string }> = {};
let alice: Watched;

async function oidcSignIn(w: Watched, login: string) {
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
}

async function enroll(link: string, name: string) {
  const token = new URL(link).searchParams.get('token');
  const res = await fetch(`${origin}/v1/enroll`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, name }),
  });
  assert.equal(res.status, 201);
  return (await res.json()) as { device: string; credential: string };
}

const upload = (credential: string, id: string, body: string) =>
  fetch(`${origin}/v1/runs/${id}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${credential}`, 'x-privacy-level': 'redacted', 'content-type': 'text/plain' },
    body,
  });

if (!available) {
  test('browser suite (skipped: no Chromium at /usr/bin/chromium and not on CI)', { skip: true }, () => undefined);
} else {
  describe('the console in Chromium', () => {
    before(async () => {
      const [port, providerPort] = [await freePort(), await freePort()];
      origin = `http://127.0.0.1:${port}`;
      const started = await startProvider(providerPort, `${origin}/admin/callback`);
      provider = started.server;
      idp = started;
      server = paddock(['serve'], {
        PADDOCK_LISTEN: `127.0.0.1:${port}`,
        PADDOCK_BASE_URL: origin,
        PADDOCK_DATA_DIR: join(await mkdtemp(join(tmpdir(), 'paddock-e2e-')), 'data'),
        PADDOCK_ADMIN_PASSWORD: PASSWORD,
        PADDOCK_OIDC_ISSUER: started.issuer,
        PADDOCK_OIDC_CLIENT_ID: CLIENT.id,
        PADDOCK_OIDC_CLIENT_SECRET: CLIENT.secret,
        PADDOCK_OIDC_ADMIN_GROUP: ADMIN_GROUP,
      });
      await server.waitFor(/serving on/);
      browser = await launch();
    });
    after(async () => {
      await browser?.close();
      server?.child.kill('SIGTERM');
      provider?.close();
      provider?.closeAllConnections();
    });

    test('break-glass sign-in: the wrong-password page, then the dashboard', async () => {
      const w = await watchedContext(browser);
      await w.page.goto(`${origin}/`);
      assert.equal(w.page.url(), `${origin}/login`);
      await audit(w, origin, 'login');
      await w.page.fill('#username', 'admin');
      await w.page.fill('#password', 'not the password');
      await w.page.click('button[type=submit]');
      assert.match((await w.page.textContent('[role=alert]')) ?? '', /username or password is incorrect/);
      await audit(w, origin, 'login-failed');
      await w.page.fill('#password', PASSWORD);
      await w.page.click('button[type=submit]');
      await w.page.waitForURL(`${origin}/`);
      const text = await w.page.textContent('main');
      assert.match(text ?? '', /Paddock version 0\.1\.0/);
      assert.match(text ?? '', /Self-test: All \d+ checks passed/);
      assert.match((await w.page.textContent('header')) ?? '', /Signed in as admin \(local:admin, administrator\)/);
      await audit(w, origin, 'dashboard');
      await w.context.close();
    });

    test('OIDC sign-in through the provider’s pages as an administrator; minting shows a QR code that decodes to the link', async () => {
      alice = await watchedContext(browser);
      await oidcSignIn(alice, 'alice');
      assert.match(
        (await alice.page.textContent('header')) ?? '',
        /Signed in as Alice Admin \(oidc:alice, administrator\)/,
      );
      await alice.page.click('nav >> text=Devices');
      await audit(alice, origin, 'devices-empty');
      for (const [owner, name] of [
        ['oidc:bob', 'bob-laptop'],
        ['', 'alice-phone'],
      ] as const) {
        await alice.page.goto(`${origin}/enroll-tokens`);
        await alice.page.fill('#owner', owner);
        await alice.page.click('text=Mint enrollment link');
        const link = (await alice.page.inputValue('#link')).trim();
        assert.match(link, /^paddock:\/\/enroll\?server=127\.0\.0\.1:\d+&pin=sha256\/.+&token=[A-Za-z0-9_-]{43}$/);
        const svg = await alice.page.locator('figure svg').evaluate((e) => e.outerHTML);
        assert.ok(await alice.page.locator('figure svg').isVisible());
        assert.equal(decodeQrSvg(svg), link, 'the QR code decodes to the link');
        if (owner === 'oidc:bob') await audit(alice, origin, 'mint');
        devices[name] = await enroll(link, name);
      }
      await alice.page.goto(`${origin}/enroll-tokens`);
      await alice.page.fill('#uses', '3');
      await alice.page.fill('#note', 'line 4 <b>');
      await alice.page.selectOption('#max_privacy', 'redacted');
      await alice.page.click('text=Mint enrollment link');
      await alice.page.goto(`${origin}/enroll-tokens`);
      await audit(alice, origin, 'enroll-tokens');
      assert.match((await alice.page.textContent('main')) ?? '', /3 of 3/);
      await alice.page.click('main button:has-text("Revoke t_")');
      await alice.page.waitForURL(`${origin}/enroll-tokens`);
      assert.match(
        (await alice.page.textContent('[role=status]')) ?? '',
        /^Enrollment token t_[A-Za-z0-9_-]+ was revoked: it enrolls no more devices\.$/,
      );
      assert.doesNotMatch((await alice.page.textContent('main')) ?? '', /3 of 3/);
      await audit(alice, origin, 'enroll-tokens-after-revoke');
      const bob = devices['bob-laptop'];
      const alicePhone = devices['alice-phone'];
      assert.ok(bob && alicePhone);
      for (const id of ['bob-run-1', 'bob-run-2'])
        assert.equal((await upload(bob.credential, id, `temp=21 id=${id} <ok>\n`)).status, 201);
      assert.equal((await upload(alicePhone.credential, 'alice-run', 'alice only\n')).status, 201);
      await alice.page.goto(`${origin}/devices`);
      await audit(alice, origin, 'devices');
      await alice.page.goto(`${origin}/runs`);
      assert.match(
        (await alice.page.textContent('main')) ?? '',
        /Runs 1–3 of 3 \(counted within the last few seconds\)/,
      );
      await audit(alice, origin, 'runs');
    });

    test('an account outside the admin group sees only its own devices and runs, and is refused admin actions', async () => {
      const w = await watchedContext(browser);
      await oidcSignIn(w, 'bob');
      assert.match((await w.page.textContent('header')) ?? '', /Signed in as Bob Builder \(oidc:bob\)/);
      assert.match(
        (await w.page.textContent('figcaption')) ?? '',
        /2 uploads \(0 full, 2 redacted, 0 minimal\), 2 today/,
      );
      await audit(w, origin, 'dashboard-oidc');
      await w.page.click('nav >> text=Devices');
      const devicesText = (await w.page.textContent('main')) ?? '';
      assert.match(devicesText, /bob-laptop/);
      assert.doesNotMatch(devicesText, /alice-phone|Mint enrollment link|\bRevoke\b/);
      await w.page.click('nav >> text=Runs');
      const runsText = (await w.page.textContent('main')) ?? '';
      assert.match(runsText, /bob-run-1/);
      assert.doesNotMatch(runsText, /alice-run/);
      await w.page.click('text=bob-run-1');
      assert.match((await w.page.textContent('pre')) ?? '', /^1 {2}temp=21 id=bob-run-1 <ok>\n$/);
      assert.match((await w.page.textContent('main')) ?? '', /redacted: the device removed sensitive content/);
      await audit(w, origin, 'run');
      // The raw download is a download, never a page: the run view stays, the bytes arrive whole.
      const runUrl = w.page.url();
      const [download] = await Promise.all([
        w.page.waitForEvent('download'),
        w.page.click('text=Download the run exactly as uploaded'),
      ]);
      assert.match(download.suggestedFilename(), /^bob-run-1\.txt$/);
      assert.equal(readFileSync((await download.path()) ?? '', 'utf8'), 'temp=21 id=bob-run-1 <ok>\n');
      assert.equal(w.page.url(), runUrl, 'nothing was rendered in place of the run view');
      await assert.rejects(w.page.goto(`${runUrl}/raw`), /Download is starting/, 'opened directly, it still downloads');
      const raw = await w.page.request.get(`${runUrl}/raw`);
      assert.equal(raw.headers()['content-security-policy'], "default-src 'none'; sandbox");
      const csrf = await w.page.inputValue('input[name=csrf] >> nth=0');
      const refused = await w.page.request.post(`${origin}/enroll-tokens`, { form: { csrf }, maxRedirects: 0 });
      assert.equal(refused.status(), 403);
      assert.match(await refused.text(), /this action needs an administrator account/);
      // The run page links to the confirmation page (docs/contract.md section 22), which posts the delete.
      await w.page.goto(`${origin}/runs`);
      await w.page.click('a:has-text("bob-run-2")');
      await w.page.click('a:has-text("Delete this run")');
      assert.match((await w.page.textContent('main')) ?? '', /This cannot be undone\./);
      await w.page.click('main button:has-text("Delete 1 run")');
      await w.page.waitForURL(`${origin}/runs`);
      assert.match((await w.page.textContent('[role=status]')) ?? '', /Run bob-run-2 of device .+ was deleted/);
      assert.doesNotMatch((await w.page.textContent('table')) ?? '', /bob-run-2/);
      await audit(w, origin, 'runs-after-delete');

      // The device page, reached from the run list (the device by its name, its id beside), and a
      // rename by the device's owner.
      await w.page.click('td >> a:has-text("bob-laptop") >> nth=0');
      assert.match(w.page.url(), /\/devices\/d_[A-Za-z0-9_-]+$/);
      const deviceText = (await w.page.textContent('main')) ?? '';
      assert.match(deviceText, /bob-laptop/);
      assert.match(deviceText, /with a token minted by oidc:alice/);
      assert.match(deviceText, /Privacy ceiling\s*full/);
      await w.page.fill('#name', 'Bob’s laptop');
      await w.page.click('button:has-text("Rename")');
      assert.match((await w.page.textContent('[role=status]')) ?? '', /was renamed/);
      assert.match((await w.page.textContent('h1')) ?? '', /Device Bob’s laptop/);
      await audit(w, origin, 'device');

      // Filters are a GET form; the page says which apply.
      await w.page.goto(`${origin}/runs`);
      await w.page.selectOption('#privacy', 'redacted');
      await w.page.click('button:has-text("Show runs")');
      assert.match(w.page.url(), /privacy=redacted/);
      assert.match(
        (await w.page.textContent('main')) ?? '',
        /Runs 1–1 of 1 \(counted within the last few seconds\) of your devices, at privacy level “redacted”/,
      );
      await audit(w, origin, 'runs-filtered');

      // Bulk delete through the checkboxes of one form.
      await w.page.goto(`${origin}/runs`);
      await w.page.check('input[name=run] >> nth=0');
      await w.page.click('button:has-text("Delete selected runs")');
      await w.page.waitForURL(`${origin}/runs/bulk/confirm`);
      await w.page.click('main button:has-text("Delete 1 run")');
      await w.page.waitForURL(`${origin}/runs`);
      assert.match((await w.page.textContent('[role=status]')) ?? '', /^1 run deleted\.$/);
      assert.match((await w.page.textContent('main')) ?? '', /No runs of your devices/);
      await w.page.click('button:has-text("Sign out")');
      await w.page.waitForURL(`${origin}/login`);
      await w.page.goto(`${origin}/runs`);
      assert.equal(w.page.url(), `${origin}/login`, 'signed out');
      await w.context.close();
    });

    test('labels: set on the device page with the keyboard, a bad one refused by name, then the list filtered by them', async () => {
      const phone = devices['alice-phone'];
      assert.ok(phone);
      await alice.page.goto(`${origin}/devices/${phone.device}`);
      await alice.page.focus('#labels');
      await alice.page.keyboard.type('site=berlin\nline=3');
      await alice.page.keyboard.press('Tab');
      assert.ok(
        await alice.page.locator('button:has-text("Save labels")').evaluate((b) => b === b.ownerDocument.activeElement),
      );
      await submitByKeyboard(alice.page);
      await alice.page.waitForURL(`${origin}/devices/${phone.device}`);
      assert.match((await alice.page.textContent('[role=status]')) ?? '', /The labels of device .+ were saved\./);
      assert.equal(await alice.page.inputValue('#labels'), 'line=3\nsite=berlin');
      assert.match((await alice.page.textContent('dl')) ?? '', /line=3\s*site=berlin/);
      await audit(alice, origin, 'device-labels');
      // A bad label, by keyboard: the page again (400, docs/contract.md section 22), the text as
      // typed, the message beside the field, and nothing changed.
      await alice.page.focus('#labels');
      await alice.page.keyboard.press('ControlOrMeta+A');
      await alice.page.keyboard.type('Site=<b>');
      await alice.page.keyboard.press('Tab');
      const [refused] = await Promise.all([
        alice.page.waitForResponse((r) => r.request().method() === 'POST'),
        submitByKeyboard(alice.page),
      ]);
      assert.equal(refused.status(), 400);
      assert.equal(await alice.page.inputValue('#labels'), 'Site=<b>');
      assert.equal(await alice.page.getAttribute('#labels', 'aria-invalid'), 'true');
      const describedBy = (await alice.page.getAttribute('#labels', 'aria-describedby')) ?? '';
      assert.ok(describedBy.split(' ').includes('labels-error'), describedBy);
      assert.match(
        (await alice.page.textContent('#labels-error')) ?? '',
        /^labels refused, nothing changed: label "Site=<b>": a label key/,
      );
      assert.match((await alice.page.textContent('[role=alert]')) ?? '', /Nothing was changed/);
      assert.match((await alice.page.textContent('dl')) ?? '', /line=3\s*site=berlin/);
      await audit(alice, origin, 'device-labels-refused');

      await alice.page.goto(`${origin}/devices`);
      await openFilters(alice.page);
      await alice.page.fill('#label-1', 'site=berlin');
      await alice.page.focus('#label-1');
      await alice.page.keyboard.press('Enter');
      await alice.page.waitForURL(/label=site%3Dberlin/);
      const listed = (await alice.page.textContent('main')) ?? '';
      assert.match(listed, /1 of 1 device, labelled “site=berlin”/);
      assert.match(listed, /alice-phone/);
      assert.doesNotMatch(listed, /bob-laptop/);
      assert.equal(await alice.page.inputValue('#label-1'), 'site=berlin');
      await audit(alice, origin, 'devices-label-filter');
    });

    test('facts (docs/contract.md section 16): the device page shows what it reported, the list filters by a fact, the dashboard counts client versions', async () => {
      const phone = devices['alice-phone'];
      const laptop = devices['bob-laptop'];
      assert.ok(phone && laptop);
      for (const [d, facts] of [
        [
          phone,
          { os: 'linux', os_version: '6.12 <b>', arch: 'arm64', hostname: 'phone & co', client_version: '2.1.0' },
        ],
        [laptop, { os: 'darwin', client_version: '2.0.0' }],
      ] as const) {
        const res = await fetch(`${origin}/v1/device/facts`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${d.credential}` },
          body: JSON.stringify(facts),
        });
        assert.equal(res.status, 204);
      }
      await alice.page.goto(`${origin}/devices/${phone.device}`);
      const facts = (await alice.page.textContent('table.facts')) ?? '';
      assert.match(facts, /os_version\s*6\.12 <b>/);
      assert.match(facts, /hostname\s*phone & co/);
      assert.match((await alice.page.textContent('main')) ?? '', /Reported by the device just now/);
      await audit(alice, origin, 'device-facts');

      await alice.page.goto(`${origin}/devices`);
      await openFilters(alice.page);
      await alice.page.fill('#fact-1', 'os=linux');
      await alice.page.focus('#fact-1');
      await alice.page.keyboard.press('Enter');
      await alice.page.waitForURL(/fact=os%3Dlinux/);
      const listed = (await alice.page.textContent('main')) ?? '';
      assert.match(listed, /1 of 1 device, reporting “os=linux”/);
      assert.match(listed, /alice-phone/);
      assert.doesNotMatch(listed, /bob-laptop/);
      await audit(alice, origin, 'devices-fact-filter');

      await alice.page.goto(`${origin}/`);
      const versions = (await alice.page.textContent('main')) ?? '';
      // A tie is in the versions' order.
      assert.match(versions, /Client versions[\s\S]*2\.0\.0\s*1[\s\S]*2\.1\.0\s*1/);
      await audit(alice, origin, 'dashboard-client-versions');
    });

    test('an administrator revokes a device with the keyboard; its next upload is refused; sign out', async () => {
      const bob = devices['bob-laptop'];
      assert.ok(bob);
      await alice.page.goto(`${origin}/devices`);
      // The row links to the confirmation page (docs/contract.md section 22), which posts the revocation.
      await alice.page.focus(`a[href^="/devices/${bob.device}/revoke"]`);
      await alice.page.keyboard.press('Enter');
      await alice.page.waitForURL(new RegExp(`/devices/${bob.device}/revoke`));
      await alice.page.focus('main button[type=submit]');
      await alice.page.keyboard.press('Enter');
      await alice.page.waitForURL(`${origin}/devices`);
      assert.match(
        (await alice.page.textContent('[role=status]')) ?? '',
        new RegExp(`Device ${bob.device} was revoked`),
      );
      assert.match((await alice.page.textContent('table')) ?? '', /revoked now/);
      await audit(alice, origin, 'devices-after-revoke');
      assert.equal((await upload(bob.credential, 'bob-run-3', 'after revoke')).status, 401);

      await alice.page.fill('#q', 'laptop');
      await alice.page.selectOption('#status', 'revoked');
      await alice.page.click('button:has-text("Show devices")');
      const filtered = (await alice.page.textContent('main')) ?? '';
      assert.match(filtered, /1 of 1 device, matching “laptop”, status “revoked”/);
      assert.doesNotMatch(filtered, /alice-phone/);
      await audit(alice, origin, 'devices-filtered');

      // Bulk: the revoked device is deleted with its runs, the active one is left and counted.
      await alice.page.goto(`${origin}/devices`);
      await alice.page.check(`input[value="${bob.device}"]`);
      await alice.page.check(`input[value="${devices['alice-phone']?.device}"]`);
      await alice.page.selectOption('#bulk-action', 'delete');
      await alice.page.click('button:has-text("Apply to selected devices")');
      await alice.page.waitForURL(`${origin}/devices/bulk/confirm`);
      await alice.page.click('main button[type=submit]');
      await alice.page.waitForURL(`${origin}/devices`);
      assert.match(
        (await alice.page.textContent('[role=status]')) ?? '',
        /1 device deleted with their runs; 1 not deleted: revoke first\./,
      );
      await audit(alice, origin, 'devices-after-bulk');

      // Accounts, each linked to its devices; the audit trail filtered, and the same as JSON lines.
      await openMore(alice.page);
      await alice.page.click('nav >> text=Accounts');
      const accountsText = (await alice.page.textContent('main')) ?? '';
      assert.match(accountsText, /oidc:alice/);
      assert.match(accountsText, /oidc:bob/);
      await audit(alice, origin, 'accounts');
      await openMore(alice.page);
      await alice.page.click('nav >> text=Audit trail');
      await alice.page.selectOption('#audit-event', 'device.deleted');
      await alice.page.click('button:has-text("Filter")');
      assert.match(alice.page.url(), /event=device\.deleted/);
      const trail = (await alice.page.textContent('main')) ?? '';
      assert.match(trail, /Record 1 of 1\./);
      assert.match(trail, new RegExp(bob.device));
      await audit(alice, origin, 'audit');

      // A personal access token: created on /tokens, shown once, listed without its value.
      await openMore(alice.page);
      await alice.page.click('nav >> text=Access tokens');
      await alice.page.fill('#name', 'nightly export');
      await alice.page.click('button:has-text("Create token")');
      const token = (await alice.page.inputValue('#token')).trim();
      assert.match(token, /^pdk_[A-Za-z0-9_-]{43}$/);
      await audit(alice, origin, 'access-token-created');
      await alice.page.goto(`${origin}/tokens`);
      const tokensText = (await alice.page.textContent('main')) ?? '';
      assert.match(tokensText, /nightly export/);
      assert.ok(!tokensText.includes(token), 'the token is shown once only');
      await audit(alice, origin, 'tokens');
      const jsonl = await alice.page.request.get(`${origin}/audit.jsonl?event=device.deleted`);
      assert.equal(jsonl.status(), 200);
      const lines = (await jsonl.text()).trim().split('\n');
      assert.equal(lines.length, 1);
      assert.equal(JSON.parse(lines[0] ?? '{}').account, 'oidc:alice');
      await alice.page.focus('button:has-text("Sign out")');
      await alice.page.keyboard.press('Enter');
      await alice.page.waitForURL(`${origin}/login`);
      await alice.context.close();
    });

    test('sessions and accounts (docs/contract.md section 14): the sessions page, an account disabled and enabled, by keyboard', async () => {
      const admin = await watchedContext(browser);
      await admin.page.goto(`${origin}/login`);
      await admin.page.fill('#username', 'admin');
      await admin.page.fill('#password', PASSWORD);
      await admin.page.click('button[type=submit]');
      await admin.page.waitForURL(`${origin}/`);
      const bob = await watchedContext(browser);
      await oidcSignIn(bob, 'bob');
      const other = await watchedContext(browser);
      await other.page.goto(`${origin}/login`);
      await other.page.fill('#username', 'admin');
      await other.page.fill('#password', PASSWORD);
      await other.page.click('button[type=submit]');
      await other.page.waitForURL(`${origin}/`);

      // The admin's own sessions: this one marked, the others (this test's and earlier ones) ended by keyboard.
      await openMore(admin.page);
      await admin.page.click('nav >> text=Sessions');
      const sessions = (await admin.page.textContent('main')) ?? '';
      assert.match(sessions, /\(this session\)/);
      assert.match(sessions, /HeadlessChrome|Chrome/);
      await audit(admin, origin, 'sessions');
      await admin.page.focus('button:has-text("End all")');
      await submitByKeyboard(admin.page);
      await admin.page.waitForURL(`${origin}/sessions`);
      assert.match((await admin.page.textContent('[role=status]')) ?? '', /other sessions? ended/);
      assert.match((await admin.page.textContent('main')) ?? '', /You have no other sessions/);
      await other.page.goto(`${origin}/devices`);
      assert.equal(other.page.url(), `${origin}/login`, 'the ended session is refused');

      // Bob's account: his session listed; disabled by keyboard, which ends it; enabled again.
      await openMore(admin.page);
      await admin.page.click('nav >> text=Accounts');
      await admin.page.click('a:has-text("Bob Builder")');
      await admin.page.waitForURL(`${origin}/accounts/oidc%3Abob`);
      await audit(admin, origin, 'account');
      await admin.page.focus('button:has-text("Disable Bob Builder")');
      await submitByKeyboard(admin.page);
      // Its confirmation page first (docs/contract.md section 22): what ends, and how it is undone.
      await admin.page.waitForURL(/\/accounts\/oidc%3Abob\/disable\?hand_over_to=$/);
      assert.match((await admin.page.textContent('main')) ?? '', /ends its 1 live session/);
      await audit(admin, origin, 'account-disable-confirm');
      await admin.page.focus('main button:has-text("Disable 1 account")');
      await submitByKeyboard(admin.page);
      await admin.page.waitForURL(`${origin}/accounts/oidc%3Abob`);
      assert.match((await admin.page.textContent('[role=status]')) ?? '', /The account was disabled: 1 session ended/);
      await audit(admin, origin, 'account-disabled');
      await bob.page.goto(`${origin}/devices`);
      assert.equal(bob.page.url(), `${origin}/login`, "bob's session ended");
      await admin.page.focus('button:has-text("Enable Bob Builder")');
      await submitByKeyboard(admin.page);
      await admin.page.waitForURL(`${origin}/accounts/oidc%3Abob`);
      assert.match((await admin.page.textContent('[role=status]')) ?? '', /The account was enabled/);
      const again = await watchedContext(browser);
      await oidcSignIn(again, 'bob');
      await again.page.goto(`${origin}/devices`);
      assert.equal(again.page.url(), `${origin}/devices`, 'signed in again once enabled');
      for (const w of [admin, bob, other, again]) await w.context.close();
    });

    test('approval and rotation (docs/contract.md section 16) with the keyboard: mint with approval required, the waiting device on the dashboard and the list, approve it, ask it to rotate', async () => {
      const w = await watchedContext(browser);
      await w.page.goto(`${origin}/login`);
      await w.page.fill('#username', 'admin');
      await w.page.fill('#password', PASSWORD);
      await w.page.click('button[type=submit]');
      await w.page.waitForURL(`${origin}/`);
      await w.page.goto(`${origin}/enroll-tokens`);
      await w.page.focus('#approval');
      await w.page.keyboard.press('Space');
      assert.ok(await w.page.isChecked('#approval'));
      await w.page.focus('button:has-text("Mint enrollment link")');
      await submitByKeyboard(w.page);
      const link = (await w.page.inputValue('#link')).trim();
      assert.match((await w.page.textContent('main')) ?? '', /Approval\s*required: the devices it enrolls wait/);
      await audit(w, origin, 'mint-approval-required');
      const waiting = await enroll(link, 'waiting-sensor');
      assert.equal((await upload(waiting.credential, 'early', 'too early')).status, 403);

      // The dashboard's numbers are one snapshot, kept a few seconds (docs/contract.md section 22): the
      // one taken at sign-in, before the device enrolled, may still be shown; a later view counts it.
      let dashboard = '';
      for (const until = Date.now() + 8_000; Date.now() < until; await w.page.waitForTimeout(500)) {
        await w.page.goto(`${origin}/`);
        dashboard = (await w.page.textContent('main')) ?? '';
        if (/Waiting for approval\s*1\s*the oldest since/.test(dashboard)) break;
      }
      assert.match(dashboard, /Waiting for approval\s*1\s*the oldest since/);
      assert.match(dashboard, /Counted together at/);
      await audit(w, origin, 'dashboard-pending');
      await w.page.click('a[href="/devices?status=pending"]');
      await w.page.waitForURL(`${origin}/devices?status=pending`);
      const listed = (await w.page.textContent('main')) ?? '';
      assert.match(listed, /1 of 1 device, status “pending”/);
      await audit(w, origin, 'devices-pending');
      // The device by its name, linked, its id beside (docs/contract.md section 22).
      assert.match(listed, new RegExp(`waiting-sensor\\s*${waiting.device}`));
      await w.page.click('main table a:text-is("waiting-sensor")');
      await w.page.waitForURL(`${origin}/devices/${waiting.device}`);
      assert.match((await w.page.textContent('main')) ?? '', /pending: it waits for an administrator/);
      await audit(w, origin, 'device-pending');
      await w.page.focus('button:has-text("Approve this device")');
      await submitByKeyboard(w.page);
      assert.equal(w.page.url(), `${origin}/devices/${waiting.device}`);
      assert.match((await w.page.textContent('[role=status]')) ?? '', /was approved/);
      assert.match((await w.page.textContent('main')) ?? '', /active: it has called Paddock recently/);
      await audit(w, origin, 'device-approved');
      assert.equal((await upload(waiting.credential, 'approved', 'now it may')).status, 201);

      // Credential rotation (docs/contract.md section 16): the credential's dates, and the admin's ask.
      assert.match(
        (await w.page.textContent('main')) ?? '',
        /Last rotated\s*never: it holds the credential it enrolled with/,
      );
      await w.page.focus('button:has-text("Ask this device to rotate its credential")');
      await submitByKeyboard(w.page);
      assert.match((await w.page.textContent('[role=status]')) ?? '', /is asked to rotate its credential/);
      assert.match(
        (await w.page.textContent('main')) ?? '',
        /Rotation asked\s*.*its next answer from Paddock asks it to rotate/,
      );
      await audit(w, origin, 'device-rotation-asked');
      const asked = await upload(waiting.credential, 'asked', 'rotate, please');
      assert.equal(asked.headers.get('paddock-rotate'), 'credential');
      await w.context.close();
    });

    // Last: once enrolled, the break-glass account needs a code, which the first test does not send.
    test('the webhook pages with the keyboard: add an endpoint (its secret shown once), test it, disable it', async () => {
      const w = await watchedContext(browser);
      await w.page.goto(`${origin}/login`);
      await w.page.fill('#username', 'admin');
      await w.page.fill('#password', PASSWORD);
      await w.page.focus('#password');
      await w.page.keyboard.press('Enter');
      await w.page.waitForURL(`${origin}/`);
      await openMore(w.page);
      await w.page.focus('nav >> text=Webhooks');
      await w.page.keyboard.press('Enter');
      await w.page.waitForURL(`${origin}/webhooks`);
      assert.match((await w.page.textContent('main')) ?? '', /There are no endpoints\./);
      await audit(w, origin, 'webhooks-empty');
      await w.page.fill('#url', 'https://hooks.example.com/paddock');
      for (const event of ['device.revoked', 'device.stale']) {
        await w.page.focus(`[id="event-${event}"]`);
        await w.page.keyboard.press('Space');
      }
      await w.page.fill('#description', 'pager <b>duty</b>');
      await w.page.focus('button:has-text("Add endpoint")');
      await w.page.keyboard.press('Enter');
      await w.page.waitForSelector('#secret');
      assert.equal(await w.page.textContent('h1'), 'Webhook endpoint added');
      const secret = await w.page.inputValue('#secret');
      assert.match(secret, /^whsec_[A-Za-z0-9+/]{32,}={0,2}$/);
      await audit(w, origin, 'webhook-secret');
      await w.page.focus('text=The endpoint and its deliveries');
      await w.page.keyboard.press('Enter');
      await w.page.waitForURL(/\/webhooks\/wh_[A-Za-z0-9_-]{16}$/);
      const endpoint = w.page.url();
      const text = (await w.page.textContent('main')) ?? '';
      assert.match(text, /device\.revoked, device\.stale/);
      assert.match(text, /pager <b>duty<\/b>/);
      assert.ok(!text.includes(secret), 'the secret is not on the endpoint page');
      await audit(w, origin, 'webhook');
      await w.page.focus('button:has-text("Send a test message")');
      await w.page.keyboard.press('Enter');
      await w.page.waitForSelector('[role=status]');
      assert.match((await w.page.textContent('[role=status]')) ?? '', /A test message for webhook wh_\S+ was queued\./);
      await w.page.focus('button:has-text("Disable")');
      await w.page.keyboard.press('Enter');
      await w.page.waitForSelector('button:has-text("Enable")');
      assert.equal(w.page.url(), endpoint);
      assert.match((await w.page.textContent('[role=status]')) ?? '', /was disabled/);
      assert.ok(await w.page.locator('button:has-text("Enable")').isVisible());
      await audit(w, origin, 'webhook-disabled');
      await w.page.goto(`${origin}/webhooks`);
      const list = (await w.page.textContent('table')) ?? '';
      assert.match(list, /https:\/\/hooks\.example\.com\/paddock/);
      assert.ok(!(await w.page.content()).includes(secret), 'the secret is not on the list');
      await audit(w, origin, 'webhooks');
      await w.context.close();
    });

    test('the break-glass account sets up a second factor with the keyboard, signs in with a code, then turns it off with a recovery code', async () => {
      const w = await watchedContext(browser);
      const signIn = async (code: string) => {
        await w.page.goto(`${origin}/login`);
        await w.page.fill('#username', 'admin');
        await w.page.fill('#password', PASSWORD);
        await w.page.fill('#code', code);
        await w.page.focus('#code');
        await w.page.keyboard.press('Enter');
      };
      await signIn('');
      await w.page.waitForURL(`${origin}/`);
      await openMore(w.page);
      await w.page.focus('nav >> text=Second factor');
      await w.page.keyboard.press('Enter');
      await w.page.waitForURL(`${origin}/totp`);
      const svg = await w.page.locator('figure svg').evaluate((e) => e.outerHTML);
      const uri = new URL(decodeQrSvg(svg) ?? 'missing:');
      assert.equal(uri.protocol, 'otpauth:');
      const secret = uri.searchParams.get('secret') ?? '';
      assert.equal((await w.page.inputValue('#secret')).replaceAll(' ', ''), secret);
      await audit(w, origin, 'totp-enroll');
      await w.page.focus('#code');
      await w.page.keyboard.type(codeAt(secret, Date.now()));
      await w.page.keyboard.press('Enter');
      await w.page.waitForSelector('#recovery');
      const recovery = (await w.page.inputValue('#recovery')).split('\n');
      assert.equal(recovery.length, 10);
      await audit(w, origin, 'totp-recovery-codes');
      await w.page.click('button:has-text("Sign out")');
      await w.page.waitForURL(`${origin}/login`);

      await signIn('');
      assert.match((await w.page.textContent('[role=alert]')) ?? '', /username or password is incorrect/);
      // The next step's code: the confirming one was spent, and one step early is accepted.
      await signIn(codeAt(secret, Date.now() + 30_000));
      await w.page.waitForURL(`${origin}/`);
      await w.page.goto(`${origin}/totp`);
      const status = (await w.page.textContent('main')) ?? '';
      assert.match(status, /10 of 10 recovery codes are unused/);
      assert.ok(!status.includes(secret), 'the secret is not shown again');
      await audit(w, origin, 'totp-status');
      await w.page.focus('#code');
      await w.page.keyboard.type(recovery[0] ?? '');
      await w.page.keyboard.press('Enter');
      await w.page.waitForURL(`${origin}/totp`);
      assert.match((await w.page.textContent('[role=status]')) ?? '', /The second factor is off/);
      await w.page.click('button:has-text("Sign out")');
      await signIn('');
      await w.page.waitForURL(`${origin}/`);
      await w.context.close();
    });

    test('back-channel logout (docs/contract.md section 17): signing out on the provider’s own page ends the Paddock session; audited', async () => {
      const w = await watchedContext(browser);
      await oidcSignIn(w, 'alice');
      await w.page.goto(`${origin}/devices`);
      assert.equal(w.page.url(), `${origin}/devices`, 'a Paddock page loads');
      assert.match((await w.page.textContent('header')) ?? '', /Signed in as Alice Admin \(oidc:alice/);

      // At the provider, as a person signing out there: its end-session page, "Yes, sign me out".
      const posted = idp.logoutPosts.length;
      await w.page.goto(`${idp.issuer}/session/end`);
      await w.page.click('button:has-text("Yes, sign me out")');
      await w.page.waitForSelector('text=Sign-out Success');
      const post = idp.logoutPosts[posted];
      assert.equal(post?.url, `${origin}/oidc/backchannel-logout`);
      assert.equal(post?.status, 200, `Paddock accepted the logout token${post?.error ? `: ${post.error}` : ''}`);
      assert.equal(post?.cacheControl, 'no-store');

      const refused = await w.page.request.get(`${origin}/devices`, { maxRedirects: 0 });
      assert.equal(refused.status(), 303, 'the session cookie is refused');
      assert.equal(refused.headers()['location'], '/login');
      await w.page.goto(`${origin}/devices`);
      assert.equal(w.page.url(), `${origin}/login`);

      // The break-glass administrator reads the audit trail (the second factor is off again).
      const login = await fetch(`${origin}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ username: 'admin', password: PASSWORD }),
        redirect: 'manual',
      });
      assert.equal(login.status, 303);
      const cookie = (login.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
      const trail = await fetch(`${origin}/audit.jsonl?event=session.ended_by_provider`, { headers: { cookie } });
      assert.equal(trail.status, 200);
      const records = (await trail.text())
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { account: string; detail: string });
      assert.deepEqual(
        records.map((r) => [r.account, r.detail]),
        [['oidc:alice', 'sessions=1']],
      );
      await w.context.close();
    });
  });
}
