/**
 * The provider page in real Chromium (Debian's, driven by playwright-core), rendered from
 * models served by a tiny HTTP server in this file (the requests routes serve the same
 * function once wired): every state at 390 px and 1280 px, checked with axe-core, with
 * screenshots kept in test-artifacts/provider-page/ (gitignored) for a person to look at; the
 * upload of the 30D pair with its progress bar, the submission's progress followed to its
 * result, the same without JavaScript, and the refusals (a server error, a file over the limit,
 * a capture request without its attestation id). Then the same page served by the service:
 * a request created through the API, the pair uploaded through its page, the result seen.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { providerPageHeaders, renderProviderPage, type ProviderPageModel, type SubmissionStatus } from '../../src/features/requests/provider-page.js';
import { chromiumGate, pageProblems, seriousViolations, suiteChromium } from '../support/chromium.js';
import { databaseTargets } from '../support/databases.js';
import { serviceSuite } from '../support/suite.js';

const gate = chromiumGate('the provider page in a browser');

const fixtures = path.resolve(import.meta.dirname, '../../../shared/fixtures');
const pairDir = path.join(fixtures, 'pairs/canon_eos_30d_cr2');
const photo = { name: 'IMG_5952.jpg', mimeType: 'image/jpeg', buffer: fs.readFileSync(path.join(pairDir, 'IMG_5952.camera-preview.jpg')) };
const raw = { name: 'IMG_5952.CR2', mimeType: 'application/octet-stream', buffer: fs.readFileSync(path.join(pairDir, 'IMG_5952.CR2')) };
const artifacts = path.resolve(import.meta.dirname, '../../test-artifacts/provider-page');

const base: ProviderPageModel = {
  serviceName: 'PhotoVerify',
  requesterName: 'Harbour Photo Contest 2026 — Jury of the Northern Coast Photographic Society',
  subject: 'Sunrise over the harbour, winning entry of the landscape category',
  instructions: 'Send the photo you entered and the RAW file your camera recorded with it.\nDo not edit, resize or export the files again: we compare them with the entry.',
  deadline: '2026-12-01T18:00:00.000Z',
  mode: 'existing_original',
  state: 'open',
  formAction: '/r/open',
  maxUploadBytes: 16 * 1024 * 1024,
};

/** The submission the server shows; the test moves its status on. */
let submissionStatus: SubmissionStatus = 'queued';
let submissionOutcome: Pick<NonNullable<ProviderPageModel['submission']>, 'reportUrl' | 'result'> = { reportUrl: null, result: null };
/** What each POST carried: its path, its size and the names of its parts. */
const posts: { path: string; bytes: number; parts: string[] }[] = [];

const submission = () => ({ status: submissionStatus, statusUrl: '/r/submissions/s1/status', pageUrl: '/r/submissions/s1', ...submissionOutcome });

const models: Record<string, () => ProviderPageModel> = {
  '/r/open': () => base,
  '/r/capture': () => ({ ...base, mode: 'capture', formAction: '/r/capture', requesterName: 'מערכת החדשות — Picture Desk', subject: 'Flood in the old town, 27 November' }),
  '/r/closed': () => ({ ...base, state: 'closed' }),
  '/r/expired': () => ({ ...base, state: 'expired' }),
  '/r/full': () => ({ ...base, state: 'full' }),
  '/r/small': () => ({ ...base, formAction: '/r/small', maxUploadBytes: 1024 * 1024 }),
  '/r/refuse': () => ({ ...base, formAction: '/r/refuse' }),
  '/r/submissions/s1': () => ({ ...base, submission: submission() }),
};

function send(res: http.ServerResponse, status: number, model: ProviderPageModel) {
  const nonce = crypto.randomBytes(16).toString('base64');
  res.writeHead(status, { ...providerPageHeaders(nonce), 'Content-Type': 'text/html; charset=utf-8' });
  res.end(renderProviderPage(model, nonce));
}

/** Reads a POST slowly (as a far server over a slow uplink would), so the page's progress bar has something to show. */
function receive(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      req.pause();
      setTimeout(() => req.resume(), 15);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const server = http.createServer((req, res) => {
  // A request that breaks off answers 500 (the page checks report it) instead of hanging.
  serve(req, res).catch((error: unknown) => {
    if (!res.headersSent) res.writeHead(500);
    res.end(String(error));
  });
});

async function serve(req: http.IncomingMessage, res: http.ServerResponse) {
  const url = new URL(req.url!, 'http://localhost');
  if (req.method === 'POST') {
    const body = await receive(req);
    const parts = [...body.toString('latin1').matchAll(/Content-Disposition: form-data; name="([^"]+)"(?:; filename="([^"]*)")?/g)].map((m) => (m[2] !== undefined ? `${m[1]}=${m[2]}` : m[1]!));
    posts.push({ path: url.pathname, bytes: body.length, parts });
    if (url.pathname === '/r/refuse') return send(res, 422, { ...models['/r/refuse']!(), error: { message: 'The photo is not a faithful rendering of this RAW file.', suggestion: 'Send the JPEG the camera wrote with it.' } });
    res.writeHead(303, { Location: '/r/submissions/s1' });
    return res.end();
  }
  if (url.pathname === '/r/submissions/s1/status') {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
    return res.end(JSON.stringify({ status: submissionStatus }));
  }
  const model = models[url.pathname];
  if (!model) {
    res.writeHead(404);
    return res.end();
  }
  send(res, 200, model());
}

const viewports = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1280, height: 900 },
];

gate.describe('the provider page in Chromium', () => {
  let origin: string;

  beforeAll(async () => {
    fs.mkdirSync(artifacts, { recursive: true });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 120_000);

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });
  // After the server's hooks: launched once it listens, closed before it closes.
  const browser = suiteChromium();

  async function open(context: BrowserContext, target: string) {
    const page = await context.newPage();
    const problems = pageProblems(page, { requests: true });
    const response = await page.goto(`${origin}${target}`, { waitUntil: 'load' });
    return { page, response: response!, problems };
  }

  const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

  /** What every page must be: accessible, no horizontal scrolling, nothing blocked or failing, the account's name only. */
  async function looksRight(page: Page, problems: string[], screenshot: string, { axe = true } = {}) {
    // axe-core runs in the page: not where JavaScript is off (the same markup is checked with it on).
    if (axe) expect(await seriousViolations(page)).toEqual([]);
    expect(await overflow(page), 'no horizontal scrolling').toBeLessThanOrEqual(0);
    await page.screenshot({ path: path.join(artifacts, screenshot), fullPage: true });
    expect(problems).toEqual([]);
  }

  const states = [
    { target: '/r/open', label: 'open', heading: 'Send your photo', form: true },
    { target: '/r/capture', label: 'capture', heading: 'This request needs a capture attestation', form: true },
    { target: '/r/closed', label: 'closed', heading: 'This request is closed', form: false },
    { target: '/r/expired', label: 'expired', heading: 'This request has expired', form: false },
    { target: '/r/full', label: 'full', heading: 'This request has all the photos it asked for', form: false },
  ];

  for (const state of states) {
    for (const viewport of viewports) {
      it(`${state.label} at ${viewport.width} px: what is asked, ${state.form ? 'the form' : 'why nothing is accepted'}, accessible`, async () => {
        const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
        try {
          const { page, response, problems } = await open(context, state.target);
          expect(response.status()).toBe(200);
          expect(response.headers()['content-security-policy']).toMatch(/form-action 'self'/);
          expect(await page.locator('h2', { hasText: state.heading }).count()).toBe(1);
          const model = models[state.target]!();
          await expect(page.locator('[data-field="requester"]').innerText()).resolves.toBe(model.requesterName);
          await expect(page.locator('[data-field="subject"]').innerText()).resolves.toBe(model.subject);
          await expect(page.locator('[data-field="deadline"]').innerText()).resolves.toBe('1 December 2026 at 18:00 UTC');
          expect(await page.locator('form').count()).toBe(state.form ? 1 : 0);
          expect(await page.locator('input').count()).toBe(state.form ? (state.label === 'capture' ? 3 : 2) : 0);
          if (state.form) {
            // The progress bar waits, hidden, for an upload.
            expect(await page.locator('#upload').isVisible()).toBe(false);
            expect(await page.locator('#form-error').isVisible()).toBe(false);
          }
          await looksRight(page, problems, `${state.label}-${viewport.width}.png`);
        } finally {
          await context.close();
        }
      });
    }
  }

  it('uploads the 30D pair with a progress bar, then follows the verification to its result by itself', async () => {
    submissionStatus = 'queued';
    submissionOutcome = { reportUrl: null, result: null };
    const before = posts.length;
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    try {
      const { page, problems } = await open(context, '/r/open');
      await page.setInputFiles('#image', photo);
      await page.setInputFiles('#raw', raw);
      await page.click('button[type=submit]');
      // The server reads slowly: the bar shows part of the upload sent.
      await page.waitForFunction(() => {
        const bar = document.getElementById('upload-progress') as HTMLProgressElement;
        return bar.value > 0 && bar.value < 100;
      });
      expect(await page.locator('button[type=submit]').isDisabled()).toBe(true);
      await expect(page.locator('#upload-words').innerText()).resolves.toMatch(/^\d+ % sent$/);
      await page.screenshot({ path: path.join(artifacts, 'uploading-390.png'), fullPage: true });
      expect(await seriousViolations(page)).toEqual([]);

      await page.waitForURL(`${origin}/r/submissions/s1`, { timeout: 60_000 });
      expect(posts.slice(before)).toEqual([{ path: '/r/open', bytes: expect.any(Number), parts: ['image=IMG_5952.jpg', 'raw=IMG_5952.CR2'] }]);
      expect(posts.at(-1)!.bytes).toBeGreaterThan(raw.buffer.length + photo.buffer.length);
      await expect(page.locator('[aria-current="step"]').innerText()).resolves.toBe('Received');
      await looksRight(page, problems, 'submission-queued-390.png');

      // The page polls its status URL and reloads when the status changes.
      submissionStatus = 'in_progress';
      await page.locator('[aria-current="step"]', { hasText: 'Being analysed' }).waitFor({ timeout: 30_000 });
      submissionStatus = 'completed';
      submissionOutcome = { reportUrl: null, result: { assuranceLevel: 'verified', pair: true } };
      await page.locator('[data-outcome="verified"]').waitFor({ timeout: 30_000 });
      await expect(page.locator('main').innerText()).resolves.toContain('faithful rendering');
      expect(await page.locator('#progress').getAttribute('data-status-url')).toBeNull();
      await looksRight(page, problems, 'submission-verified-390.png');
    } finally {
      await context.close();
    }
  }, 120_000);

  it('shows the report link when the requester shares it, at both widths', async () => {
    submissionStatus = 'completed';
    submissionOutcome = { reportUrl: '/shared/REPORT', result: null };
    for (const viewport of viewports) {
      const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
      try {
        const { page, problems } = await open(context, '/r/submissions/s1');
        expect(await page.locator('a', { hasText: 'open the verification report' }).getAttribute('href')).toBe('/shared/REPORT');
        await looksRight(page, problems, `submission-shared-${viewport.width}.png`);
      } finally {
        await context.close();
      }
    }
  });

  it('without JavaScript: the form posts natively and the submission page has a "Check again" link', async () => {
    submissionStatus = 'in_progress';
    submissionOutcome = { reportUrl: null, result: null };
    const before = posts.length;
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, javaScriptEnabled: false });
    try {
      const { page, problems } = await open(context, '/r/open');
      await page.setInputFiles('#image', photo);
      await page.setInputFiles('#raw', raw);
      await Promise.all([page.waitForURL(`${origin}/r/submissions/s1`, { timeout: 20_000 }), page.click('button[type=submit]')]);
      expect(posts.slice(before).map((p) => p.parts)).toEqual([['image=IMG_5952.jpg', 'raw=IMG_5952.CR2']]);
      submissionStatus = 'failed';
      await Promise.all([page.waitForURL(`${origin}/r/submissions/s1`, { timeout: 20_000 }), page.click('a:has-text("Check again")')]);
      await expect(page.locator('[data-outcome="failed"]').innerText()).resolves.toBe('Not completed');
      await looksRight(page, problems, 'submission-failed-390-nojs.png', { axe: false });
    } finally {
      await context.close();
    }
  }, 120_000);

  it('shows a refused upload’s reason above the form, and lets the provider try again', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const { page, problems } = await open(context, '/r/refuse');
      await page.setInputFiles('#image', photo);
      await page.click('button[type=submit]');
      await page.locator('#form-error').waitFor({ state: 'visible', timeout: 30_000 });
      await expect(page.locator('#form-error').innerText()).resolves.toBe('The photo is not a faithful rendering of this RAW file. Send the JPEG the camera wrote with it.');
      expect(await page.locator('button[type=submit]').isEnabled()).toBe(true);
      expect(await page.locator('#upload').isVisible()).toBe(false);
      expect(page.url()).toBe(`${origin}/r/refuse`);
      // The browser reports the 422 itself; nothing else may fail.
      await looksRight(page, problems.filter((p) => !p.includes('status of 422')), 'refused-1280.png');
    } finally {
      await context.close();
    }
  }, 60_000);

  it('refuses before sending: a file over the limit, a capture request without its attestation id', async () => {
    const before = posts.length;
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    try {
      const small = await open(context, '/r/small');
      await small.page.setInputFiles('#image', photo);
      await small.page.setInputFiles('#raw', raw);
      await small.page.click('button[type=submit]');
      await expect(small.page.locator('#form-error').innerText()).resolves.toBe('IMG_5952.CR2 is larger than the 1 MB the service accepts.');
      await looksRight(small.page, small.problems, 'too-large-390.png');

      const capture = await open(context, '/r/capture');
      await capture.page.setInputFiles('#image', photo);
      await capture.page.click('button[type=submit]');
      expect(await capture.page.locator('#attestation_id').evaluate((el) => (el as HTMLInputElement).validity.valueMissing)).toBe(true);
      await capture.page.fill('#attestation_id', 'not an id');
      await capture.page.click('button[type=submit]');
      expect(await capture.page.locator('#attestation_id').evaluate((el) => (el as HTMLInputElement).validity.patternMismatch)).toBe(true);
      await capture.page.waitForTimeout(500);
      expect(posts.length).toBe(before);
      expect(capture.problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});

gate.describe('the provider page served by the service, in Chromium', () => {
  const { t, call, newAccount } = serviceSuite(databaseTargets[0]!, { MAX_UPLOAD_BYTES: String(16 * 1024 * 1024) });
  const owner = newAccount();
  const browser = suiteChromium();

  beforeAll(async () => {
    fs.mkdirSync(artifacts, { recursive: true });
  });

  it('the requester creates a request; the provider uploads the 30D pair through its page and sees the result', async () => {
    const created = await call('POST', '/v1/requests', {
      token: owner.token,
      json: { subject: 'Finalist: harbour at dawn', instructions: 'The JPEG and the CR2, as the camera wrote them.', expires_at: new Date(Date.now() + 86_400_000).toISOString() },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const pagePath = new URL(created.body.url).pathname;
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    try {
      const page = await context.newPage();
      const problems = pageProblems(page);
      expect((await page.goto(`${t.url}${pagePath}`))!.status()).toBe(200);
      await expect(page.locator('[data-field="subject"]').innerText()).resolves.toBe('Finalist: harbour at dawn');
      await page.setInputFiles('#image', photo);
      await page.setInputFiles('#raw', raw);
      await page.click('button[type=submit]');
      await page.waitForURL(new RegExp(`${pagePath}/submissions/[0-9a-f-]{36}$`), { timeout: 120_000 });
      // The page follows the verification by itself (its script polls the status) until the result.
      await page.locator('[data-outcome]').waitFor({ timeout: 180_000 });
      expect(await page.locator('[data-outcome]').getAttribute('data-outcome')).toBe('verified');
      const verificationId = page.url().split('/').at(-1)!;
      const listed = await call('GET', `/v1/verifications/?request_id=${created.body.id}`, { token: owner.token });
      expect(listed.body.items.map((v: { id: string }) => v.id)).toEqual([verificationId]);
      const html = await page.content();
      for (const secret of [owner.email, owner.account.id, owner.user.id]) expect(html).not.toContain(secret);
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: path.join(artifacts, 'service-verified-390.png'), fullPage: true });
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 400_000);
});
