import type { AssuranceLevel, Verdict, VerdictReason } from '../../analysis/types.js';
import { contentSecurityPolicy, html, privatePageHeaders, type Html } from '../../core/html.js';
import type { SharedFileKind, SharedReport } from './report.js';

/**
 * The public report page (docs/decisions.md, "The report page"): what a shared verification
 * shows a journalist or a contest judge without an account. Pure rendering of a SharedReport,
 * which carries no account, user or internal ids, no e-mail addresses and no blob keys; every
 * value goes through `html`, which escapes it. One stylesheet and one small script, both inline
 * under the response's CSP nonce; the script only drives the flicker comparison, everything
 * else is in the markup.
 */

export interface ReportPageInput {
  report: SharedReport;
  serviceName: string;
  /** The URL of one of the report's files (same origin, behind the share's access check). */
  fileUrl: (kind: SharedFileKind) => string;
  /** The response's CSP nonce for the inline style and script. */
  nonce: string;
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

// ---------------------------------------------------------------------------------------------
// Words (docs/verdicts.md, spec 1 and src/analysis/grading.ts)

export const levelWords: Record<AssuranceLevel, { label: string; pair: string; imageOnly: string }> = {
  verified: {
    label: 'Verified',
    pair: 'The camera RAW file holds real sensor data and the photo is a faithful rendering of it: the capture is verified.',
    imageOnly: 'The capture is verified.',
  },
  provisional: {
    label: 'Provisional',
    pair: 'The photo matches the camera RAW file, but the RAW could not be confirmed as the camera’s original sensor data (for example, a converter wrote it). No badge is issued.',
    imageOnly: 'The photo matches, but its source could not be confirmed as original sensor data.',
  },
  provenance: {
    label: 'Provenance verified',
    pair: 'Trusted Content Credentials record the capture.',
    imageOnly: 'The file carries valid Content Credentials, signed by a trusted signer, that record a capture by a camera.',
  },
  unrated: {
    label: 'Unrated',
    pair: 'The evidence cannot decide either way. This is not a judgement against the photo.',
    imageOnly: 'The file’s credentials do not establish how it was captured. This is not a judgement against it; an AI declaration, if any, is stated in the verdict.',
  },
  flagged: {
    label: 'Flagged',
    pair: 'The evidence contradicts the photo: it does not correspond to the camera RAW file, or the RAW is not real sensor data. The reason and the analyses below say which.',
    imageOnly: 'The image or its Content Credentials were changed after they were signed.',
  },
};

export const verdictWords: Record<Verdict, { label: string; meaning: string }> = {
  ai_declared: {
    label: 'AI-generated (declared)',
    meaning: 'Content Credentials from a trusted signer declare that the image was generated or edited with generative AI.',
  },
  self_declared_ai: {
    label: 'AI-generated (self-declared)',
    meaning:
      'The file declares that it was generated or edited with generative AI, but no trusted signer stands behind the declaration. Nobody declares a genuine photo to be generated, so the declaration counts whoever made it.',
  },
  modified_after_signing: {
    label: 'Modified after signing',
    meaning: 'The image or its Content Credentials changed after they were signed: nothing in the credentials can be attributed to the signer.',
  },
  provenance_verified: {
    label: 'Provenance verified',
    meaning: 'Trusted Content Credentials record a capture by a camera, with no edits outside the permitted list.',
  },
  unrated: {
    label: 'Unrated',
    meaning: 'The evidence does not decide how the image was made.',
  },
};

export const reasonWords: Record<VerdictReason, string> = {
  watermark_detected: 'An invisible AI watermark was detected.',
  c2pa_generative_declared: 'The Content Credentials declare generative AI, and their signer is trusted.',
  tampered: 'The content or the signed manifest changed after signing: a hash no longer matches.',
  invalid_signature: 'A signature or signing certificate is invalid or revoked, or uses an unsupported algorithm.',
  c2pa_trusted_capture: 'Trusted Content Credentials record a camera capture.',
  untrusted_signer_generative: 'Generative AI is declared in the Content Credentials, but the signer is not on the trust list or the credential cannot be relied on.',
  iptc_digital_source_type: 'The file’s own (unsigned) metadata declares generative AI as its digital source type.',
  generator_metadata: 'The file’s own (unsigned) metadata names an AI image generator.',
  container_signature: 'A camera maker’s container signature was found.',
  untrusted_signer: 'The Content Credentials are valid, but their signer is not on the trust list.',
  trust_unverified: 'The Content Credentials are valid, but there was no trust list to check the signer against.',
  no_capture_claim: 'The Content Credentials are trusted but do not claim a camera capture.',
  no_trusted_timestamp: 'The signing certificate has expired and no trusted timestamp places the signature within its validity.',
  unlisted_actions_present: 'A trusted capture was followed by edits outside the permitted list.',
  computational_capture_only: 'Trusted Content Credentials record a computational capture (for example a phone’s multi-frame processing).',
  unrated_indeterminate: 'The evidence is indeterminate.',
  unrated_reviewed_clean: 'A person reviewed the file and found nothing either way.',
  unrated_no_evidence: 'The file carries no Content Credentials and declares nothing about how it was made.',
};

const trustWords: Record<string, string> = {
  trusted: 'Trusted: on the service’s trust list',
  legacy: 'Only on the legacy (interim) trust list: treated as untrusted',
  untrusted: 'Not on the service’s trust list',
  unchecked: 'Not checked: no trust list configured',
};

const validationWords: Record<string, string> = {
  Trusted: 'Valid, and the signer is trusted',
  Valid: 'Valid: signature and hashes check out',
  Invalid: 'Invalid',
};

const analysisWords: Record<string, { name: string; question: string }> = {
  raw_integrity: { name: 'RAW integrity', question: 'Does the RAW file hold real sensor data (noise, colour filter pattern, black level)?' },
  ssim: { name: 'Structural similarity (SSIM)', question: 'Does the photo show the same structures as the RAW, region by region?' },
  perceptual_hash: { name: 'Perceptual hash', question: 'Do the photo and the RAW look alike as a whole?' },
  color_histogram: { name: 'Colour histogram', question: 'Are the colours distributed alike, once a global colour transform is allowed for?' },
  processing_chain: { name: 'Processing chain', question: 'Can one global colour transform and tone curve turn the RAW into the photo, with no local edits?' },
  exif: { name: 'EXIF comparison (advisory)', question: 'Do camera, lens, exposure and capture time agree between the RAW and the photo?' },
  sensor_pattern: { name: 'Sensor noise pattern', question: 'Does the photo carry the noise pattern of this RAW’s sensor?' },
  recapture: { name: 'Recapture detection', question: 'Was a screen or a print photographed (moiré, screen grid, halftone)?' },
  c2pa_credentials: { name: 'Content Credentials (C2PA)', question: 'Are the file’s Content Credentials valid and trusted, and what do they declare?' },
};

const sourceTypeWords: Record<string, string> = {
  trainedAlgorithmicMedia: 'generated by AI (trained algorithmic media)',
  compositeWithTrainedAlgorithmicMedia: 'composite including AI-generated content',
  algorithmicMedia: 'algorithmic media',
  compositeSynthetic: 'composite including synthetic content',
  digitalCapture: 'digital capture by a camera',
  computationalCapture: 'computational capture',
  composite: 'composite',
  digitalArt: 'digital art',
  minorHumanEdits: 'minor human edits',
};

const declarationSourceWords: Record<string, string> = {
  'c2pa.action': 'Content Credentials: an action’s digital source type',
  'c2pa.assertion': 'Content Credentials: an assertion',
  'c2pa.ingredient': 'Content Credentials of an ingredient',
  'c2pa.action_description': 'Content Credentials: an action’s description',
  'c2pa.software_agent': 'Content Credentials: the software that acted',
  'c2pa.claim_generator': 'Content Credentials: the claim generator',
  'c2pa.generator_assertion': 'Content Credentials: a generative-AI assertion',
  xmp: 'XMP metadata (unsigned)',
  xmp_software_agent: 'XMP history (unsigned)',
  png_text: 'PNG text chunk (unsigned)',
  exif_software: 'EXIF Software (unsigned)',
};

const DISPLAYABLE = new Set(['jpeg', 'png', 'webp', 'gif', 'avif']);

// ---------------------------------------------------------------------------------------------
// Helpers

type Dict = Record<string, unknown>;
const dict = (value: unknown): Dict => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Dict) : {});
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const str = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value : undefined);
const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const shortSource = (value: string) => value.replace(/^https?:\/\/cv\.iptc\.org\/newscodes\/digitalsourcetype\//, '');

const dateFormat = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', dateStyle: 'long', timeStyle: 'short' });

function time(iso: string): Html {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? html`${iso}` : html`<time datetime="${date.toISOString()}">${dateFormat.format(date)} UTC</time>`;
}

function fact(term: string, value: unknown): Html {
  return value === undefined || value === null || value === '' ? html`` : html`<dt>${term}</dt><dd>${value}</dd>`;
}

function outcome(result: boolean | null): Html {
  return result === true
    ? html`<span class="outcome pass"><span aria-hidden="true">✓ </span>Pass</span>`
    : result === false
      ? html`<span class="outcome fail"><span aria-hidden="true">✗ </span>Fail</span>`
      : html`<span class="outcome open"><span aria-hidden="true">– </span>Not decided</span>`;
}

/** An analysis's note as a sentence: capital first letter, closing full stop. */
function sentence(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const trimmed = text.trim();
  return `${trimmed.charAt(0).toUpperCase()}${trimmed.slice(1)}${/[.!?]$/.test(trimmed) ? '' : '.'}`;
}

const fixed = (value: number | undefined, digits = 3) => (value === undefined ? undefined : value.toFixed(digits));

/** One line of what an analysis measured, in words (details are the analysis's own; see docs/analysis.md). */
function measurement(analysis: string, details: Dict): string | undefined {
  const note = str(details.note) ?? str(details.summary);
  switch (analysis) {
    case 'raw_integrity':
      return note;
    case 'ssim': {
      const regions = list(details.differing_regions).length;
      const ssim = fixed(num(details.ssim));
      if (ssim === undefined) return note;
      return `Mean SSIM ${ssim} over ${num(details.blocks_compared) ?? '?'} blocks; ${regions === 0 ? 'no region differs' : `${regions} region${regions === 1 ? '' : 's'} differ${regions === 1 ? 's' : ''}`}.`;
    }
    case 'perceptual_hash': {
      const distance = num(details.hamming_distance);
      return distance === undefined ? note : `${distance} of 63 bits differ (similarity ${fixed(num(details.similarity))}).`;
    }
    case 'color_histogram': {
      const similarity = fixed(num(details.similarity));
      return similarity === undefined ? note : `Histogram similarity ${similarity}.`;
    }
    case 'processing_chain': {
      const regions = list(details.local_edit_regions).length;
      if (details.monotone === undefined) return note;
      return `${details.monotone === true ? 'Tone curve monotone' : 'Tone curve not monotone'}; ${regions === 0 ? 'no local edit found' : `${regions} locally edited region${regions === 1 ? '' : 's'}`}.`;
    }
    case 'exif':
      return note ?? (list(details.mismatched_fields).length === 0 ? 'The fields compared agree.' : undefined);
    case 'sensor_pattern': {
      const correlation = fixed(num(details.residual_correlation));
      return [sentence(note), correlation === undefined ? undefined : `Noise residual correlation ${correlation}.`].filter(Boolean).join(' ') || undefined;
    }
    case 'recapture': {
      const peaks = num(dict(details.image).periodic_peaks);
      return peaks === undefined ? note : peaks === 0 ? 'No periodic pattern found in the photo.' : `${peaks} periodic peak${peaks === 1 ? '' : 's'} in the photo, not covering the frame as a screen or print would.`;
    }
    case 'c2pa_credentials': {
      const state = str(details.validation_state);
      return state ? `Credentials: ${validationWords[state] ?? state}.` : 'No readable Content Credentials.';
    }
    default:
      return note;
  }
}

/** The EXIF fields compared, RAW against photo. */
function exifTable(details: Dict): Html {
  const rows = list(details.compared).map(dict).filter((r) => str(r.field));
  if (rows.length === 0) return html``;
  return html`<details class="more"><summary>Fields compared</summary>
<div class="table-wrap"><table><thead><tr><th scope="col">Field</th><th scope="col">RAW</th><th scope="col">Photo</th><th scope="col">Agree</th></tr></thead><tbody>
${rows.map((r) => html`<tr><th scope="row">${String(r.field).replace(/_/g, ' ')}</th><td>${display(r.raw)}</td><td>${display(r.image)}</td><td>${r.match === true ? 'yes' : r.match === false ? 'no' : '–'}</td></tr>`)}
</tbody></table></div></details>`;
}

const display = (value: unknown): string => (value === undefined || value === null ? '–' : typeof value === 'object' ? JSON.stringify(value) : String(value));

function analysesSection(report: SharedReport): Html {
  if (report.results.length === 0) return html``;
  // The order of the pipeline (the RAW first, then the pixel comparisons), whatever order they were stored in.
  const order = Object.keys(analysisWords);
  const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
  const results = [...report.results].sort((a, b) => rank(a.analysis) - rank(b.analysis));
  return html`<section class="card" aria-labelledby="analyses-title">
<h2 id="analyses-title">Analyses</h2>
<ul class="analyses">
${results.map((r) => {
  const words = analysisWords[r.analysis] ?? { name: r.analysis.replace(/_/g, ' '), question: '' };
  const line = sentence(measurement(r.analysis, r.details));
  return html`<li>
<div class="analysis-head"><h3>${words.name}</h3>${outcome(r.result)}</div>
${words.question ? html`<p class="question">${words.question}</p>` : html``}
${line ? html`<p class="measured">${line}</p>` : html``}
${r.analysis === 'exif' ? exifTable(r.details) : html``}
</li>`;
})}
</ul>
</section>`;
}

function verdictSection(report: SharedReport): Html {
  const level = report.assurance_level;
  const mode = report.verification_mode;
  if (report.status === 'failed') {
    return html`<section class="card verdict" aria-labelledby="verdict-title">
<h2 id="verdict-title" class="visually-hidden">Result</h2>
<p class="level level-flagged">Not completed</p>
<p class="meaning">The verification could not be completed${report.failure_reason ? html`: ${report.failure_reason}` : '.'}</p>
</section>`;
  }
  if (!level) {
    return html`<section class="card verdict" aria-labelledby="verdict-title">
<h2 id="verdict-title" class="visually-hidden">Result</h2>
<p class="level level-unrated">In progress</p>
<p class="meaning">The verification is still running. Reload this page in a minute to see the result.</p>
</section>`;
  }
  const words = levelWords[level];
  const verdict = report.verdict && mode === 'image_only' ? verdictWords[report.verdict] : undefined;
  const reason = report.verdict_reason && mode === 'image_only' ? reasonWords[report.verdict_reason] : undefined;
  return html`<section class="card verdict" aria-labelledby="verdict-title">
<h2 id="verdict-title">Assurance level</h2>
<p class="level level-${level}" data-level="${level}">${words.label}</p>
<p class="meaning">${mode === 'raw_pair' ? words.pair : words.imageOnly}</p>
${verdict
  ? html`<h2>Verdict</h2>
<p class="verdict-label" data-verdict="${report.verdict}">${verdict.label}</p>
<p class="meaning">${verdict.meaning}</p>
${reason ? html`<p class="reason"><strong>Why:</strong> ${reason}</p>` : html``}`
  : report.assurance_reason
    ? html`<p class="reason"><strong>Why:</strong> ${report.assurance_reason}</p>`
    : html``}
</section>`;
}

function photoFigure(report: SharedReport, fileUrl: ReportPageInput['fileUrl']): Html {
  const format = str(report.image_metadata.format) ?? '';
  const showOriginal = report.files.image && DISPLAYABLE.has(format);
  const src = showOriginal ? fileUrl('image') : report.files.thumbnail ? fileUrl('thumbnail') : undefined;
  const width = num(report.image_metadata.width);
  const height = num(report.image_metadata.height);
  const size = showOriginal && width && height ? html` width="${width}" height="${height}"` : html``;
  return html`<figure class="card photo">
${src ? html`<img src="${src}" alt="The photo that was verified: ${report.name}"${size}>` : html`<p class="muted">No preview of this file can be shown in a browser.</p>`}
<figcaption><bdi>${report.name}</bdi>${!showOriginal && src ? html` (a preview: browsers cannot show ${format.toUpperCase()})` : ''}
${report.files.image ? html` · <a href="${fileUrl('image')}">Open the full image</a>` : ''}</figcaption>
</figure>`;
}

function factsSection(report: SharedReport): Html {
  const raw = report.raw_metadata;
  const camera = [str(raw.make), str(raw.model)].filter(Boolean).join(' ');
  const cameraName = camera && str(raw.model)?.toLowerCase().startsWith(String(raw.make).toLowerCase()) ? str(raw.model) : camera;
  return html`<section class="card facts-card" aria-labelledby="facts-title">
<h2 id="facts-title">About this verification</h2>
<dl class="facts">
${fact('Verification date', time(report.created_at))}
${fact('Method', report.verification_mode === 'raw_pair' ? 'Photo compared with the camera’s RAW file' : 'Content Credentials (C2PA) carried by the file')}
${fact('Processing region', report.processing_region ? `${report.processing_region} (European Union)` : undefined)}
${fact('Reference', report.short_code ? `REF: ${report.short_code}` : undefined)}
${report.verification_mode === 'raw_pair' ? fact('Camera (RAW)', cameraName || undefined) : html``}
${report.verification_mode === 'raw_pair' ? fact('Lens (RAW)', str(raw.lens)) : html``}
${report.verification_mode === 'raw_pair' && str(raw.captureTime) ? fact('Captured (RAW clock)', String(raw.captureTime).replace('T', ' ')) : html``}
${report.capture
  ? fact('Capture attestation', `${report.capture.attestation_validated ? 'validated' : 'not validated'}${report.capture.security_score === null ? '' : `, security score ${report.capture.security_score}`}`)
  : html``}
</dl>
</section>`;
}

function hashesSection(report: SharedReport): Html {
  const hex = (hash: string) => hash.replace(/^sha256:/, '');
  return html`<section class="card" aria-labelledby="hashes-title">
<h2 id="hashes-title">File hashes (SHA-256)</h2>
<p class="muted">Of the files as they were submitted: compute the SHA-256 of your copy and compare.${report.files.badge ? ' The image shown above carries the service’s Content Credentials, so its bytes differ.' : ''}</p>
<dl class="facts hashes">
${fact('Photo', html`<code class="hash" data-hash="image">${hex(report.image_photo_hash)}</code>`)}
${report.raw_photo_hash ? fact('RAW file', html`<code class="hash" data-hash="raw">${hex(report.raw_photo_hash)}</code>`) : html``}
</dl>
</section>`;
}

function heatmapSection(report: SharedReport, fileUrl: ReportPageInput['fileUrl']): Html {
  if (!report.files.heatmap) return html``;
  const [width, height] = workingSize(report);
  return html`<section class="card" aria-labelledby="heatmap-title">
<h2 id="heatmap-title">Where the photo differs from the RAW</h2>
<figure>
<img class="heatmap" src="${fileUrl('heatmap')}" alt="SSIM difference heatmap: black where the photo matches the RAW, blue where it differs"${width ? html` width="${width}" height="${height}"` : ''}>
<figcaption>The SSIM difference heatmap: the photo against the RAW, aligned and tone-matched. Black means identical, brighter blue a larger difference. Uniform faint blue is noise and compression; a bright, shaped area is a change.</figcaption>
</figure>
</section>`;
}

function workingSize(report: SharedReport): [number | undefined, number | undefined] {
  const size = list(report.results.find((r) => r.analysis === 'ssim')?.details.working_size);
  return [num(size[0]), num(size[1])];
}

/** The registration the comparisons ran on, in words (from the SSIM analysis's details). */
function alignmentOf(report: SharedReport): string | undefined {
  const registration = dict(report.results.find((r) => r.analysis === 'ssim')?.details.registration);
  const score = num(registration.score);
  if (score === undefined) return undefined;
  const scale = num(registration.scale);
  const rotation = num(registration.rotationDeg);
  return [
    `Alignment found: ${scale === undefined ? '' : `scale ${scale.toFixed(3)}, `}${rotation === undefined ? '' : `rotation ${rotation.toFixed(2)}°, `}${registration.flipped === true ? 'mirrored, ' : ''}match score ${score.toFixed(3)} (1 is a perfect match).`,
    'When the two do not show the same scene, no alignment fits and the RAW appears shifted, turned or mirrored.',
  ].join(' ');
}

function flickerSection(report: SharedReport, fileUrl: ReportPageInput['fileUrl']): Html {
  if (!report.files.raw_reference || !report.files.image) return html``;
  const [width, height] = workingSize(report);
  const size = width ? html` width="${width}" height="${height}"` : html``;
  const alignment = alignmentOf(report);
  return html`<section class="card" id="flicker" data-showing="photo" aria-labelledby="flicker-title">
<h2 id="flicker-title">Photo and RAW, compared</h2>
<p>The photo, and the RAW file as this service rendered it and aligned it to the photo. The RAW is rendered neutrally, so colours and brightness differ; shapes should not.</p>
${alignment ? html`<p class="muted">${alignment}</p>` : html``}
<div class="flicker-controls" hidden>
<p class="flicker-help">Flick between the two: anything added, removed or moved jumps out.</p>
<button type="button" id="flicker-toggle" aria-pressed="false" aria-controls="flicker-stack">Show the RAW</button>
<button type="button" id="flicker-run" aria-pressed="false" aria-controls="flicker-stack">Flicker</button>
<p id="flicker-status" role="status">Showing: the photo</p>
</div>
<div class="compare" id="flicker-stack">
<figure data-layer="photo"><img src="${fileUrl('image')}" alt="The photo"${size}><figcaption>The photo</figcaption></figure>
<figure data-layer="raw"><img src="${fileUrl('raw_reference')}" alt="The RAW file, rendered by the service and aligned to the photo"${size}><figcaption>The RAW, rendered and aligned</figcaption></figure>
</div>
</section>`;
}

function credentialsSection(report: SharedReport): Html {
  if (report.verification_mode !== 'image_only') return html``;
  const evidence = dict(report.evidence_report);
  const signer = dict(evidence.signer);
  const timestamp = dict(evidence.timestamp);
  const actions = list(evidence.actions).map(dict);
  const declarations = groupDeclarations(list(evidence.ai_declarations).map(dict));
  const ingredients = list(evidence.ingredients).map(dict);
  const hasManifest = evidence.outcome === 'manifest';
  return html`<section class="card" aria-labelledby="credentials-title">
<h2 id="credentials-title">Content Credentials</h2>
${hasManifest
  ? html`<dl class="facts">
${fact('Signed by', str(signer.common_name) ?? 'unnamed signer')}
${fact('Certificate issuer', str(signer.issuer))}
${fact('Trust', trustWords[String(signer.trust)] ?? str(signer.trust))}
${fact('Validation', validationWords[String(evidence.validation_state)] ?? str(evidence.validation_state))}
${fact('Signed at', str(timestamp.time) ? html`${time(String(timestamp.time))}${timestamp.trusted === true ? ' (trusted timestamp)' : ' (timestamp not trusted)'}` : undefined)}
${fact('Made with', str(evidence.claim_generator))}
</dl>`
  : html`<p>${evidence.outcome === 'remote_manifest' ? 'The file points to Content Credentials stored elsewhere; they are never fetched.' : evidence.outcome === 'no_manifest' || !evidence.outcome ? 'The file carries no Content Credentials.' : 'The file’s Content Credentials could not be read.'}</p>`}
<h3>AI declarations</h3>
${declarations.length
  ? html`<ul class="plain">${declarations.map(
      (d) =>
        html`<li>${sourceTypeWords[d.sourceType] ? html`Digital source type: <strong>${sourceTypeWords[d.sourceType]}</strong>` : html`<strong>${d.sourceType}</strong>`} <span class="muted">(${declarationSourceWords[d.source] ?? d.source}${d.count > 1 ? `, ${d.count} places` : ''})</span></li>`,
    )}</ul>`
  : html`<p>None: the file declares no generative AI.</p>`}
${hasManifest
  ? html`<h3>Actions recorded</h3>
${actions.length
  ? html`<ol class="plain">${actions.map(
      (a) =>
        html`<li><strong>${actionName(String(a.action))}</strong>${str(a.softwareAgent) ? html` with ${String(a.softwareAgent)}` : ''}${str(a.digitalSourceType) ? html` <span class="muted">(source: ${sourceTypeWords[shortSource(String(a.digitalSourceType))] ?? shortSource(String(a.digitalSourceType))})</span>` : ''}${str(a.description) ? html`<br><span class="muted">${String(a.description)}</span>` : ''}</li>`,
    )}</ol>`
  : html`<p>No actions recorded.</p>`}
${ingredients.length
  ? html`<h3>Ingredients</h3><ul class="plain">${ingredients.map((i) => html`<li>${str(i.title) ?? 'untitled'}${str(i.relationship) ? html` <span class="muted">(${relationshipWords[String(i.relationship)] ?? String(i.relationship)})</span>` : ''}${i.has_manifest === true ? ' · has its own credentials' : ''}</li>`)}</ul>`
  : html``}`
  : html``}
</section>`;
}

const relationshipWords: Record<string, string> = {
  parentOf: 'the file this one was made from',
  componentOf: 'a component placed in it',
  inputTo: 'an input to it',
};

/** The same declaration read in several places (one per action, say) is listed once, with its count. */
function groupDeclarations(declarations: Dict[]): { sourceType: string; source: string; count: number }[] {
  const groups = new Map<string, { sourceType: string; source: string; count: number }>();
  for (const d of declarations) {
    const sourceType = shortSource(String(d.sourceType ?? ''));
    const source = String(d.source ?? '');
    const key = `${sourceType}\n${source}`;
    const group = groups.get(key);
    if (group) group.count += 1;
    else groups.set(key, { sourceType, source, count: 1 });
  }
  return [...groups.values()];
}

const actionNames: Record<string, string> = {
  'c2pa.created': 'Created',
  'c2pa.opened': 'Opened',
  'c2pa.edited': 'Edited',
  'c2pa.edited.metadata': 'Metadata edited',
  'c2pa.color_adjustments': 'Colour adjusted',
  'c2pa.cropped': 'Cropped',
  'c2pa.resized': 'Resized',
  'c2pa.orientation': 'Rotated or flipped',
  'c2pa.converted': 'Converted',
  'c2pa.transcoded': 'Transcoded',
  'c2pa.repackaged': 'Repackaged',
  'c2pa.published': 'Published',
  'c2pa.placed': 'Placed an ingredient',
  'c2pa.drawing': 'Drawn on',
  'c2pa.filtered': 'Filtered',
  'c2pa.removed': 'Content removed',
};
const actionName = (action: string) => actionNames[action] ?? action;

function badgeSection(report: SharedReport, fileUrl: ReportPageInput['fileUrl']): Html {
  if (!report.files.badge) return html``;
  return html`<section class="card" aria-labelledby="badge-title">
<h2 id="badge-title">Verified badge</h2>
<figure>
<img class="badge" src="${fileUrl('badge')}" alt="The photo with the verification badge strip: camera settings and ${report.short_code ? `REF: ${report.short_code}` : 'the reference'}">
<figcaption>Issued only to verified pairs; it carries the service’s signed Content Credentials. <a href="${fileUrl('badge')}">Open the badge image</a></figcaption>
</figure>
</section>`;
}

// ---------------------------------------------------------------------------------------------
// The documents

/** A small shield (inline, so no request leaves for /favicon.ico). */
const ICON = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><path d="M16 2 4 7v8c0 7.5 5.1 13.4 12 15 6.9-1.6 12-7.5 12-15V7z" fill="#0f6b34"/><path d="m10 16 4 4 8-9" fill="none" stroke="#fff" stroke-width="3"/></svg>')}`;

const STYLE = html`
:root{color-scheme:light;--ink:#1f2328;--muted:#4f5761;--line:#d0d7de;--bg:#f3f5f7;--card:#fff;--link:#0b57a4}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:1rem/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--ink);background:var(--bg)}
a{color:var(--link)}
.page{max-width:72rem;margin:0 auto;padding:1rem}
.site{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:baseline;gap:.25rem 1rem;border-bottom:1px solid var(--line);padding-bottom:.5rem;margin-bottom:1rem}
.site .brand{font-weight:700;letter-spacing:.01em}
.site .note{color:var(--muted);font-size:.875rem}
h1{font-size:1.5rem;line-height:1.25;margin:0 0 .25rem}
.subtitle{margin:0 0 1rem;color:var(--muted);overflow-wrap:anywhere}
h2{font-size:1.15rem;line-height:1.3;margin:0 0 .5rem}
h3{font-size:1rem;margin:1rem 0 .25rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:.75rem;padding:1rem;margin:0 0 1rem}
figure{margin:0}
figcaption{color:var(--muted);font-size:.9rem;margin-top:.5rem;overflow-wrap:anywhere}
img{display:block;max-width:100%;height:auto}
.photo img{margin:0 auto;max-height:75vh;width:auto;border-radius:.25rem}
.level{display:inline-block;margin:0 0 .5rem;padding:.2rem .8rem;border-radius:999px;font-weight:700;font-size:1.25rem;color:#fff;background:#4b5563}
.level-verified{background:#0f6b34}.level-provisional{background:#8a5300}.level-provenance{background:#1d4ed8}.level-unrated{background:#4b5563}.level-flagged{background:#b42318}
.verdict-label{font-weight:700;font-size:1.1rem;margin:0 0 .25rem}
.meaning{margin:0 0 .75rem}
.reason{margin:0 0 .5rem;overflow-wrap:anywhere}
.muted{color:var(--muted)}
dl.facts{margin:0}
dl.facts dt{color:var(--muted);font-size:.9rem}
dl.facts dd{margin:0 0 .5rem;overflow-wrap:anywhere}
@media (min-width:30rem){dl.facts{display:grid;grid-template-columns:minmax(6rem,max-content) minmax(0,1fr);gap:.35rem 1rem}dl.facts dt{font-size:1rem}dl.facts dd{margin:0}}
code.hash{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace;font-size:.85rem;word-break:break-all}
.analyses{list-style:none;margin:0;padding:0}
.analyses li{border-top:1px solid var(--line);padding:.75rem 0}
.analyses li:first-child{border-top:0;padding-top:0}
.analysis-head{display:flex;justify-content:space-between;align-items:baseline;gap:1rem}
.analysis-head h3{margin:0}
.outcome{font-weight:700;white-space:nowrap}
.pass{color:#0f6b34}.fail{color:#b42318}.open{color:var(--muted)}
.question{margin:.15rem 0 0;color:var(--muted);font-size:.925rem}
.measured{margin:.15rem 0 0}
.more{margin-top:.5rem}
.more summary{cursor:pointer;color:var(--link)}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;margin-top:.5rem;font-size:.9rem}
th,td{text-align:left;padding:.25rem .75rem .25rem 0;border-bottom:1px solid var(--line);vertical-align:top}
ul.plain,ol.plain{margin:.25rem 0 0;padding-left:1.25rem}
ul.plain li,ol.plain li{margin:.2rem 0;overflow-wrap:anywhere}
.heatmap{background:#000}
.badge{max-width:min(100%,48rem)}
@media (min-width:62rem){.pair-visuals{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:0 1.5rem;align-items:start}}
.compare{display:grid;gap:1rem}
.compare img{width:100%}
.flicker-controls{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem;margin:0 0 .75rem}
.flicker-controls[hidden]{display:none}
.flicker-controls p{margin:0;color:var(--muted)}
.flicker-controls .flicker-help{flex-basis:100%;color:var(--ink)}
button{font:inherit;padding:.45rem .9rem;border-radius:.5rem;border:1px solid #0b57a4;background:#fff;color:#0b57a4;cursor:pointer;min-height:44px}
button[aria-pressed="true"]{background:#0b57a4;color:#fff}
button:focus-visible,a:focus-visible,summary:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.compare.stacked{grid-template-columns:1fr;gap:0}
.compare.stacked>figure{grid-area:1/1}
.compare.stacked figcaption{display:none}
.compare.stacked>figure[data-layer="raw"]{visibility:hidden}
#flicker[data-showing="raw"] .compare.stacked>figure[data-layer="raw"]{visibility:visible}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
footer{color:var(--muted);font-size:.875rem;padding:.5rem 0 2rem}
@media (min-width:40rem){.compare{grid-template-columns:1fr 1fr}.page{padding:1.5rem}h1{font-size:1.85rem}}
@media (min-width:62rem){.layout{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);grid-template-rows:auto 1fr;grid-template-areas:"photo verdict" "photo facts";gap:0 1.5rem;align-items:start}.layout>.photo{grid-area:photo}.layout>.verdict{grid-area:verdict}.layout>.facts-card{grid-area:facts}}
@media (prefers-reduced-motion:reduce){*{scroll-behavior:auto}}
`;

/** The flicker: stacks the two layers and flips between them (by button, or every half second). */
const SCRIPT = html`
(function () {
  var box = document.getElementById('flicker');
  if (!box) return;
  var stack = document.getElementById('flicker-stack');
  var toggle = document.getElementById('flicker-toggle');
  var run = document.getElementById('flicker-run');
  var status = document.getElementById('flicker-status');
  var timer = null;
  function show(layer) {
    box.setAttribute('data-showing', layer);
    // A toggle button keeps its name; aria-pressed says whether the RAW is shown.
    toggle.setAttribute('aria-pressed', layer === 'raw' ? 'true' : 'false');
    if (!timer) status.textContent = layer === 'raw' ? 'Showing: the RAW, rendered and aligned' : 'Showing: the photo';
  }
  function flip() { show(box.getAttribute('data-showing') === 'raw' ? 'photo' : 'raw'); }
  function stop() {
    if (timer) { clearInterval(timer); timer = null; }
    run.setAttribute('aria-pressed', 'false');
  }
  stack.classList.add('stacked');
  box.querySelector('.flicker-controls').hidden = false;
  toggle.addEventListener('click', function () { stop(); flip(); });
  run.addEventListener('click', function () {
    if (timer) { stop(); show('photo'); return; }
    timer = setInterval(flip, 500);
    run.setAttribute('aria-pressed', 'true');
    status.textContent = 'Flickering between the photo and the RAW';
  });
})();
`;

function page(input: { title: string; nonce: string; body: Html; script: boolean; serviceName: string; footer?: string }): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<title>${input.title}</title>
<link rel="icon" href="${ICON}">
<style nonce="${input.nonce}">${STYLE}</style>
</head>
<body>
<div class="page">
<header class="site"><span class="brand">${input.serviceName}</span><span class="note">Photo authenticity report</span></header>
${input.body}
${input.footer ? html`<footer>${input.footer}</footer>` : html``}
</div>
${input.script ? html`<script nonce="${input.nonce}">${SCRIPT}</script>` : html``}
</body>
</html>
`.value;
}

/** The report page of a shared verification. */
export function renderReportPage({ report, serviceName, fileUrl, nonce }: ReportPageInput): string {
  const pair = report.verification_mode === 'raw_pair';
  const flicker = flickerSection(report, fileUrl);
  const body = html`<main>
<h1>Verification report</h1>
<p class="subtitle">${report.name}</p>
<div class="layout">
${photoFigure(report, fileUrl)}
${verdictSection(report)}
${factsSection(report)}
</div>
${analysesSection(report)}
${pair ? html`<div class="pair-visuals">${heatmapSection(report, fileUrl)}${flicker}</div>` : html``}
${credentialsSection(report)}
${badgeSection(report, fileUrl)}
${hashesSection(report)}
</main>`;
  return page({
    title: `Verification report: ${report.name} · ${serviceName}`,
    nonce,
    body,
    script: pair && flicker.value !== '',
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
