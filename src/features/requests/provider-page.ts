import { supportedRawFormats } from '../../analysis/raw/format-detect.js';
import { rawExtensions } from '../../analysis/types.js';
import { contentSecurityPolicy, html, htmlDocument, privatePageHeaders, type Html } from '../../core/text/html.js';
import { levelWords, UPLOAD_FORM_SCRIPT } from '../verifications/index.js';
import { PROGRESS_SCRIPT } from './provider-page-script.js';
import { ICON, STYLE } from './provider-page-style.js';

/**
 * The provider's page at a verification request's URL (issue 24, spec 2.7): what a photographer
 * asked for an original sees without an account. Pure rendering of a ProviderPageModel, which
 * carries the requesting account's name and nothing else of the account (no ids, no e-mail, no
 * other submissions); every value goes through `html`, which escapes it, and the texts a
 * requester writes are isolated with <bdi>/dir="auto" so a right-to-left override in a name
 * cannot reorder the page's own words. The page works without script (the form posts natively,
 * a submission page has a "Check again" link); its inline script is the upload form's
 * (UPLOAD_FORM_SCRIPT, the web app's upload page's too: the progress bar) and its own
 * (provider-page-script.ts: follows the verification's progress).
 */

export type ProviderPageState = 'open' | 'closed' | 'expired' | 'full';
export type RequestMode = 'existing_original' | 'capture';
export type SubmissionStatus = 'pending' | 'queued' | 'in_progress' | 'completed' | 'failed';
export type AssuranceLevel = keyof typeof levelWords;

/** A submission the provider has just made, as the provider may see it (never another's). */
export interface ProviderSubmission {
  status: SubmissionStatus;
  /** JSON `{"status": SubmissionStatus}`, polled by the script while the status is not final. */
  statusUrl: string;
  /** This page with this submission: the no-script "Check again" link. */
  pageUrl: string;
  /** The shared report's URL once completed, when the request has `share_with_provider`; else null. */
  reportUrl: string | null;
  /** When completed without `share_with_provider`: the level, in words on the page. */
  result: { assuranceLevel: AssuranceLevel; pair: boolean } | null;
}

export interface ProviderPageModel {
  serviceName: string;
  /** The requesting account's name: the only thing of the account the provider is shown. */
  requesterName: string;
  subject: string;
  instructions: string;
  /** The request's `expires_at` (ISO 8601). */
  deadline: string;
  mode: RequestMode;
  /** `open` shows the form; the others say why nothing is accepted (the model decides `full` from the count and cap). */
  state: ProviderPageState;
  /**
   * Where the form posts (multipart: `image`, optional `raw`, `attestation_id` in capture mode,
   * the field names of POST /v1/verifications). It answers 303 See Other to the submission's
   * page (so a reload never posts again), or the page again with `error` and a 4xx status.
   */
  formAction: string;
  /** Largest accepted file (MAX_UPLOAD_BYTES): said on the page and checked before sending. */
  maxUploadBytes: number;
  /** mode capture: where a capture app asks for its challenge and sends its attestation (the request's own, absolute URLs). */
  capture?: { challengeUrl: string; attestationUrl: string };
  /** A refused upload, shown above the form. */
  error?: { message: string; suggestion?: string };
  submission?: ProviderSubmission;
}

/**
 * The page's headers: the report page's (nothing loads but the page's own origin, the inline
 * style and script only under the nonce, no framing, no referrer: the URL carries the request's
 * token; never indexed or cached), except that this page's form may post to its own origin and
 * its script may call it (upload, status polling).
 */
export function providerPageHeaders(nonce: string): Record<string, string> {
  const policy = contentSecurityPolicy("img-src 'self' data:", `style-src 'nonce-${nonce}'`, `script-src 'nonce-${nonce}'`, "connect-src 'self'").replace(
    "form-action 'none'",
    "form-action 'self'",
  );
  return { 'Content-Security-Policy': policy, ...privatePageHeaders };
}

const dateWords = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' });

/** A date-time in words, in UTC (a provider anywhere reads the same deadline). */
function when(iso: string): Html {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return html`${iso}`;
  return html`<time datetime="${date.toISOString()}">${dateWords.format(date)} UTC</time>`;
}

/** Bytes in words: "100 MB". */
export function sizeWords(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  if (mb >= 1) return `${Number.isInteger(mb) ? mb : mb.toFixed(1)} MB`;
  return `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

/** A requester's text, isolated so its direction cannot spill into the page's words. */
const isolated = (text: string) => html`<bdi>${text}</bdi>`;

function requestSection(model: ProviderPageModel): Html {
  return html`<section class="card" aria-labelledby="request-title">
<h2 id="request-title">What is asked</h2>
<dl class="facts">
<dt>Deadline</dt><dd data-field="deadline">${when(model.deadline)}</dd>
<dt>Kind of photo</dt><dd data-field="mode">${model.mode === 'capture' ? 'Taken with a capture app that attests it (see below)' : 'An original photo you already have, with its camera RAW file if you have one'}</dd>
</dl>
${model.instructions.trim()
  ? html`<h3>Instructions</h3><p class="instructions" dir="auto" data-field="instructions">${model.instructions}</p>`
  : html``}
</section>`;
}

const closedWords: Record<Exclude<ProviderPageState, 'open'>, { title: string; text: (m: ProviderPageModel) => Html }> = {
  closed: { title: 'This request is closed', text: (m) => html`${isolated(m.requesterName)} has closed this request. It no longer accepts photos.` },
  expired: { title: 'This request has expired', text: (m) => html`Its deadline, ${when(m.deadline)}, has passed. It no longer accepts photos.` },
  full: { title: 'This request has all the photos it asked for', text: (m) => html`It has received as many photos as ${isolated(m.requesterName)} asked for. It no longer accepts photos.` },
};

function noticeSection(model: ProviderPageModel & { state: Exclude<ProviderPageState, 'open'> }): Html {
  const words = closedWords[model.state];
  return html`<section class="card notice" aria-labelledby="notice-title" data-state="${model.state}">
<h2 id="notice-title">${words.title}</h2>
<p>${words.text(model)}</p>
<p class="muted">If you still need to send a photo, ask ${isolated(model.requesterName)} for a new link.</p>
</section>`;
}

function captureHelp(urls: ProviderPageModel['capture']): Html {
  const challenge = urls ? html`<code data-url="challenge">POST ${urls.challengeUrl}</code>` : html`<code>POST /capture/challenge</code>`;
  const attestation = urls ? html`<code data-url="attestation">POST ${urls.attestationUrl}</code>` : html`<code>POST /capture/attestation</code>`;
  return html`<section class="card" aria-labelledby="capture-title">
<h2 id="capture-title">This request needs a capture attestation</h2>
<p>The photo must be taken with a capture app that proves, with a key held on your device, that these exact files came from it moments after a challenge from this service. Photos taken another way, or edited afterwards, are not accepted here.</p>
<ol class="plain">
<li>Take the photo with the capture app. The app asks this service for a one-time challenge for this request (${challenge}, valid 5 minutes; you need no account).</li>
<li>The app computes the SHA-256 of the photo (and of the RAW, if it records one), signs them with the challenge using the device key, and sends the result to this service (${attestation}).</li>
<li>The app shows an <strong>attestation id</strong>. Enter it below and upload the same files, unchanged: not edited, resized or exported again. An attestation can be used once, within 24 hours.</li>
</ol>
</section>`;
}

function uploadForm(model: ProviderPageModel): Html {
  const capture = model.mode === 'capture';
  const limit = sizeWords(model.maxUploadBytes);
  return html`<section class="card" aria-labelledby="form-title">
<h2 id="form-title">Send your photo</h2>
<p id="form-error" class="form-error" role="alert" tabindex="-1"${model.error ? html`` : html` hidden`}>${model.error ? html`${model.error.message}${model.error.suggestion ? html` ${model.error.suggestion}` : html``}` : html``}</p>
<form id="upload-form" method="post" action="${model.formAction}" enctype="multipart/form-data" data-max-bytes="${model.maxUploadBytes}" data-max-words="${limit}">
<div class="field">
<label for="image">Photo (required)</label>
<span class="hint" id="image-hint">The photo as the camera wrote it: JPEG or HEIF, or with Content Credentials PNG, WebP, AVIF, TIFF or GIF. Up to ${limit}.</span>
<input type="file" id="image" name="image" required aria-describedby="image-hint" accept="image/*,.heic,.heif">
</div>
<div class="field">
<label for="raw">Camera RAW file (recommended)</label>
<span class="hint" id="raw-hint">The RAW the camera recorded with the photo (${supportedRawFormats}): with it the service can check that the photo is a faithful rendering of the sensor data. Up to ${limit}.</span>
<input type="file" id="raw" name="raw" aria-describedby="raw-hint" accept="${rawExtensions.map((e) => `.${e}`).join(',')}">
</div>
${capture
  ? html`<div class="field">
<label for="attestation_id">Attestation id (required)</label>
<span class="hint" id="attestation-hint">From your capture app, for exactly these files (see above).</span>
<input type="text" id="attestation_id" name="attestation_id" required aria-describedby="attestation-hint" autocomplete="off" autocapitalize="off" spellcheck="false" pattern="[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}" title="The attestation id your capture app shows: 36 characters, hex digits and hyphens">
</div>`
  : html``}
<button type="submit">Send for verification</button>
<div id="upload" class="upload" hidden>
<label for="upload-progress">Uploading</label>
<progress id="upload-progress" max="100" value="0"></progress>
<p id="upload-words" class="muted" role="status" aria-live="polite"></p>
</div>
</form>
<p class="muted">Your files go to ${isolated(model.requesterName)}'s account on ${model.serviceName} and are verified there. You do not need an account.</p>
</section>`;
}

const steps: { key: 'received' | 'analysing' | 'done'; label: string }[] = [
  { key: 'received', label: 'Received' },
  { key: 'analysing', label: 'Being analysed' },
  { key: 'done', label: 'Done' },
];

const stepOf = (status: SubmissionStatus) => (status === 'pending' || status === 'queued' ? 0 : status === 'in_progress' ? 1 : 2);
const isFinal = (status: SubmissionStatus) => status === 'completed' || status === 'failed';

/** `requestUrl`: the request's page (its form posts to the same URL). */
function outcome(submission: ProviderSubmission, requestUrl: string): Html {
  if (submission.status === 'failed') {
    return html`<p class="level level-failed" data-outcome="failed">Not completed</p>
<p>The verification of your files could not be completed. The requester can see why; you may <a href="${requestUrl}">send the photo again</a> while the request accepts photos.</p>`;
  }
  if (submission.reportUrl) {
    return html`<p data-outcome="report">The verification is complete. The requester shares its report with you: <a href="${submission.reportUrl}">open the verification report</a>.</p>`;
  }
  if (submission.result) {
    const words = levelWords[submission.result.assuranceLevel];
    return html`<p class="level level-${submission.result.assuranceLevel}" data-outcome="${submission.result.assuranceLevel}">${words.label}</p>
<p>${submission.result.pair ? words.pair : words.imageOnly}</p>
<p class="muted">The full report goes to the requester.</p>`;
  }
  return html`<p data-outcome="complete">The verification is complete. The requester has the report.</p>`;
}

function progressSection(submission: ProviderSubmission, requestUrl: string): Html {
  const at = stepOf(submission.status);
  const final = isFinal(submission.status);
  return html`<section class="card" id="progress" aria-labelledby="progress-title" data-status="${submission.status}"${final ? html`` : html` data-status-url="${submission.statusUrl}"`}>
<h2 id="progress-title">${submission.status === 'failed' ? 'The verification stopped' : final ? 'The verification is complete' : 'Your photo is being verified'}</h2>
<ol class="steps">
${steps.map((step, i) => html`<li${i < at || (final && i === at) ? html` class="done"` : html``}${i === at ? html` aria-current="step"` : html``}>${step.label}</li>`)}
</ol>
${final
  ? outcome(submission, requestUrl)
  : html`<p role="status">${at === 0 ? 'Your files were received and are waiting to be analysed.' : 'The analyses are running. This usually takes under a minute.'} This page updates by itself.</p>
<p><a href="${submission.pageUrl}">Check again</a></p>`}
</section>`;
}

/** The page's frame inside the shell, as the report page's. */
function page(model: ProviderPageModel, nonce: string, title: string, body: Html, script: boolean): string {
  return htmlDocument({
    title: `${title} · ${model.serviceName}`,
    nonce,
    style: STYLE,
    icon: ICON,
    private: true,
    body: html`<div class="page">
<header class="site"><span class="brand">${model.serviceName}</span><span class="note">Photo request</span></header>
<main>
${body}
</main>
<footer>This page shows what the requester asked for. Nothing else of their account is shown, and no other submission.</footer>
</div>`,
    ...(script ? { script: html`${UPLOAD_FORM_SCRIPT}${PROGRESS_SCRIPT}` } : {}),
  });
}

/** The provider page of a request: its state, what is asked, and the form or the submission's progress. */
export function renderProviderPage(model: ProviderPageModel, nonce: string): string {
  const heading = html`<h1><bdi data-field="subject">${model.subject}</bdi></h1>
<p class="subtitle">A photo request from <bdi data-field="requester">${model.requesterName}</bdi></p>`;
  if (model.submission) {
    const final = isFinal(model.submission.status);
    return page(model, nonce, `Your submission: ${model.subject}`, html`${heading}${progressSection(model.submission, model.formAction)}${requestSection(model)}`, !final);
  }
  if (model.state !== 'open') {
    const state = model.state;
    return page(model, nonce, `${closedWords[state].title}: ${model.subject}`, html`${heading}${noticeSection({ ...model, state })}${requestSection(model)}`, false);
  }
  const body = html`${heading}${requestSection(model)}${model.mode === 'capture' ? captureHelp(model.capture) : html``}${uploadForm(model)}`;
  return page(model, nonce, `Photo request: ${model.subject}`, body, true);
}

const errorTitles: Record<number, string> = {
  404: 'This link does not open a request',
  413: 'A file is too large',
  429: 'Too many uploads',
};

/**
 * The page for an error on a provider route: a refused upload (its reason in `#form-error`,
 * which the page's script shows above the form when it sent the files) or an unknown link.
 * Nothing of the request is shown: the error mapping gives only the status and the words.
 * After a native (no-script) POST the document's URL is the request's, so `href=""` leads back to it.
 */
export function renderProviderErrorPage(input: { status: number; message: string; suggestion?: string; serviceName: string; backToRequest: boolean }, nonce: string): string {
  const title = errorTitles[input.status] ?? (input.status >= 500 ? 'Something went wrong' : 'Your upload was not accepted');
  const words = html`${input.message}${input.suggestion ? html` ${input.suggestion}` : html``}`;
  return htmlDocument({
    title: `${title} · ${input.serviceName}`,
    nonce,
    style: STYLE,
    icon: ICON,
    private: true,
    body: html`<div class="page">
<header class="site"><span class="brand">${input.serviceName}</span><span class="note">Photo request</span></header>
<main>
<section class="card notice" aria-labelledby="error-title">
<h1 id="error-title">${title}</h1>
<p id="form-error" class="form-error">${words}</p>
${input.backToRequest ? html`<p><a href="">Back to the request</a></p>` : html``}
<p class="muted">Error ${input.status}</p>
</section>
</main>
</div>`,
  });
}
