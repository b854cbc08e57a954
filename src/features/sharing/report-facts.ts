import { html, type Html } from '../../core/text/html.js';
import { formatDateStamp } from '../../provenance/badge.js';
import type { SharedFileUrl, SharedReport } from './report.js';
import { fact, num, str, time } from './report-values.js';

/** The sections about the photo and its files: the photo itself, what was verified and how, the files' hashes, the badge. */

const DISPLAYABLE = new Set(['jpeg', 'png', 'webp', 'gif', 'avif']);

/** Before the analysis has run, the file's format (and so whether a browser can show it) is not known yet. */
const finished = (report: SharedReport) => report.status === 'completed' || report.status === 'failed';

export function photoFigure(report: SharedReport, fileUrl: SharedFileUrl): Html {
  const format = str(report.image_metadata.format) ?? '';
  const showOriginal = report.files.image && DISPLAYABLE.has(format);
  const src = showOriginal ? fileUrl('image') : report.files.thumbnail ? fileUrl('thumbnail') : undefined;
  const width = num(report.image_metadata.width);
  const height = num(report.image_metadata.height);
  const size = showOriginal && width && height ? html` width="${width}" height="${height}"` : html``;
  return html`<figure class="card photo">
${src
  ? html`<img src="${src}" alt="The photo that was verified: ${report.name}"${size}>`
  : html`<p class="muted">${finished(report) ? 'No preview of this file can be shown in a browser.' : 'A preview appears once the analysis has read the file.'}</p>`}
<figcaption><bdi>${report.name}</bdi>${!showOriginal && src ? html` (a preview: browsers cannot show ${format.toUpperCase()})` : ''}
${report.files.image ? html` · <a href="${fileUrl('image')}">Open the full image</a>` : ''}</figcaption>
</figure>`;
}

/** What the report tells about the verification, term by term (`iso`: a time, shown as one); values missing are left out. */
export function aboutFacts(report: SharedReport): { term: string; text: string; iso?: string }[] {
  const raw = report.raw_metadata;
  const pair = report.verification_mode === 'raw_pair';
  const camera = [str(raw.make), str(raw.model)].filter(Boolean).join(' ');
  const cameraName = camera && str(raw.model)?.toLowerCase().startsWith(String(raw.make).toLowerCase()) ? str(raw.model) : camera;
  const facts: { term: string; text: string | undefined; iso?: string }[] = [
    { term: 'Verification date', text: report.created_at, iso: report.created_at },
    { term: 'Method', text: pair ? 'Photo compared with the camera’s RAW file' : 'Content Credentials (C2PA) carried by the file' },
    { term: 'Processing region', text: report.processing_region ? `${report.processing_region} (European Union)` : undefined },
    { term: 'Reference', text: report.short_code ? `REF: ${report.short_code}` : undefined },
    ...(pair
      ? [
          { term: 'Camera (RAW)', text: cameraName || undefined },
          { term: 'Lens (RAW)', text: str(raw.lens) },
          { term: 'Captured (RAW clock)', text: str(raw.captureTime) && String(raw.captureTime).replace('T', ' ') },
        ]
      : []),
    {
      term: 'Capture attestation',
      text: report.capture ? `${report.capture.attestation_validated ? 'validated' : 'not validated'}${report.capture.security_score === null ? '' : `, security score ${report.capture.security_score}`}` : undefined,
    },
  ];
  return facts.filter((f): f is { term: string; text: string; iso?: string } => Boolean(f.text));
}

export function factsSection(report: SharedReport): Html {
  return html`<section class="card facts-card" aria-labelledby="facts-title">
<h2 id="facts-title">About this verification</h2>
<dl class="facts">
${aboutFacts(report).map((f) => fact(f.term, f.iso ? time(f.iso) : f.text))}
</dl>
</section>`;
}

export function hashesSection(report: SharedReport): Html {
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

/** The badge's stamp as the rendition draws it (provenance's formatDateStamp), to say what it is. */
const badgeDate = (createdAt: string) => formatDateStamp(new Date(createdAt));

export function badgeSection(report: SharedReport, fileUrl: SharedFileUrl): Html {
  if (!report.files.badge) return html``;
  return html`<section class="card" aria-labelledby="badge-title">
<h2 id="badge-title">Verified badge</h2>
<figure>
<img class="badge" src="${fileUrl('badge')}" alt="The photo with the verification badge strip: camera settings and ${report.short_code ? `REF: ${report.short_code}` : 'the reference'}">
<figcaption>Issued only to verified pairs; it carries the service’s signed Content Credentials. The date in the photo’s corner is the date of this verification (${badgeDate(report.created_at)}), not when the photo was taken. <a href="${fileUrl('badge')}">Open the badge image</a></figcaption>
</figure>
</section>`;
}
