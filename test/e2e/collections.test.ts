// Collection requests in a real browser (docs/contract.md section 15): a run requested from a
// device's page by keyboard, the collection's page, cancelling it; a run requested from the
// device list for every device its filters match; the collections list and its filter. Every
// page is audited (CSP, other origins, axe-core, labels, Tab order) as in console.test.ts.
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { type PaddockProcess, paddock } from '../support/process.ts';
import { freePort } from '../support/tls_fixture.ts';
import { audit, chromiumAvailable, launch, type Watched, watchedContext } from './browser.ts';

const PASSWORD = 'e2e collections password';
const COLLECTION_URL = /\/collections\/c_[A-Za-z0-9_-]{16}$/;
let browser: Browser;
let server: PaddockProcess;
let origin = '';
let admin: Watched;
const devices: string[] = [];

/** Waits for the document a keypress or a click leads to. */
async function navigation(page: Page, act: () => Promise<void>): Promise<void> {
  await Promise.all([page.waitForEvent('framenavigated', (frame) => frame === page.mainFrame()), act()]);
  await page.waitForLoadState('load');
}

async function enroll(link: string, name: string): Promise<string> {
  const res = await fetch(`${origin}/v1/enroll`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: new URL(link).searchParams.get('token'), name }),
  });
  assert.equal(res.status, 201);
  return ((await res.json()) as { device: string }).device;
}

/** The main element's text with its white space collapsed. */
async function mainText(page: Page): Promise<string> {
  return ((await page.textContent('main')) ?? '').replace(/\s+/g, ' ');
}

if (!chromiumAvailable()) {
  test(
    'collections in the browser (skipped: no Chromium at /usr/bin/chromium and not on CI)',
    { skip: true },
    () => {},
  );
} else {
  describe('collection requests in Chromium', () => {
    before(async () => {
      const port = await freePort();
      origin = `http://127.0.0.1:${port}`;
      server = paddock(['serve'], {
        PADDOCK_LISTEN: `127.0.0.1:${port}`,
        PADDOCK_BASE_URL: origin,
        PADDOCK_DATA_DIR: join(await mkdtemp(join(tmpdir(), 'paddock-e2e-collections-')), 'data'),
        PADDOCK_ADMIN_PASSWORD: PASSWORD,
      });
      await server.waitFor(/serving on/);
      browser = await launch();
      admin = await watchedContext(browser);
      await admin.page.goto(`${origin}/login`);
      await admin.page.fill('#username', 'admin');
      await admin.page.fill('#password', PASSWORD);
      await navigation(admin.page, () => admin.page.click('button[type=submit]'));
      await admin.page.goto(`${origin}/enroll-tokens`);
      await admin.page.fill('#uses', '3');
      await admin.page.click('text=Mint enrollment link');
      const link = (await admin.page.inputValue('#link')).trim();
      for (const name of ['line3-press', 'line3-oven', 'office-printer']) devices.push(await enroll(link, name));
    });
    after(async () => {
      await browser?.close();
      server?.child.kill('SIGTERM');
    });

    test('from a device page by keyboard: the collection’s page, then cancelled', async () => {
      const { page } = admin;
      await page.goto(`${origin}/devices/${devices[0]}`);
      await audit(admin, origin, 'device-request-form');
      await page.focus('#request-privacy');
      await page.keyboard.press('ArrowDown');
      assert.equal(await page.inputValue('#request-privacy'), 'redacted', 'the arrow key picks the next level');
      await page.focus('#request-reason');
      await page.keyboard.type('firmware <2.1> check');
      // Enter in a text field submits its form.
      await navigation(page, () => page.keyboard.press('Enter'));
      assert.match(page.url(), COLLECTION_URL);
      const shown = await mainText(page);
      assert.match(shown, /Privacy level asked redacted, or a more private one/);
      assert.match(shown, /Reason firmware <2\.1> check/);
      assert.match(shown, /State open/);
      assert.match(shown, /line3-press \(d_[A-Za-z0-9_-]+\) r_\d+ pending/);
      await audit(admin, origin, 'collection');
      await page.focus('button:has-text("Cancel the open requests")');
      await navigation(page, () => page.keyboard.press('Enter'));
      assert.match(page.url(), COLLECTION_URL);
      const cancelled = await mainText(page);
      assert.match(cancelled, /State closed just now \(.*\), cancelled/);
      assert.match(cancelled, /line3-press \(d_[A-Za-z0-9_-]+\) r_\d+ cancelled/);
      assert.doesNotMatch(cancelled, /Cancel the open requests/);
      await audit(admin, origin, 'collection-cancelled');
    });

    test('from the device list: every device its filters match, counted', async () => {
      const { page } = admin;
      await page.goto(`${origin}/devices`);
      assert.match(await mainText(page), /Request a run from every device in this list: \d+ devices?/);
      await page.fill('#q', 'line3');
      await navigation(page, () => page.click('text=Show devices'));
      assert.match(await mainText(page), /Request a run from every device matching these filters: 2 devices/);
      await audit(admin, origin, 'devices-request-form');
      await page.fill('#request-reason', 'after the storm');
      await page.selectOption('#request-expires', '3600');
      await navigation(page, () => page.click('text=Request a run from 2 devices'));
      // More than one device: its confirmation page first (docs/contract.md section 22), by keyboard.
      assert.equal(page.url(), `${origin}/collections/confirm`);
      assert.equal(await page.textContent('h1'), 'Request a run from 2 devices?');
      await audit(admin, origin, 'collection-confirm');
      await page.focus('main button:has-text("Request a run from 2 devices")');
      await navigation(page, () => page.keyboard.press('Enter'));
      assert.match(page.url(), COLLECTION_URL);
      const shown = await mainText(page);
      assert.match(shown, /Privacy level asked minimal/);
      assert.match(shown, /Expires\s*in 1 hour/);
      assert.match(shown, /Targets 1–2 of 2/);
      assert.match(shown, /line3-oven/);
      assert.doesNotMatch(shown, /office-printer/);
      await audit(admin, origin, 'collection-from-filter');
    });

    test('the collections list, newest first, and its open or closed filter', async () => {
      const { page } = admin;
      await navigation(page, () => page.click('nav >> text=Collections'));
      const all = await mainText(page);
      assert.match(all, /Collections 1–2 of 2,\s+newest first/);
      assert.ok(all.indexOf('after the storm') < all.indexOf('firmware <2.1> check'), 'newest first');
      await audit(admin, origin, 'collections');
      await page.selectOption('#state', 'closed');
      await navigation(page, () => page.click('text=Show collections'));
      const closed = await mainText(page);
      assert.match(closed, /Collection 1 of 1, state “closed”/);
      assert.match(closed, /firmware <2\.1> check/);
      await audit(admin, origin, 'collections-closed');
    });
  });
}
