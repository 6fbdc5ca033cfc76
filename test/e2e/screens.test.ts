// The console's main pages at a laptop's width and a phone's (docs/contract.md section 22, "Every
// page reads well by keyboard and with the browser's default style"): the dashboard, the device
// list, the run list, a device, a run and a confirmation page, each audited (CSP, other origins,
// axe-core, labels, Tab order, the "Skip to content" link first) and photographed at 1280×900 and
// 390×844 for the README (`<page>-1280`, `<page>-390`). At the laptop's width the navigation is one
// line, and the skip link, followed by keyboard, leads past it into the page's content.
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { type PaddockProcess, paddock } from '../support/process.ts';
import { freePort } from '../support/tls_fixture.ts';
import { audit, chromiumAvailable, launch, type Watched, watchedContext } from './browser.ts';

const PASSWORD = 'e2e screens password';
const VIEWPORTS = [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
] as const;
let browser: Browser;
let server: PaddockProcess;
let origin = '';
/** The devices enrolled, by name: id and credential. */
const devices: Record<string, { device: string; credential: string }> = {};

/** Waits for the document a keypress or a click leads to. */
async function navigation(page: Page, act: () => Promise<void>): Promise<void> {
  await Promise.all([page.waitForEvent('framenavigated', (frame) => frame === page.mainFrame()), act()]);
  await page.waitForLoadState('load');
}

/** A new browser at `viewport`, signed in as the break-glass administrator. */
async function signedIn(viewport: { width: number; height: number }): Promise<Watched> {
  const w = await watchedContext(browser, viewport);
  await w.page.goto(`${origin}/login`);
  await w.page.fill('#username', 'admin');
  await w.page.fill('#password', PASSWORD);
  await navigation(w.page, () => w.page.click('button[type=submit]'));
  assert.equal(w.page.url(), `${origin}/`);
  return w;
}

/** Mints a link on the console (`approval`: its devices wait for an administrator) and enrolls `names` with it. */
async function enroll(w: Watched, names: string[], approval = false): Promise<void> {
  const { page } = w;
  await page.goto(`${origin}/enroll-tokens`);
  await page.fill('#uses', String(names.length));
  if (approval) await page.check('#approval');
  await navigation(page, () => page.click('text=Mint enrollment link'));
  const token = new URL((await page.inputValue('#link')).trim()).searchParams.get('token');
  for (const name of names) {
    const res = await fetch(`${origin}/v1/enroll`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, name }),
    });
    assert.equal(res.status, 201);
    devices[name] = (await res.json()) as { device: string; credential: string };
  }
}

async function call(name: string, method: string, path: string, body: string, headers: Record<string, string>) {
  const res = await fetch(`${origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${devices[name]?.credential ?? ''}`, ...headers },
    body,
  });
  assert.ok(res.ok, `${method} ${path}: ${res.status} ${await res.text()}`);
}

if (!chromiumAvailable()) {
  test('the console at two widths (skipped: no Chromium at /usr/bin/chromium and not on CI)', { skip: true }, () => {});
} else {
  describe('the console at two widths, in Chromium', () => {
    before(async () => {
      const port = await freePort();
      origin = `http://127.0.0.1:${port}`;
      server = paddock(['serve'], {
        PADDOCK_LISTEN: `127.0.0.1:${port}`,
        PADDOCK_BASE_URL: origin,
        PADDOCK_DATA_DIR: join(await mkdtemp(join(tmpdir(), 'paddock-e2e-screens-')), 'data'),
        PADDOCK_ADMIN_PASSWORD: PASSWORD,
      });
      await server.waitFor(/serving on/);
      browser = await launch();
      // A small fleet: three devices reporting their facts and uploading at each level, one waiting.
      // Signed in without the dashboard, whose counts are kept a few seconds: the pages below count it all.
      const w = await watchedContext(browser, VIEWPORTS[0]);
      const login = await w.page.request.post(`${origin}/login`, {
        form: { username: 'admin', password: PASSWORD },
        maxRedirects: 0,
      });
      assert.equal(login.status(), 303);
      await enroll(w, ['press-01', 'oven-02', 'printer-03']);
      await enroll(w, ['sensor-04'], true);
      await w.context.close();
      const facts = { os: 'linux', os_version: '6.12', arch: 'arm64' };
      for (const [name, version] of [
        ['press-01', '2.1.0'],
        ['oven-02', '2.1.0'],
        ['printer-03', '2.0.0'],
      ] as const)
        await call(name, 'PUT', '/v1/device/facts', JSON.stringify({ ...facts, client_version: version }), {});
      const levels = ['full', 'redacted', 'minimal'] as const;
      for (let i = 0; i < 6; i++) {
        const name = ['press-01', 'oven-02', 'printer-03'][i % 3] ?? '';
        const lines = Array.from({ length: 12 }, (_, n) => `step ${n + 1}: temperature=2${n % 10} ok`);
        await call(name, 'PUT', `/v1/runs/nightly-${i + 1}`, `${lines.join('\n')}\n`, {
          'x-privacy-level': levels[i % 3] ?? 'full',
          'content-type': 'text/plain',
        });
      }
    });
    after(async () => {
      await browser?.close();
      server?.child.kill('SIGTERM');
    });

    test('the skip link leads past the navigation, which is one line at a laptop’s width', async () => {
      const w = await signedIn(VIEWPORTS[0]);
      const { page } = w;
      // The navigation's links share one line (one top among them), the less used folded under "More".
      const tops = await page.$$eval('nav a', (els) =>
        els.filter((e) => e.closest('details') === null).map((e) => e.getBoundingClientRect().top),
      );
      assert.ok(tops.length >= 5, String(tops.length));
      assert.equal(
        new Set(tops.map((t) => Math.round(t))).size,
        1,
        `the navigation's links start at ${tops.join(', ')}`,
      );
      assert.equal(await page.locator('nav details:not([open]) > summary').textContent(), 'More');
      // By keyboard: the first Tab reaches the skip link, Enter follows it, the next Tab is in the content.
      await page.mouse.click(1, 1);
      await page.keyboard.press('Tab');
      const skip = page.locator('body > a:first-child');
      assert.equal(await skip.textContent(), 'Skip to content');
      assert.ok(await skip.evaluate((a) => a === a.ownerDocument.activeElement), 'the first Tab stop is the skip link');
      await page.keyboard.press('Enter');
      await page.waitForURL(`${origin}/#content`);
      await page.keyboard.press('Tab');
      assert.ok(
        await page
          .locator('main')
          .evaluate((m) => m !== m.ownerDocument.activeElement && m.contains(m.ownerDocument.activeElement)),
        'after the skip link, Tab goes on inside main',
      );
      await w.context.close();
    });

    for (const viewport of VIEWPORTS)
      test(`the dashboard, the lists, a device, a run and a confirmation page at ${viewport.width}×${viewport.height}`, async () => {
        const w = await signedIn(viewport);
        const { page } = w;
        const shot = (name: string) => audit(w, origin, `${name}-${viewport.width}`);
        const press = devices['press-01']?.device ?? '';
        assert.match((await page.textContent('main')) ?? '', /Self-test: All \d+ checks passed/);
        await shot('dashboard');
        await page.goto(`${origin}/devices`);
        assert.match((await page.textContent('main')) ?? '', /1–4 of (about )?4 devices/);
        await shot('devices');
        await page.goto(`${origin}/runs`);
        assert.match((await page.textContent('main')) ?? '', /Runs 1–6 of 6/);
        await shot('runs');
        await page.goto(`${origin}/devices/${press}`);
        assert.equal(await page.textContent('h1'), 'Device press-01');
        await shot('device');
        await page.goto(`${origin}/runs/${press}/nightly-4`);
        assert.match((await page.textContent('pre')) ?? '', /step 12: temperature=21 ok/);
        await shot('run');
        await page.goto(`${origin}/devices/${press}/revoke`);
        assert.match((await page.textContent('h1')) ?? '', /^Revoke device press-01\?$/);
        await shot('confirm');
        await w.context.close();
      });
  });
}
