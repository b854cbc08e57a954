import { html, type Html } from '../../core/text/html.js';
import type { SharedFileUrl, SharedReport } from './report.js';
import { dict, list, num } from './report-values.js';

/**
 * A RAW+image pair's photo against its RAW: the SSIM difference heatmap, and the flicker viewer
 * (its section, and the page's one script that drives it; without the script the two images
 * stand side by side).
 */

export function heatmapSection(report: SharedReport, fileUrl: SharedFileUrl): Html {
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

export function flickerSection(report: SharedReport, fileUrl: SharedFileUrl): Html {
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

/** The flicker: stacks the two layers and flips between them (by button, or every half second). */
export const FLICKER_SCRIPT = html`
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
