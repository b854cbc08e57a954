import { contentSecurityPolicy, html, htmlDocument, privatePageHeaders, type Html } from '../../core/text/html.js';
import { analysesSection } from './report-analyses.js';
import { anchorSection } from './report-anchor.js';
import { flickerSection, FLICKER_SCRIPT, heatmapSection } from './report-comparison.js';
import { credentialsSection } from './report-credentials.js';
import { badgeSection, factsSection, hashesSection, photoFigure } from './report-facts.js';
import { ICON, STYLE } from './report-style.js';
import { verdictSection } from './report-verdict.js';
import type { SharedFileUrl, SharedReport } from './report.js';

/**
 * The public report page (docs/decisions/, D-031 "The report page"): what a shared verification
 * shows a journalist or a contest judge without an account. Pure rendering of a SharedReport,
 * which carries no account, user or internal ids, no e-mail addresses and no blob keys; every
 * value goes through `html`, which escapes it. One stylesheet and one small script, both inline
 * under the response's CSP nonce; the script only drives the flicker comparison, everything
 * else is in the markup. This file puts the page together; its sections live beside it
 * (report-facts, report-verdict, report-analyses, report-comparison, report-credentials).
 */

export interface ReportPageInput {
  report: SharedReport;
  serviceName: string;
  /** The URL of one of the report's files (same origin, behind the share's access check). */
  fileUrl: SharedFileUrl;
  /** The response's CSP nonce for the inline style and script. */
  nonce: string;
  /** The auditor's page of this share (the history and its checks), same access. */
  historyUrl: string;
  /** The signed PDF report of this share (the pdf-report feature's route), same access. */
  pdfUrl: string;
}

export interface ErrorPageInput {
  status: number;
  message: string;
  suggestion?: string;
  serviceName: string;
  nonce: string;
}

/**
 * The headers every page and error page is sent with: nothing but the page's own origin may be
 * loaded (images; `data:` for the inline icon, so the browser does not ask for /favicon.ico),
 * the inline style and script run only under the nonce, no forms, no framing,
 * no referrer (the URL carries the share token), not indexed, never cached.
 */
export function pageHeaders(nonce: string): Record<string, string> {
  return { 'Content-Security-Policy': contentSecurityPolicy("img-src 'self' data:", `style-src 'nonce-${nonce}'`, `script-src 'nonce-${nonce}'`), ...privatePageHeaders };
}

/** The report page's frame inside the shell: the site's header, the body, an optional footer. */
function page(input: { title: string; nonce: string; body: Html; script: boolean; serviceName: string; footer?: string }): string {
  return htmlDocument({
    title: input.title,
    nonce: input.nonce,
    style: STYLE,
    icon: ICON,
    private: true,
    body: html`<div class="page">
<header class="site"><span class="brand">${input.serviceName}</span><span class="note">Photo authenticity report</span></header>
${input.body}
${input.footer ? html`<footer>${input.footer}</footer>` : html``}
</div>`,
    ...(input.script ? { script: FLICKER_SCRIPT } : {}),
  });
}

/**
 * The report's sections, from the photo to the tamper-evident record: what the report page shows
 * under its title, and what the web app's verification page shows its owner (issue 27).
 * `flicker`: the flicker comparison is there, and FLICKER_SCRIPT (under the page's nonce) drives it.
 * `live`: the page follows an unfinished verification by itself (the verdict does not ask for a reload).
 */
export function renderReportSections({ report, fileUrl, historyUrl, live = false }: Pick<ReportPageInput, 'report' | 'fileUrl' | 'historyUrl'> & { live?: boolean }): { html: Html; flicker: boolean } {
  const pair = report.verification_mode === 'raw_pair';
  const flicker = flickerSection(report, fileUrl);
  return {
    html: html`<div class="layout">
${photoFigure(report, fileUrl)}
${verdictSection(report, live)}
${factsSection(report)}
</div>
${analysesSection(report)}
${pair ? html`<div class="pair-visuals">${heatmapSection(report, fileUrl)}${flicker}</div>` : html``}
${credentialsSection(report)}
${badgeSection(report, fileUrl)}
${hashesSection(report)}
${anchorSection(report, historyUrl)}`,
    flicker: pair && flicker.value !== '',
  };
}

/** The report page of a shared verification. */
export function renderReportPage({ report, serviceName, fileUrl, nonce, historyUrl, pdfUrl }: ReportPageInput): string {
  const sections = renderReportSections({ report, fileUrl, historyUrl });
  const body = html`<main>
<h1>Verification report</h1>
<p class="subtitle">${report.name}</p>
${report.status === 'completed' ? html`<p><a href="${pdfUrl}" download>Download the signed PDF report</a> <span class="muted">(signed by the service: any change to it shows in a PDF reader)</span></p>` : html``}
${sections.html}
</main>`;
  return page({
    title: `Verification report: ${report.name} · ${serviceName}`,
    nonce,
    body,
    script: sections.flicker,
    serviceName,
    footer: 'Shared by the owner of this verification. The report shows the results; account information is not shown.',
  });
}

const errorTitles: Record<number, string> = {
  403: 'This report is restricted',
  404: 'This report is not available',
};

/**
 * A restricted share, in a browser's words: the use case's suggestion also names signing in,
 * which an API client can do (a bearer token) and a browser on this page cannot.
 */
const restrictedWords = {
  message: 'This report is shared only with invited people.',
  suggestion: 'Open it with the personal link in your invitation e-mail. If that link no longer works, the invitation may have been withdrawn: ask the person who shared the report.',
};

/** The page for an error on the report route: the status's title, the error's message and suggestion, nothing more. */
export function renderErrorPage(input: ErrorPageInput): string {
  const { status, serviceName, nonce } = input;
  const { message, suggestion } = status === 403 ? restrictedWords : input;
  const title = errorTitles[status] ?? (status >= 500 ? 'Something went wrong' : 'This page cannot be shown');
  const body = html`<main>
<section class="card" aria-labelledby="error-title">
<h1 id="error-title">${title}</h1>
<p>${message}</p>
${suggestion ? html`<p class="muted">${suggestion}</p>` : html``}
<p class="muted">Error ${status}</p>
</section>
</main>`;
  return page({ title: `${title} · ${serviceName}`, nonce, body, script: false, serviceName });
}
