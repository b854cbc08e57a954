import fs from 'node:fs';
import path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { requires, type Gate } from './requires.js';

/** The Chromium the browser suites drive (Debian's, unless CHROMIUM_PATH names another). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Skips `what` (saying why) where there is no Chromium. */
export const chromiumGate = (what: string): Gate =>
  requires({ server: `Chromium at ${CHROMIUM}`, variable: 'CHROMIUM_PATH', available: fs.existsSync(CHROMIUM), how: 'apt-get install chromium' }, what);

/** A headless Chromium. LIBRARY-NOTES: as root it needs --no-sandbox; the rest keeps it from reaching for the network. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** axe-core's serious and critical violations on the page as it is now, each named with where it is (the pages must have none). */
export async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/**
 * What goes wrong in a page from now on, as the browser suites expect none: console errors and
 * warnings, uncaught page errors and, with `requests`, requests that failed. The list fills as
 * they happen; a suite that expects one (a refused form's 4xx on the console) empties it.
 */
export function pageProblems(page: Page, options: { requests?: boolean } = {}): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  if (options.requests) page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()} ${request.failure()?.errorText}`));
  return problems;
}

/** The two widths every page is looked at: a phone's (390 px) and a desktop's (1280 px). */
export const viewports = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
];

/** Signs the page in to the web app at `baseUrl` through its sign-in form, and waits for the list it lands on. */
export async function signInPage(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/app/login`);
  await page.getByLabel('E-mail address').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${baseUrl}/app/verifications`);
}

/** What a suite does with its Chromium: open contexts and pages. */
export type SuiteBrowser = Pick<Browser, 'newContext' | 'newPage'>;

/**
 * The describe block's Chromium: launched before its tests, closed after them (also when a later
 * hook failed). Call it at the top of the block, inside the gate's describe.
 */
export function suiteChromium(): SuiteBrowser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => browser?.close());
  const running = (): Browser => {
    if (!browser) throw new Error('Chromium is not running: suiteChromium() launches it in its beforeAll, so call it inside the describe block');
    return browser;
  };
  return { newContext: (options) => running().newContext(options), newPage: (options) => running().newPage(options) };
}

/** An image of a page: its `src` and whether it loaded. */
export interface PageImage {
  src: string;
  ok: boolean;
}

/**
 * The checks every page of the web app passes as it is now: no serious axe-core violation,
 * nothing wider than the window (the pages work at 320 px), with `images` every image loaded
 * (waited for up to a minute); then a full-page screenshot `<prefix><shot>.png` in `artifacts`.
 * Returns the check for one page, which answers the page's images (empty without `images`).
 */
export function pageCheck(artifacts: string, options: { prefix?: string; images?: boolean } = {}): (page: Page, shot: string) => Promise<PageImage[]> {
  return async (page, shot) => {
    expect(await seriousViolations(page)).toEqual([]);
    const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
    expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
    let images: PageImage[] = [];
    if (options.images) {
      await page.waitForFunction(() => Array.from(document.images).every((img) => img.complete), undefined, { timeout: 60_000 });
      images = await page.evaluate(() => Array.from(document.images).map((img) => ({ src: img.getAttribute('src') ?? '', ok: img.complete && img.naturalWidth > 0 })));
      expect(images.filter((i) => !i.ok)).toEqual([]);
    }
    fs.mkdirSync(artifacts, { recursive: true });
    await page.screenshot({ path: path.join(artifacts, `${options.prefix ?? ''}${shot}.png`), fullPage: true });
    return images;
  };
}
