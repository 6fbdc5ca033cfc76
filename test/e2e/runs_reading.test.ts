// Reading, searching and comparing runs (docs/contract.md section 21, issue 44) in a real browser
// against a real OpenID provider (oidc-provider): a 2,500-line run read by pages, opened at a line
// and searched with the run view's forms, by keyboard; a binary run's hex view; runs found across
// the fleet by their words and by a quoted phrase, each with its first matching line, an account
// outside the admin group finding only its own, and a bad text kept in the form beside its message;
// then a run compared with its device's previous one. Every page is audited (CSP, other origins,
// axe-core, labels, Tab order); screenshots at 1280×900.
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { type PaddockProcess, paddock } from '../support/process.ts';
import { freePort } from '../support/tls_fixture.ts';
import { audit, chromiumAvailable, launch, type Watched, watchedContext } from './browser.ts';
import { ADMIN_GROUP, CLIENT, type StartedProvider, startProvider } from './provider.ts';

const VIEWPORT = { width: 1280, height: 900 };
/** Lines of the long run; `disk full` is on three of them, one on each of its three pages. */
const LONG_LINES = 2_500;
const DISK_FULL = [300, 1_800, 2_400];
let browser: Browser;
let idp: StartedProvider;
let server: PaddockProcess;
let origin = '';
let alice: Watched;
let bob: Watched;
/** The devices, by name, each with its credential: one of Alice (an administrator), one of Bob. */
const devices: Record<string, { device: string; credential: string }> = {};

/** Waits for the document a keypress or a click leads to. */
async function navigation(page: Page, act: () => Promise<void>): Promise<void> {
  await Promise.all([page.waitForEvent('framenavigated', (frame) => frame === page.mainFrame()), act()]);
  await page.waitForLoadState('load');
}

/** The main element's text with its white space collapsed. */
async function mainText(page: Page): Promise<string> {
  return ((await page.textContent('main')) ?? '').replace(/\s+/g, ' ');
}

/** Focuses `selector`, types `text` into it and presses Enter: a GET form sent by keyboard. */
async function typeAndEnter(page: Page, selector: string, text: string): Promise<void> {
  await page.focus(selector);
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type(text);
  await navigation(page, () => page.keyboard.press('Enter'));
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

/** Mints an enrollment link on Alice's console for `owner` (blank: Alice) and enrolls `name` with it. */
async function enrollFor(owner: string, name: string): Promise<void> {
  const { page } = alice;
  await page.goto(`${origin}/enroll-tokens`);
  await page.fill('#owner', owner);
  await navigation(page, () => page.click('text=Mint enrollment link'));
  const link = (await page.inputValue('#link')).trim();
  const res = await fetch(`${origin}/v1/enroll`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: new URL(link).searchParams.get('token'), name }),
  });
  assert.equal(res.status, 201);
  devices[name] = (await res.json()) as { device: string; credential: string };
}

/** Uploads run `id` of device `name` through the control API. */
async function upload(name: string, id: string, body: string | Uint8Array, contentType = 'text/plain'): Promise<void> {
  const res = await fetch(`${origin}/v1/runs/${id}`, {
    method: 'PUT',
    headers: {
      authorization: `Bearer ${devices[name]?.credential ?? ''}`,
      'x-privacy-level': 'full',
      'content-type': contentType,
    },
    body,
  });
  assert.equal(res.status, 201, await res.text());
}

/** The long run's text: every line numbered, `disk full` on the lines of DISK_FULL. */
function longRun(): string {
  let text = '';
  for (let n = 1; n <= LONG_LINES; n++)
    text += DISK_FULL.includes(n)
      ? `entry ${n}: ERROR disk full on /var, ${n} writes lost\n`
      : `entry ${n}: temperature=21.${n % 10} humidity=4${n % 7}\n`;
  return text;
}

/** The run ids the runs table lists, in order (each row's checkbox is worth `DEVICE/ID`). */
async function listedRuns(page: Page): Promise<string[]> {
  return page.$$eval('main table input[name=run]', (boxes) =>
    boxes.map((b) => (b.getAttribute('value') ?? '').split('/')[1] ?? ''),
  );
}

if (!chromiumAvailable()) {
  test(
    'reading runs in the browser (skipped: no Chromium at /usr/bin/chromium and not on CI)',
    { skip: true },
    () => {},
  );
} else {
  describe('reading, searching and comparing runs, in Chromium', () => {
    before(async () => {
      const [port, providerPort] = [await freePort(), await freePort()];
      origin = `http://127.0.0.1:${port}`;
      idp = await startProvider(providerPort, `${origin}/admin/callback`);
      server = paddock(['serve'], {
        PADDOCK_LISTEN: `127.0.0.1:${port}`,
        PADDOCK_BASE_URL: origin,
        PADDOCK_DATA_DIR: join(await mkdtemp(join(tmpdir(), 'paddock-e2e-runs-')), 'data'),
        PADDOCK_ADMIN_PASSWORD: 'e2e runs reading password',
        PADDOCK_OIDC_ISSUER: idp.issuer,
        PADDOCK_OIDC_CLIENT_ID: CLIENT.id,
        PADDOCK_OIDC_CLIENT_SECRET: CLIENT.secret,
        PADDOCK_OIDC_ADMIN_GROUP: ADMIN_GROUP,
      });
      await server.waitFor(/serving on/);
      browser = await launch();
      alice = await oidcSignIn('alice');
      await enrollFor('', 'alice-pump');
      await enrollFor('oidc:bob', 'bob-pump');
      bob = await oidcSignIn('bob');
    });
    after(async () => {
      await browser?.close();
      server?.child.kill('SIGTERM');
      idp?.close();
    });

    test('a 2,500-line run by pages: line anchors, "Go to line" and find by keyboard; a binary run as hex', async () => {
      await upload('alice-pump', 'long-run', longRun());
      const { page } = alice;
      const path = `/runs/${devices['alice-pump']?.device}/long-run`;
      await page.goto(`${origin}${path}`);
      const first = await mainText(page);
      assert.match(first, /Lines 1–1,000 of 2,500 · [\d.]+ KiB \([\d,]+ bytes\) · page 1 of 3/);
      assert.equal(await page.locator('pre a[id^="L"]').count(), 1_000);
      assert.equal(await page.getAttribute('#L1', 'href'), '#L1');
      assert.equal(await page.getAttribute('#L1000', 'href'), '#L1000');
      assert.equal(await page.locator('#L1001').count(), 0, 'line 1,001 is on the next page');
      assert.match((await page.textContent('pre')) ?? '', /^ {3}1 {2}entry 1: temperature=21\.1 humidity=41\n/);

      // The page is 1,000 lines long: the screenshot is of its top, the totals, forms and links.
      await audit(alice, origin, 'run-pages', { fullPage: false });
      // Go to line 1,800 by keyboard: page 2, scrolled to the line (the form's answer adds its anchor).
      await typeAndEnter(page, '#line', '1800');
      await page.waitForURL(`${origin}${path}?line=1800#L1800`);
      assert.ok(await page.locator('#L1800').evaluate((a) => a.getBoundingClientRect().top < 900), 'the line in view');
      assert.match(await mainText(page), /Lines 1,001–2,000 of 2,500 .* page 2 of 3/);
      assert.equal(await page.locator('pre a[id^="L"]').count(), 1_000);
      assert.equal(await page.textContent('#L1800'), '1800');
      const nav = page.locator('nav[aria-label="Pages of the run, above its lines"]');
      assert.equal(await nav.locator('a:text-is("First page")').getAttribute('href'), `${path}?line=1`);
      assert.equal(await nav.locator('a:text-is("Previous page")').getAttribute('href'), `${path}?line=1`);
      assert.equal(await nav.locator('a:text-is("Next page")').getAttribute('href'), `${path}?line=2001`);
      assert.equal(await nav.locator('a:text-is("Last page")').getAttribute('href'), `${path}?line=2001`);
      // A line's number is its anchor and links to itself: the address names the line, shown in view.
      await page.focus('#L1800');
      await page.keyboard.press('Enter');
      await page.waitForURL(`${origin}${path}?line=1800#L1800`);
      assert.ok(await page.locator('#L1800').isVisible());
      assert.ok(await page.locator('#L1800').evaluate((a) => a.getBoundingClientRect().top < 900));

      // Next page by keyboard: the last page, whose own next and last are no links.
      await page.focus('nav >> a:text-is("Next page") >> nth=0');
      await navigation(page, () => page.keyboard.press('Enter'));
      assert.equal(page.url(), `${origin}${path}?line=2001`);
      assert.match(await mainText(page), /Lines 2,001–2,500 of 2,500 .* page 3 of 3/);
      assert.equal(await page.locator('nav >> a:text-is("Next page")').count(), 0);
      assert.equal(await page.locator('nav >> a:text-is("Last page")').count(), 0);
      assert.equal(await page.locator('#L2500').count(), 1);

      // Find by keyboard: every matching line, its match marked, its number a link to its page.
      await typeAndEnter(page, '#find', 'disk FULL');
      assert.equal(new URL(page.url()).searchParams.get('find'), 'disk FULL');
      assert.match(await mainText(page), /Lines that hold “disk FULL” 3 of the run's 2,500 lines hold it\./);
      assert.deepEqual(await page.$$eval('main pre mark', (marks) => marks.map((m) => m.textContent)), [
        'disk full',
        'disk full',
        'disk full',
      ]);
      assert.deepEqual(
        await page.$$eval('main pre a', (links) => links.map((a) => a.getAttribute('href'))),
        DISK_FULL.map((n) => `${path}?line=${n}#L${n}`),
      );
      await audit(alice, origin, 'run-find');
      await page.focus('main pre a:text-is("2400")');
      await navigation(page, () => page.keyboard.press('Enter'));
      assert.equal(page.url(), `${origin}${path}?line=2400#L2400`);
      assert.match(await mainText(page), /page 3 of 3/);
      assert.match((await page.textContent('pre')) ?? '', /2400 {2}entry 2400: ERROR disk full on \/var/);

      // A binary run: its type, size and the hex of its first bytes; no forms to page or find.
      const bytes = new Uint8Array(5_000).map((_, i) => (i * 37 + 0x80) % 256);
      bytes.set(new TextEncoder().encode('PADDOCK\0'), 0);
      await upload('alice-pump', 'core-dump', bytes, 'application/octet-stream');
      await page.goto(`${origin}/runs/${devices['alice-pump']?.device}/core-dump`);
      const hex = await mainText(page);
      assert.match(hex, /This run is not UTF-8 text \(its content type says application\/octet-stream\)/);
      assert.match(hex, /its first 4,096 of 5,000 bytes/);
      assert.match(
        (await page.textContent('main pre')) ?? '',
        /^00000000 {2}50 41 44 44 4f 43 4b 00 {2}a8 cd f2 17 3c 61 86 ab {2}\|PADDOCK\.{5}<a\.\.\|\n/,
      );
      assert.equal(await page.locator('#find, #line').count(), 0);
      await audit(alice, origin, 'run-hex', { fullPage: false });
    });

    test('runs found by their words across two accounts’ devices, by keyboard; a bad text stays in the form', async () => {
      // Alice's device and Bob's: which runs hold which words.
      await upload('alice-pump', 'a-stall', 'boot ok\nthe pump stalled at noon\nvalve open\n');
      await upload('alice-pump', 'a-restart', 'valve closed\nstalled pump restarted\n');
      await upload('alice-pump', 'a-quiet', 'valve open\nnothing else\n');
      await upload('bob-pump', 'b-stall', 'Pump STALLED again\nvalve open\n');
      await upload('bob-pump', 'b-quiet', 'pump fine\n');
      const { page } = alice;
      await page.goto(`${origin}/runs`);
      await typeAndEnter(page, '#text', 'pump stalled');
      assert.equal(new URL(page.url()).searchParams.get('text'), 'pump stalled');
      assert.deepEqual(await listedRuns(page), ['b-stall', 'a-restart', 'a-stall']);
      const found = await mainText(page);
      assert.match(found, /, holding “pump stalled”, newest first, each with its first matching line\./);
      assert.match(found, /line 1: Pump STALLED again/);
      assert.match(found, /line 2: stalled pump restarted/);
      assert.match(found, /line 2: the pump stalled at noon/);
      assert.deepEqual(await page.$$eval('main td mark', (marks) => marks.map((m) => m.textContent)), [
        'Pump',
        'STALLED',
        'stalled',
        'pump',
        'pump',
        'stalled',
      ]);
      assert.equal(
        await page.getAttribute('main td a:text-is("line 2") >> nth=1', 'href'),
        `/runs/${devices['alice-pump']?.device}/a-stall?line=2#L2`,
      );
      await audit(alice, origin, 'runs-search');

      // A quoted phrase must appear as such: "stalled pump" is not "pump stalled".
      await typeAndEnter(page, '#text', '"pump stalled" valve');
      assert.deepEqual(await listedRuns(page), ['b-stall', 'a-stall']);
      assert.match(await mainText(page), /, holding “"pump stalled" valve”, newest first/);

      // Bob, outside the admin group, finds only what his own devices hold.
      await bob.page.goto(`${origin}/runs`);
      await typeAndEnter(bob.page, '#text', 'pump stalled');
      assert.deepEqual(await listedRuns(bob.page), ['b-stall']);
      assert.match(await mainText(bob.page), / of your devices, holding “pump stalled”, newest first/);
      await typeAndEnter(bob.page, '#text', 'valve');
      assert.deepEqual(await listedRuns(bob.page), ['b-stall']);

      // A text without a letter or digit: the page again (400), the text kept, the message beside it.
      const [answer] = await Promise.all([
        page.waitForResponse((r) => new URL(r.url()).pathname === '/runs'),
        typeAndEnter(page, '#text', '"--"'),
      ]);
      assert.equal(answer.status(), 400);
      assert.equal(await page.inputValue('#text'), '"--"');
      assert.equal(await page.getAttribute('#text', 'aria-invalid'), 'true');
      const describedBy = (await page.getAttribute('#text', 'aria-describedby')) ?? '';
      assert.ok(describedBy.split(' ').includes('text-error'), describedBy);
      assert.match(
        (await page.textContent('#text-error')) ?? '',
        /Search for letters or digits, not only punctuation\./,
      );
      assert.match(
        (await page.textContent('[role=alert]')) ?? '',
        /Text: Search for letters or digits, not only punctuation\./,
      );
      assert.equal(await page.locator('main table').count(), 0, 'no rows for a refused query');
      await audit(alice, origin, 'runs-search-refused');
    });

    test('a run compared with its device’s previous run, from the run view by keyboard', async () => {
      const lines = Array.from({ length: 30 }, (_, i) => `step ${i + 1}: ok`);
      await upload('bob-pump', 'nightly-1', `${lines.join('\n')}\n`);
      const changed = [...lines];
      changed[9] = 'step 10: FAILED (exit 2)';
      changed.splice(20, 1);
      changed.push('step 31: retried, ok');
      await upload('bob-pump', 'nightly-2', `${changed.join('\n')}\n`);
      const device = devices['bob-pump']?.device ?? '';
      const { page } = bob;
      await page.goto(`${origin}/runs/${device}/nightly-2`);
      const link = page.locator('a:has-text("Compare with this device\'s previous run (nightly-1)")');
      assert.equal(await link.getAttribute('href'), `/runs/${device}/nightly-1/compare?with=${device}/nightly-2`);
      await link.focus();
      await navigation(page, () => page.keyboard.press('Enter'));
      assert.equal(page.url(), `${origin}/runs/${device}/nightly-1/compare?with=${device}/nightly-2`);
      const text = await mainText(page);
      assert.match(text, /2 lines removed and 2 lines added, in 3 places\./);
      assert.deepEqual(await page.$$eval('main del', (els) => els.map((e) => e.textContent)), [
        'step 10: ok',
        'step 21: ok',
      ]);
      assert.deepEqual(await page.$$eval('main ins', (els) => els.map((e) => e.textContent)), [
        'step 10: FAILED (exit 2)',
        'step 31: retried, ok',
      ]);
      const pre = (await page.$$eval('main pre', (els) => els.map((e) => e.textContent ?? ''))).join('');
      // Both sides' line numbers: old, then new.
      assert.match(pre, /^10 {4}-step 10: ok$/m);
      assert.match(pre, /^ {3}10 \+step 10: FAILED \(exit 2\)$/m);
      assert.match(pre, /^11 11 {2}step 11: ok$/m);
      assert.match(pre, /^22 21 {2}step 22: ok$/m);
      await audit(bob, origin, 'run-compare');
    });
  });
}
