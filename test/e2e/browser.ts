/**
 * Headless Chromium (Debian's, driven by playwright-core) and the checks every page must pass:
 * no Content-Security-Policy violation, no request to another origin, no axe-core violation,
 * every form control labelled, and every link and button reachable with the Tab key, the first
 * of them the "Skip to content" link.
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

/**
 * The checks every Paddock page passes; saves a screenshot named `name`, of the whole page unless
 * `fullPage` is false (then of the viewport: for a page thousands of pixels long, such as a run's).
 */
export async function audit(w: Watched, origin: string, name: string, { fullPage = true } = {}): Promise<void> {
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
  // docs/contract.md section 22: a bulk form comes before the rows it acts on (their checkboxes name it).
  const bulkAfterRows = await page.$$eval('table [form]', (els) =>
    els
      .filter((e) => {
        const form = e.ownerDocument.getElementById(e.getAttribute('form') ?? '');
        const table = e.closest('table');
        return form === null || table === null || !(form.compareDocumentPosition(table) & 4);
      })
      .map((e) => e.getAttribute('form')),
  );
  assert.deepEqual([...new Set(bulkAfterRows)], [], `${name}: bulk forms after the rows they act on`);
  mkdirSync(screenshots, { recursive: true });
  await page.screenshot({ path: `${screenshots}${name}.png`, fullPage });
  await keyboardReachesEverything(page, name);
}

/**
 * Tab from the top of the page visits every link, button and field, in document order, and the
 * summary of each `details` (the navigation's "More"): what a closed one folds is reached once it
 * is opened, so it is not counted while closed. The first stop is the "Skip to content" link.
 */
async function keyboardReachesEverything(page: Page, name: string): Promise<void> {
  const focusable = await page.$$eval(
    'a[href], button, input:not([type=hidden]), textarea, select, details > summary:first-of-type',
    (els) =>
      els
        .filter((e) => {
          const folded = e.closest('details:not([open])');
          return folded === null || e.parentElement === folded;
        })
        .map((e) => e.outerHTML),
  );
  // A click on the page's empty top-left corner moves the Tab starting point to the top.
  await page.mouse.click(1, 1);
  // Each element focused is recorded in the page, and the Tab presses go to Chromium in one
  // stream: one round trip each would take half a minute on a run's page of 1,000 numbered lines.
  await page.evaluate(() => {
    const g = globalThis as unknown as {
      reached?: string[];
      document: { addEventListener(type: string, f: (e: { target: { outerHTML: string } }) => void): void };
    };
    // A page audited twice keeps its one listener.
    if (g.reached === undefined) g.document.addEventListener('focusin', (e) => g.reached?.push(e.target.outerHTML));
    g.reached = [];
  });
  const cdp = await page.context().newCDPSession(page);
  const tab = { key: 'Tab', code: 'Tab', windowsVirtualKeyCode: 9, nativeVirtualKeyCode: 9 };
  const presses: Array<Promise<unknown>> = [];
  for (let i = 0; i < focusable.length; i++)
    presses.push(
      cdp.send('Input.dispatchKeyEvent', { type: 'rawKeyDown', ...tab }),
      cdp.send('Input.dispatchKeyEvent', { type: 'keyUp', ...tab }),
    );
  await Promise.all(presses);
  await cdp.detach();
  const reached = await page.evaluate(() => (globalThis as unknown as { reached: string[] }).reached);
  assert.deepEqual(reached, focusable, `${name}: Tab order`);
  // docs/contract.md section 22: a "Skip to content" link is the first Tab stop, and leads to the main content.
  assert.equal(reached[0], '<a href="#content">Skip to content</a>', `${name}: the first Tab stop`);
  assert.equal(await page.locator('main#content').count(), 1, `${name}: the skip link's target is main`);
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
