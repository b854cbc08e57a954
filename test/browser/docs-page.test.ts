/**
 * The API reference page in real Chromium (Debian's, driven by playwright-core): it loads with no
 * console error or warning, no failed or blocked request, nothing fetched from another host, and
 * shows every operation of /openapi.json. The front page is checked in the same browser.
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { chromiumGate, pageProblems, suiteChromium } from '../support/chromium.js';
import { client } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';

const gate = chromiumGate('the API reference page in a browser');

gate.describe('the API reference and front pages in Chromium', () => {
  const { t } = serviceSuite(databaseTargets[0]!);
  const browser = suiteChromium();

  /** Opens a page, recording every console error or warning, page error, failed request and request to another origin. */
  async function open(target: string): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems = pageProblems(page, { requests: true });
    const origin = new URL(t.url).origin;
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('data:') || new URL(url).origin === origin) return route.continue();
      problems.push(`request to another origin: ${url}`);
      return route.abort();
    });
    const response = await page.goto(`${t.url}${target}`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    return { page, problems };
  }

  gate.it('the reference at /docs lists every operation of /openapi.json, with no console error', async () => {
    const spec = (await client(t.url)('GET', '/openapi.json')).body as { info: { title: string }; paths: Record<string, Record<string, unknown>> };
    const operations = Object.entries(spec.paths).flatMap(([route, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${route}`));
    expect(operations.length).toBeGreaterThan(30);

    const { page, problems } = await open('/docs');
    // Swagger UI renders one block per operation once it has fetched and parsed the document.
    await page.waitForFunction((count) => document.querySelectorAll('.opblock').length >= count, operations.length, { timeout: 120_000 });
    const shown = await page.$$eval('.opblock', (blocks) =>
      blocks.map((block) => {
        const method = block.querySelector('.opblock-summary-method')?.textContent?.trim() ?? '';
        const route = block.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '';
        return `${method.toUpperCase()} ${route}`;
      }),
    );
    expect(new Set(shown)).toEqual(new Set(operations));
    expect(await page.title()).toContain('API reference');
    // The page's own heading comes from the document's info.
    expect(await page.locator('.info .title').first().textContent()).toContain(spec.info.title);
    // Opening one operation shows its parameters and responses (the renderer works past the list).
    await page.locator('.opblock-summary-control').first().click();
    await page.locator('.opblock-body .responses-wrapper').first().waitFor({ timeout: 30_000 });
    expect(problems).toEqual([]);
    await page.context().close();
  });

  gate.it('the front page at / is HTML for the browser, linking to the web app, the reference, the document and health', async () => {
    const { page, problems } = await open('/');
    expect(await page.locator('h1').textContent()).toBe('PhotoVerify');
    const links = await page.$$eval('a', (anchors) => anchors.map((a) => a.getAttribute('href')));
    // The front door first (sign in, create an account, the web app, a forgotten password), then the reference, the document and health.
    expect(links).toEqual(['/app/login', '/app/signup', '/app', '/app/password-reset', '/docs', '/openapi.json', '/v1/public/health']);
    await page.locator('a', { hasText: 'API reference' }).click();
    await page.waitForURL('**/docs');
    await page.locator('.opblock').first().waitFor({ timeout: 120_000 });
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
