import { supportedRawFormats } from '../analysis/raw/format-detect.js';
import { rawExtensions } from '../analysis/types.js';
import { html, type Html } from '../core/text/html.js';
import { UPLOAD_FORM_SCRIPT, UPLOAD_PARTS } from '../features/verifications/index.js';
import { appPage, type Viewer } from './shell.js';
import { CSRF_FIELD } from './session.js';
import { planNames } from './account-pages.js';

/**
 * The upload page (docs/webapp.md, "Upload"): a native multipart form (photo, optional camera RAW,
 * optional capture attestation id) that works without JavaScript, then the quota left this month
 * in plain words (the form first: on a phone the files are what the page is for). The page's
 * one script (the verifications feature's UPLOAD_FORM_SCRIPT, also the provider page's) adds drag
 * and drop and a progress bar; the form is the same.
 */

type UploadPart = (typeof UPLOAD_PARTS)['fileFields' | 'textFields'][number];

/** The form's fields by the API's part names: the labels the page shows, and the names its refusals use. */
export const UPLOAD_LABELS: Record<UploadPart, string> = { image: 'Photo', raw: 'Camera RAW file', attestation_id: 'Capture attestation id' };

const lowerFirst = (text: string) => `${text.charAt(0).toLowerCase()}${text.slice(1)}`;
const upperFirst = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

/**
 * A sentence of the API's refusal (the use case's message or suggestion) in the page's words: the
 * use case names the multipart parts ("The raw part is…", 'in "raw"', "attestation_id is…"); the
 * page names them by the labels of its fields. A file part's bare name is an ordinary word
 * ("image"), so only its quoted and "The … part" forms are the part's; a text field's name is an
 * identifier wherever it stands.
 */
export function inPageWords(sentence: string): string {
  let words = sentence;
  for (const part of UPLOAD_PARTS.fileFields) words = words.replaceAll(`The ${part} part`, `The ${lowerFirst(UPLOAD_LABELS[part])}`);
  for (const part of [...UPLOAD_PARTS.fileFields, ...UPLOAD_PARTS.textFields]) words = words.replaceAll(`"${part}"`, `"${UPLOAD_LABELS[part]}"`);
  for (const part of UPLOAD_PARTS.textFields) words = words.replace(new RegExp(`\\b${part}\\b`, 'g'), lowerFirst(UPLOAD_LABELS[part]));
  return upperFirst(words);
}

/** What the usage use case (GET /v1/accounts/{id}/usage) answers, as far as the page says it. */
export interface QuotaView {
  month: string;
  plan: 'free' | 'basic' | 'professional' | 'enterprise';
  currency: 'EUR' | 'USD';
  included: number | null;
  included_used: number;
  included_remaining: number | null;
  overage_price: number;
  monthly_budget_cap: number | null;
  budget_used: number;
  budget_remaining: number;
}



const cents = (amount: number) => Math.round(amount * 100);
const money = (amount: number, currency: QuotaView['currency']) => new Intl.NumberFormat('en', { style: 'currency', currency }).format(amount);
const monthWords = (month: string) => new Date(`${month}-01T00:00:00Z`).toLocaleDateString('en', { month: 'long', year: 'numeric', timeZone: 'UTC' });

/**
 * What the next photo + RAW pair would be, read from the usage view as the usage decider decides
 * it (in cents): included while some are left (or by contract), else extra at the overage price
 * while the budget cap leaves that much (never on Free), else refused.
 */
export function nextPair(quota: QuotaView): 'included' | 'extra' | 'refused' {
  if (quota.included === null || (quota.included_remaining ?? 0) > 0) return 'included';
  if (quota.plan !== 'free' && cents(quota.budget_remaining) >= cents(quota.overage_price)) return 'extra';
  return 'refused';
}

function quotaSection(quota: QuotaView): Html {
  const price = money(quota.overage_price, quota.currency);
  const next = nextPair(quota);
  const pairs =
    quota.included === null
      ? html`Photo + RAW pairs are included by your contract: <strong data-quota="used">${quota.included_used}</strong> verified this month.`
      : html`<strong data-quota="used">${quota.included_used}</strong> of <strong data-quota="included">${quota.included}</strong> included photo + RAW pairs used, <strong data-quota="left">${quota.included_remaining ?? 0}</strong> left.`;
  const cap = quota.monthly_budget_cap;
  const beyond =
    quota.included === null
      ? html``
      : quota.plan === 'free'
        ? html`The Free plan has no extra pairs: once the ${quota.included} are used, a pair is refused until next month (or until an admin upgrades the plan).`
        : cap === null || cents(cap) === 0
          ? html`Beyond the included pairs a pair is refused: no monthly budget cap is set for extra pairs (an admin can set one, at ${price} a pair).`
          : html`Beyond the included pairs each one costs ${price}, as long as the monthly budget cap of ${money(cap, quota.currency)} covers it: ${money(quota.budget_remaining, quota.currency)} of it is left.`;
  const nextWords: Record<typeof next, Html> = {
    included: html`Your next pair is included in your plan.`,
    extra: html`Your next pair will cost ${price} (extra usage).`,
    refused: html`Your next pair would be refused: ${quota.plan === 'free' ? html`the plan’s included pairs are used.` : html`the included pairs are used and the budget cap does not cover one more.`} An image alone can still be uploaded.`,
  };
  return html`<section class="card quota" id="quota" aria-labelledby="quota-title" data-next-pair="${next}">
<h2 id="quota-title">Your quota for ${monthWords(quota.month)}</h2>
<p class="muted">${planNames[quota.plan]} plan</p>
<p>${pairs}</p>
${beyond.value ? html`<p>${beyond}</p>` : html``}
<p class="next next-${next}">${nextWords[next]}</p>
<p class="muted">An image alone is free: it never counts against the quota.</p>
</section>`;
}

export interface UploadPageInput {
  serviceName: string;
  nonce: string;
  appPath: string;
  viewer: Viewer;
  quota: QuotaView;
  maxUploadBytes: number;
  /** A refused upload, said above the form. */
  error?: { message: string; suggestion?: string };
  /** The capture attestation id a refused form was sent with, kept in its field. */
  attestationId?: string;
}

export function sizeWords(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  if (mb >= 1) return `${Number.isInteger(mb) ? mb : mb.toFixed(1)} MB`;
  return `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

export function renderUploadPage(input: UploadPageInput): string {
  const limit = sizeWords(input.maxUploadBytes);
  const rawAccept = rawExtensions.map((e) => `.${e}`).join(',');
  return appPage({
    ...input,
    title: 'Upload',
    current: '/upload',
    body: html`<main>
<h1>Upload</h1>
<p class="subtitle">Verify a photo: with the camera RAW recorded with it (a pair), or the image alone.</p>
<section class="card" aria-labelledby="upload-title">
<h2 id="upload-title">Your files</h2>
<p id="form-error" class="alert" role="alert" tabindex="-1"${input.error ? html`` : html` hidden`}>${input.error ? html`${input.error.message}${input.error.suggestion ? html` ${input.error.suggestion}` : html``}` : html``}</p>
<form id="upload-form" method="post" action="${input.appPath}/upload" enctype="multipart/form-data" data-max-bytes="${input.maxUploadBytes}" data-max-words="${limit}" data-progress-sizes data-raw-extensions="${rawExtensions.join(' ')}">
<input type="hidden" name="${CSRF_FIELD}" value="${input.viewer.csrfToken}">
<div id="drop-zone" class="drop-zone">
<p id="drop-hint" class="drop-hint" hidden>Drop the photo and its RAW file anywhere on this page, or choose them below.</p>
<label for="image">${UPLOAD_LABELS.image} (required)</label>
<p class="hint" id="image-hint">Pair: JPEG or HEIF. Image alone: JPEG, PNG, WebP, HEIF, AVIF, TIFF or GIF. Up to ${limit}.</p>
<input type="file" id="image" name="image" required aria-describedby="image-hint" accept="image/*,.heic,.heif">
<label for="raw">${UPLOAD_LABELS.raw} (optional)</label>
<p class="hint" id="raw-hint">The RAW the camera recorded with the photo: with it the service checks that the photo is a faithful rendering of the sensor data; it counts against the quota. Up to ${limit}.</p>
<input type="file" id="raw" name="raw" aria-describedby="raw-hint raw-formats" accept="${rawAccept}">
<p class="hint" id="raw-formats">Supported: ${supportedRawFormats}.</p>
<p id="drop-words" class="chosen" role="status" aria-live="polite"></p>
</div>
<label for="attestation_id">${UPLOAD_LABELS.attestation_id} (optional)</label>
<p class="hint" id="attestation-hint">From a capture app that signed the photo on the device (POST /capture/attestation): the service checks the files are the ones it signed and adds its capture facts. Used once.</p>
<input type="text" id="attestation_id" name="attestation_id" aria-describedby="attestation-hint" autocomplete="off" spellcheck="false" inputmode="text"${input.attestationId ? html` value="${input.attestationId}"` : html``}>
<button class="primary" type="submit">Upload and verify</button>
<div id="upload" class="upload" hidden>
<label for="upload-progress">Sending the files</label>
<progress id="upload-progress" max="100" value="0"></progress>
<p id="upload-words" class="muted" role="status" aria-live="polite"></p>
</div>
</form>
</section>
${quotaSection(input.quota)}
</main>
<script nonce="${input.nonce}">${UPLOAD_FORM_SCRIPT}</script>`,
  });
}
