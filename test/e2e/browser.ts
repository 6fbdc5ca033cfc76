/**
 * Headless Chromium (Debian's, driven by playwright-core) and the checks every page must pass:
 * no Content-Security-Policy violation, no request to another origin, no axe-core violation,
 * every form control labelled, and every link and button reachable with the Tab key.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
const axeSource = readFileSync(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url), 'utf8');
/** `UPDATE_SCREENSHOTS=1 npm test` refreshes the README's pictures; otherwise they go to a temporary folder. */
const screenshots =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? new URL('../../docs/screenshots/', import.meta.url).pathname
    : join(tmpdir(), 'paddock-screenshots/');

/** True when Chromium can run; on CI its absence is a failure, not a skip. */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI === 'true') throw new Error(`${CHROMIUM} is required on CI (apt-get install -y chromium)`);
  return false;
}

export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** A browser context that records console messages and the origins it requested. */
export async function watchedContext(browser: Browser, viewport = { width: 1100, height: 800 }) {
  const context = await browser.newContext({ viewport });
  const console: string[] = [];
  const requests: string[] = [];
  context.on('request', (r) => requests.push(r.url()));
  context.on('console', (m) => console.push(`${m.type()}: ${m.text()}`));
  const page = await context.newPage();
  return { context, page, console, requests };
}

export interface Watched {
  context: BrowserContext;
  page: Page;
  console: string[];
  requests: string[];
}

/** The checks every Paddock page passes; saves a screenshot named `name`. */
export async function audit(w: Watched, origin: string, name: string): Promise<void> {
  const { page } = w;
  assert.equal(new URL(page.url()).origin, origin, `${name} is a Paddock page`);
  assert.deepEqual(
    w.console.filter((m) => /Content.Security.Policy|Refused to/i.test(m)),
    [],
    `${name}: CSP violations`,
  );
  assert.deepEqual(
    w.requests.filter((u) => new URL(u).origin !== origin),
    [],
    `${name}: requests to other origins`,
  );
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; nodes: unknown[] }> }> } }
    ).axe;
    return (await axe.run()).violations.map((v) => `${v.id} (${v.nodes.length})`);
  });
  assert.deepEqual(violations, [], `${name}: axe-core violations`);
  const unlabelled = await page.$$eval('input:not([type=hidden]), select, textarea', (els) =>
    els
      .filter(
        (e) =>
          (e as unknown as { labels: ArrayLike<unknown> | null }).labels?.length === 0 && !e.getAttribute('aria-label'),
      )
      .map((e) => e.outerHTML),
  );
  assert.deepEqual(unlabelled, [], `${name}: unlabelled form controls`);
  mkdirSync(screenshots, { recursive: true });
  await page.screenshot({ path: `${screenshots}${name}.png`, fullPage: true });
  await keyboardReachesEverything(page, name);
}

/** Tab from the top of the page visits every link, button and field, in document order. */
async function keyboardReachesEverything(page: Page, name: string): Promise<void> {
  const focusable = await page.$$eval('a[href], button, input:not([type=hidden]), textarea, select', (els) =>
    els.map((e) => e.outerHTML),
  );
  // A click on the page's empty top-left corner moves the Tab starting point to the top.
  await page.mouse.click(1, 1);
  const reached: string[] = [];
  for (let i = 0; i < focusable.length; i++) {
    await page.keyboard.press('Tab');
    reached.push(
      await page.evaluate(
        () =>
          (globalThis as unknown as { document: { activeElement: { outerHTML: string } | null } }).document
            .activeElement?.outerHTML ?? '',
      ),
    );
  }
  assert.deepEqual(reached, focusable, `${name}: Tab order`);
}

/**
 * Opens the navigation's "More" by keyboard (docs/contract.md section 22: the less used pages are
 * folded there), unless it is open already.
 */
export async function openMore(page: Page): Promise<void> {
  if (await page.$('nav details[open]')) return;
  await page.focus('nav summary');
  await page.keyboard.press('Enter');
  await page.waitForSelector('nav details[open]');
}
