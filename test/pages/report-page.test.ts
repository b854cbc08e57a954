/**
 * The report page's rendering without a browser: escaping (every interpolated value, hostile
 * ones included), what it shows for states the browser suite does not reach, and the headers.
 */
import { describe, expect, it } from 'vitest';
import { escapeHtml, html, Html, joinHtml } from '../../src/core/text/html.js';
import { pageHeaders, renderErrorPage, renderReportPage } from '../../src/features/sharing/report-page.js';
import type { SharedReport } from '../../src/features/sharing/report.js';

const HOSTILE = `"><script>alert(1)</script><img src=x onerror=alert(2)>'`;

function report(overrides: Partial<SharedReport> = {}): SharedReport {
  return {
    name: 'IMG_1.jpg',
    short_code: 'L-ABC123',
    status: 'completed',
    failure_reason: null,
    failure: null,
    verification_mode: 'image_only',
    result: false,
    result_confidence: 0,
    assurance_level: 'unrated',
    assurance_reason: 'Content Credentials: self_declared_ai (untrusted_signer_generative).',
    verdict: 'self_declared_ai',
    verdict_reason: 'untrusted_signer_generative',
    capture_verified: false,
    evidence_report: {
      outcome: 'manifest',
      validation_state: 'Valid',
      signer: { common_name: 'cai-prod', issuer: 'Adobe Inc.', trust: 'untrusted' },
      claim_generator: 'Adobe_Photoshop/24.7.0',
      actions: [{ action: 'c2pa.created' }, { action: 'c2pa.placed', softwareAgent: 'Adobe Firefly', digitalSourceType: 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia' }],
      ingredients: [{ title: 'behance.jpg', relationship: 'componentOf', has_manifest: false, recorded_failures: [] }],
      ai_declarations: [
        { sourceType: 'trainedAlgorithmicMedia', source: 'c2pa.action', location: 'a' },
        { sourceType: 'trainedAlgorithmicMedia', source: 'c2pa.action', location: 'b' },
        { sourceType: 'Adobe Firefly', source: 'c2pa.software_agent', location: 'c' },
      ],
    },
    raw_metadata: {},
    image_metadata: { format: 'jpeg' },
    rendition_info: {},
    rendition_corrected_info: {},
    results: [{ analysis: 'c2pa_credentials', result: null, confidence_score: 1, details: { validation_state: 'Valid' }, recorded_at: '2026-03-01T10:00:00.000Z' }],
    image_photo_hash: `sha256:${'a'.repeat(64)}`,
    raw_photo_hash: '',
    capture: null,
    created_at: '2026-03-01T10:00:00.000Z',
    updated_at: '2026-03-01T10:00:05.000Z',
    processing_region: 'eu-central-1',
    anchor: null,
    files: { image: true, thumbnail: true, badge: false, heatmap: false, raw_reference: false },
    access_type: 'anyone_with_link',
    viewer: 'link',
    ...overrides,
  };
}

const render = (r: SharedReport) => renderReportPage({ report: r, serviceName: 'PhotoVerify', fileUrl: (kind) => `/shared/T/files/${kind}`, nonce: 'N0NCE', historyUrl: '/shared/T/history?invite=a&b', pdfUrl: '/shared/T/report.pdf?invite=a&b' });

describe('html: one escaping function, one tagged template', () => {
  it('escapes the five characters that matter in text and attributes', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });

  it('escapes every interpolated value, keeps nested html, renders arrays and drops null/undefined/false', () => {
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p title="${HOSTILE}">${inner}${['<x>', html`<br>`]}${null}${undefined}${false}${0}</p>`.value).toBe(
      `<p title="${escapeHtml(HOSTILE)}"><b>&lt;i&gt;</b>&lt;x&gt;<br>0</p>`,
    );
    expect(joinHtml(['<a>', html`<b>`], ', ').value).toBe('&lt;a&gt;, <b>');
  });

  it('makes Html only from templates', () => {
    expect(() => new Html(Symbol('html'), '<script>')).toThrow();
  });
});

describe('the report page', () => {
  it('escapes hostile values wherever they come from (file name, credentials, analyses)', () => {
    const page = render(
      report({
        name: HOSTILE,
        evidence_report: {
          outcome: 'manifest',
          signer: { common_name: HOSTILE, issuer: HOSTILE, trust: HOSTILE },
          claim_generator: HOSTILE,
          actions: [{ action: HOSTILE, softwareAgent: HOSTILE, description: HOSTILE }],
          ingredients: [{ title: HOSTILE, relationship: HOSTILE }],
          ai_declarations: [{ sourceType: HOSTILE, source: HOSTILE }],
        },
        results: [{ analysis: HOSTILE, result: true, confidence_score: 1, details: { note: HOSTILE }, recorded_at: HOSTILE }],
        assurance_reason: HOSTILE,
        processing_region: HOSTILE,
        short_code: HOSTILE,
      }),
    );
    expect(page).not.toContain('<script>alert');
    expect(page).not.toContain('<img src=x');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    // The only script element is the page's own (none here: image-only pages need no script).
    expect(page.match(/<script/g) ?? []).toHaveLength(0);
  });

  it('says what the level and the verdict mean, and lists each AI declaration once', () => {
    const page = render(report());
    expect(page).toContain('data-level="unrated"');
    expect(page).toContain('AI-generated (self-declared)');
    expect(page).toContain('not on the trust list');
    expect(page.match(/generated by AI \(trained algorithmic media\)<\/strong>/g)).toHaveLength(1);
    expect(page).toContain('2 places');
    expect(page).toContain('<meta name="robots" content="noindex, nofollow">');
    expect(page).toContain('<style nonce="N0NCE">');
    expect(page).toContain('1 March 2026 at 10:00 UTC');
  });

  it('shows a verification still running, or one that failed, without a level', () => {
    expect(render(report({ status: 'in_progress', assurance_level: null, verdict: null, verdict_reason: null, results: [] }))).toContain('In progress');
    const failed = render(report({ status: 'failed', assurance_level: null, verdict: null, failure_reason: 'The RAW file is truncated.', results: [] }));
    expect(failed).toContain('Not completed');
    expect(failed).toContain('The RAW file is truncated.');
  });

  it('shows a browser-displayable preview for a HEIC photo, and the flicker script only for pairs with both layers', () => {
    const heic = render(report({ image_metadata: { format: 'heif' } }));
    expect(heic).toContain('src="/shared/T/files/thumbnail"');
    const pair = render(
      report({
        verification_mode: 'raw_pair',
        verdict: null,
        verdict_reason: null,
        assurance_level: 'verified',
        raw_photo_hash: `sha256:${'b'.repeat(64)}`,
        files: { image: true, thumbnail: true, badge: true, heatmap: true, raw_reference: true },
      }),
    );
    expect(pair.match(/<script nonce="N0NCE">/g)).toHaveLength(1);
    expect(pair).toContain('id="flicker"');
    expect(pair).toContain('src="/shared/T/files/raw_reference"');
    expect(pair).toContain('src="/shared/T/files/heatmap"');
    expect(pair).toContain('src="/shared/T/files/badge"');
    const noReference = render(report({ verification_mode: 'raw_pair', files: { image: true, thumbnail: true, badge: false, heatmap: true, raw_reference: false } }));
    expect(noReference).not.toContain('<script');
  });

  it('renders error pages with the browser’s way in for a restricted share, and sends the strict headers', () => {
    const restricted = renderErrorPage({ status: 403, message: 'restricted', suggestion: 'sign in', serviceName: 'PhotoVerify', nonce: 'N' });
    expect(restricted).toContain('personal link in your invitation e-mail');
    expect(restricted).not.toContain('sign in');
    const missing = renderErrorPage({ status: 404, message: HOSTILE, serviceName: 'PhotoVerify', nonce: 'N' });
    expect(missing).toContain('This report is not available');
    expect(missing).not.toContain('<script');
    const headers = pageHeaders('N');
    expect(headers['Content-Security-Policy']).toBe("default-src 'none'; img-src 'self' data:; style-src 'nonce-N'; script-src 'nonce-N'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
    expect(headers['X-Robots-Tag']).toBe('noindex, nofollow');
    expect(headers['Referrer-Policy']).toBe('no-referrer');
  });
});

describe('the anchor section', () => {
  it('says "not yet anchored" until the record is anchored', () => {
    const page = render(report());
    expect(page).toContain('This record is not yet anchored.');
  });

  it('names when, the batch, the start of the root and whether it is timestamped', () => {
    const anchor = { batch_id: '7', sealed_at: '2026-03-01T10:05:00.000Z', root: 'ab'.repeat(32), tree_size: 3, timestamped: true, timestamp_failure: null };
    const page = render(report({ anchor }));
    expect(page).toContain('This record is anchored');
    expect(page).toContain('2 other records');
    expect(page).toContain('number 7');
    expect(page).toContain(`${'ab'.repeat(8)}…`);
    expect(page).not.toContain('ab'.repeat(32));
    expect(page).toContain('1 March 2026 at 10:05 UTC');
    expect(page).toContain('confirmed by an independent timestamp authority');
    expect(render(report({ anchor: { ...anchor, timestamped: false, timestamp_failure: 'HTTP 503' } }))).toContain('the timestamp authority could not be reached');
  });

  it('links the history page, anchored or not, with the share\'s proof kept (escaped)', () => {
    for (const page of [render(report()), render(report({ anchor: { batch_id: '7', sealed_at: '2026-03-01T10:05:00.000Z', root: 'ab'.repeat(32), tree_size: 1, timestamped: false, timestamp_failure: null } }))]) {
      expect(page).toContain('<a href="/shared/T/history?invite=a&amp;b">See the full history');
    }
  });
});
