/**
 * The provider page's rendering without a browser: every string of the model escaped and
 * isolated (hostile markup, bidi overrides, Unicode oddities), what each state shows and
 * accepts, and the headers. The browser suite (test/browser/provider-page.test.ts) looks at it.
 */
import { describe, expect, it } from 'vitest';
import { PROGRESS_SCRIPT } from '../../src/features/requests/provider-page-script.js';
import { providerPageHeaders, renderProviderPage, sizeWords, type ProviderPageModel } from '../../src/features/requests/provider-page.js';
import { UPLOAD_FORM_SCRIPT } from '../../src/features/verifications/index.js';
import { renderUploadPage } from '../../src/web/upload-page.js';

const HOSTILE = `"><script>alert(1)</script><img src=x onerror=alert(2)>'`;
const NONCE = 'N0NCE';

function model(overrides: Partial<ProviderPageModel> = {}): ProviderPageModel {
  return {
    serviceName: 'PhotoVerify',
    requesterName: 'Harbour Photo Contest',
    subject: 'Sunrise over the harbour',
    instructions: 'One photo per person.\nThe RAW file please.',
    deadline: '2026-12-01T18:00:00.000Z',
    mode: 'existing_original',
    state: 'open',
    formAction: '/r/TOKEN',
    maxUploadBytes: 100 * 1024 * 1024,
    ...overrides,
  };
}

const render = (m: ProviderPageModel) => renderProviderPage(m, NONCE);
/** The page without the one inline script (constant code, which names `<script>` things itself). */
const markupOf = (page: string) => page.replace(/<script nonce="N0NCE">[\s\S]*?<\/script>/, '<script></script>');

describe('the provider page escapes and isolates every string of the model', () => {
  const strings = ['requesterName', 'subject', 'instructions', 'serviceName', 'formAction'] as const;
  for (const field of strings) {
    it(`${field}: hostile markup is text`, () => {
      const page = markupOf(render(model({ [field]: HOSTILE })));
      expect(page).not.toContain('<script>alert');
      expect(page).not.toContain('<img src=x');
      expect(page).not.toMatch(/onerror=alert\(2\)>/);
      expect(page).toContain('&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    });
  }

  it('escapes the error, the submission URLs and a deadline that is not a date', () => {
    const page = markupOf(
      render(
        model({
          error: { message: HOSTILE, suggestion: HOSTILE },
          deadline: HOSTILE,
        }),
      ),
    );
    expect(page).not.toContain('<script>alert');
    // The message, the suggestion and the deadline.
    expect(page.match(/&lt;script&gt;alert\(1\)/g)!.length).toBe(3);
    const submitted = markupOf(
      render(model({ submission: { status: 'completed', statusUrl: HOSTILE, pageUrl: HOSTILE, reportUrl: `/shared/x${HOSTILE}`, result: null } })),
    );
    expect(submitted).not.toContain('<script>alert');
    expect(submitted).toContain('href="/shared/x&quot;&gt;&lt;script&gt;');
  });

  it('wraps the requester name and subject in <bdi> and the instructions in dir="auto", so a right-to-left override stays inside', () => {
    const rlo = '\u202Eevil\u202C';
    const page = render(model({ requesterName: `Studio ${rlo}`, subject: `Harbour ${rlo}`, instructions: `Please ${rlo} send` }));
    expect(page).toContain(`<p class="subtitle">A photo request from <bdi data-field="requester">Studio ${rlo}</bdi></p>`);
    expect(page).toContain(`<h1><bdi data-field="subject">Harbour ${rlo}</bdi></h1>`);
    expect(page).toMatch(new RegExp(`<p class="instructions" dir="auto" data-field="instructions">Please ${rlo} send</p>`));
    // Every occurrence of the name in the body is isolated, not just the first.
    const body = page.slice(page.indexOf('<body>'));
    const all = body.split('Studio \u202E').length - 1;
    const isolated = body.split(/<bdi[^>]*>Studio \u202E/).length - 1;
    expect(isolated).toBe(all);
    expect(all).toBeGreaterThanOrEqual(2);
  });

  it('keeps Unicode oddities as they are: combining marks, emoji, zero-width and isolate characters, a lone surrogate', () => {
    const odd = 'Ze\u0301ro\u200B \u{1F4F7}\u2067\u05D0\u2069 \uD800 Z̸̡̛';
    const page = render(model({ requesterName: odd, subject: odd }));
    expect(page).toContain(`<bdi data-field="requester">${odd}</bdi>`);
    expect(page).toContain(`<bdi data-field="subject">${odd}</bdi>`);
    // As bytes on the wire the lone surrogate becomes U+FFFD and nothing else changes.
    expect(Buffer.from(page, 'utf8').toString('utf8')).toContain('\uFFFD');
  });

  it('shows nothing of an account but its name: no e-mail address, no id', () => {
    for (const m of [model(), model({ mode: 'capture' }), model({ state: 'full' })]) {
      const markup = render(m).replace(/<style[\s\S]*?<\/style>|<script[\s\S]*?<\/script>/g, '');
      expect(markup).not.toMatch(/@|account_id|user_id|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-/i);
    }
  });
});

describe('what each state shows and accepts', () => {
  it('open: what is asked, the deadline in words, and a multipart form posting the photo (required) and the RAW (optional) to the action', () => {
    const page = render(model());
    expect(page).toContain('<dd data-field="deadline"><time datetime="2026-12-01T18:00:00.000Z">1 December 2026 at 18:00 UTC</time></dd>');
    expect(page).toMatch(/<form id="upload-form" method="post" action="\/r\/TOKEN" enctype="multipart\/form-data" data-max-bytes="104857600"/);
    expect(page).toMatch(/<input type="file" id="image" name="image" required/);
    expect(page).toMatch(/<input type="file" id="raw" name="raw" aria-describedby/);
    expect(page).not.toContain('name="attestation_id"');
    expect(page).toContain('Up to 100 MB');
    expect(page).toContain('<progress id="upload-progress"');
    expect(page).toContain(`<script nonce="${NONCE}">`);
    expect(page).toContain(`<style nonce="${NONCE}">`);
    expect(page).toContain('<meta name="robots" content="noindex, nofollow">');
    expect(page).toContain('One photo per person.\nThe RAW file please.');
  });

  it('capture: explains how to get an attestation and requires its id', () => {
    const page = render(model({ mode: 'capture' }));
    expect(page).toContain('This request needs a capture attestation');
    expect(page).toContain('POST /capture/challenge');
    expect(page).toContain('POST /capture/attestation');
    const scoped = render(model({ mode: 'capture', capture: { challengeUrl: 'https://pv.example/r/T/capture/challenge', attestationUrl: 'https://pv.example/r/T/capture/attestation' } }));
    expect(scoped).toContain('<code data-url="challenge">POST https://pv.example/r/T/capture/challenge</code>');
    expect(scoped).toContain('<code data-url="attestation">POST https://pv.example/r/T/capture/attestation</code>');
    expect(page).toMatch(/<input type="text" id="attestation_id" name="attestation_id" required/);
  });

  for (const [state, title] of [
    ['closed', 'This request is closed'],
    ['expired', 'This request has expired'],
    ['full', 'This request has all the photos it asked for'],
  ] as const) {
    it(`${state}: says so, with no form and no script`, () => {
      const page = render(model({ state, mode: 'capture' }));
      expect(page).toContain(`<h2 id="notice-title">${title}</h2>`);
      expect(page).toContain(`data-state="${state}"`);
      expect(page).not.toContain('<form');
      expect(page).not.toContain('<input');
      expect(page).not.toContain('<script');
      expect(page).toContain('Sunrise over the harbour');
    });
  }

  it('a refused upload: the message and suggestion above the form, shown', () => {
    const page = render(model({ error: { message: 'The photo is not an image.', suggestion: 'Send a JPEG.' } }));
    expect(page).toContain('<p id="form-error" class="form-error" role="alert" tabindex="-1">The photo is not an image. Send a JPEG.</p>');
    expect(render(model())).toContain('<p id="form-error" class="form-error" role="alert" tabindex="-1" hidden></p>');
  });

  const submission = { statusUrl: '/r/T/submissions/S/status', pageUrl: '/r/T/submissions/S', reportUrl: null, result: null };

  it('a submission in progress: the step, the status URL to poll, a "Check again" link, no form', () => {
    const page = render(model({ submission: { ...submission, status: 'in_progress' } }));
    expect(page).toContain('data-status="in_progress" data-status-url="/r/T/submissions/S/status"');
    expect(page).toContain('<li class="done">Received</li>');
    expect(page).toContain('<li aria-current="step">Being analysed</li>');
    expect(page).toContain('<a href="/r/T/submissions/S">Check again</a>');
    expect(page).not.toContain('<form');
    expect(page).toContain('<script');
  });

  it('a completed submission with share_with_provider: the report link; without: the level in words; failed: says so', () => {
    const shared = render(model({ submission: { ...submission, status: 'completed', reportUrl: '/shared/ABC' } }));
    expect(shared).toContain('<a href="/shared/ABC">open the verification report</a>');
    expect(shared).not.toContain('data-status-url');
    expect(shared).not.toContain('<script');
    const words = render(model({ submission: { ...submission, status: 'completed', result: { assuranceLevel: 'verified', pair: true } } }));
    expect(words).toContain('data-outcome="verified">Verified</p>');
    expect(words).toContain('faithful rendering');
    expect(words).not.toContain('/shared/');
    const failed = render(model({ submission: { ...submission, status: 'failed' } }));
    expect(failed).toContain('data-outcome="failed">Not completed</p>');
    expect(failed).toContain('<a href="/r/TOKEN">send the photo again</a>');
  });
});

describe('headers', () => {
  it('the report page’s hardening, with the form allowed to post to its own origin and the script to call it', () => {
    const headers = providerPageHeaders(NONCE);
    const csp = headers['Content-Security-Policy']!;
    expect(csp).toMatch(/^default-src 'none'; /);
    expect(csp).toContain(`script-src 'nonce-${NONCE}'`);
    expect(csp).toContain(`style-src 'nonce-${NONCE}'`);
    expect(csp).toContain("connect-src 'self'");
    expect(csp.match(/form-action [^;]+/g)).toEqual(["form-action 'self'"]);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(headers).toMatchObject({ 'X-Robots-Tag': 'noindex, nofollow', 'Referrer-Policy': 'no-referrer', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
  });

  it('sizes in words', () => {
    expect(sizeWords(100 * 1024 * 1024)).toBe('100 MB');
    expect(sizeWords(1.5 * 1024 * 1024)).toBe('1.5 MB');
    expect(sizeWords(2048)).toBe('2 KB');
  });
});

describe('the upload form’s script (issue 37: one copy)', () => {
  /** The text of the page's inline script. */
  const scriptOf = (page: string) => /<script nonce="N0NCE">([\s\S]*?)<\/script>/.exec(page)?.[1] ?? '';

  it('is the same module on the provider page and on the web app’s upload page, the provider page adding only its progress poll', () => {
    const shared = UPLOAD_FORM_SCRIPT.toString();
    const provider = scriptOf(render(model()));
    const upload = scriptOf(
      renderUploadPage({
        serviceName: 'PhotoVerify',
        nonce: NONCE,
        appPath: '/app',
        viewer: { accountName: 'A', userName: 'U', csrfToken: 'T' },
        quota: { month: '2026-12', plan: 'basic', currency: 'EUR', included: 50, included_used: 1, included_remaining: 49, overage_price: 0.5, monthly_budget_cap: null, budget_used: 0, budget_remaining: 0 },
        maxUploadBytes: 100 * 1024 * 1024,
      }),
    );
    expect(upload).toBe(shared);
    expect(provider).toBe(shared + PROGRESS_SCRIPT.toString());
  });
});
