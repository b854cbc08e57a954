import { html, type Html } from '../../core/text/html.js';
import type { SharedReport } from './report.js';
import { validationWords } from './report-credentials.js';
import { dict, list, num, str, type Dict } from './report-values.js';

/** The analyses a report lists, each with its question, its outcome and what it measured (docs/analysis.md). */

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

/** The report's analyses in the order of the pipeline (the RAW first, then the pixel comparisons), whatever order they were stored in, each with its words and what it measured as a sentence. */
export function analysesInWords(report: SharedReport) {
  const order = Object.keys(analysisWords);
  const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
  return [...report.results]
    .sort((a, b) => rank(a.analysis) - rank(b.analysis))
    .map((r) => ({ result: r, words: analysisWords[r.analysis] ?? { name: r.analysis.replace(/_/g, ' '), question: '' }, line: sentence(measurement(r.analysis, r.details)) }));
}

export function analysesSection(report: SharedReport): Html {
  if (report.results.length === 0) return html``;
  return html`<section class="card" aria-labelledby="analyses-title">
<h2 id="analyses-title">Analyses</h2>
<ul class="analyses">
${analysesInWords(report).map(({ result: r, words, line }) => {
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
