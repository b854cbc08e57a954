/**
 * Renders the PSD from the pair's stored files (the photo, the RAW's full-size rendering) and the registration the analysis recorded. Runs
 * in a worker thread (psd-thread.ts): seconds of CPU-bound work per 24 MP export stay off the
 * service's event loop, and an aborted export stops by terminating the thread.
 * Order keeps the peak low: the RAW's rendering is read (or, for a pair analysed before the
 * rendering was kept, the RAW decoded and rendered and its decoders shut down) before any
 * canvas-sized buffer exists, and each layer is made once, in its final RGBA form.
 */
import type { Affine } from '../../analysis/image/affine.js';
import sharp from 'sharp';
import { decodeRaw, renderReference, shutdownRawDecoders } from '../../analysis/raw/index.js';
import type { RgbImage } from '../../analysis/types.js';
import { StateValidationError } from '../../core/errors.js';
import { canvasRefusal } from './errors.js';
import { type PsdFacts, writePsdDocument } from './psd-document.js';
import { heatmapPixels, photoPixels, registeredRendition } from './psd-pixels.js';

export interface PsdJob {
  /**
   * What the RAW layer is made from: the `raw_rendition` the analysis kept (a lossless PNG of
   * the RAW rendered at full size), or the RAW itself for a pair analysed before it was kept.
   */
  rawLayer: { kind: 'rendition'; png: Uint8Array } | { kind: 'raw'; raw: Uint8Array };
  image: Uint8Array;
  /** The stored SSIM heatmap rendition (PNG, the analysis's working grid). */
  heatmapPng: Uint8Array;
  /** Full-resolution photo pixel → full-resolution reference pixel, as the analysis recorded it. */
  imageToReference: Affine;
  facts: PsdFacts;
}

export interface RenderedPsd {
  /** The file, in parts written one after another. */
  parts: Uint8Array[];
  width: number;
  height: number;
}

export async function renderPsd(job: PsdJob): Promise<RenderedPsd> {
  let reference: RgbImage | undefined = job.rawLayer.kind === 'rendition' ? await pngPixels(job.rawLayer.png) : await renderRawReference(job.rawLayer.raw);
  const photo = await photoPixels(job.image);
  const { width, height } = photo;
  // A pair whose size was not recorded (verified before it was) is checked here, before any other canvas-sized buffer.
  const tooLarge = canvasRefusal(width, height);
  if (tooLarge) throw tooLarge;
  const rendition = registeredRendition(reference, job.imageToReference, width, height);
  reference = undefined;
  const heatmap = await heatmapPixels(job.heatmapPng, width, height);
  return { parts: await writePsdDocument({ photo, rendition, heatmap }, job.facts), width, height };
}

/** The analysis's reference rendering of the RAW (src/analysis/raw/render.ts, default options), full size. */
async function renderRawReference(bytes: Uint8Array): Promise<RgbImage> {
  try {
    const decoded = await decodeRaw(bytes);
    if (decoded.kind !== 'decoded') {
      throw new StateValidationError(`This pair's RAW (${decoded.format}, ${decoded.variant}) cannot be rendered, so there is no RAW layer to export.`, {
        suggestion: 'A PSD export needs a pair whose RAW the service can decode.',
      });
    }
    return await renderReference(decoded.raw);
  } finally {
    // This thread's LibRaw decoders and their WebAssembly memory go before the canvas-sized layers are made.
    shutdownRawDecoders();
  }
}

/** The kept rendering's pixels: the very bytes renderRawReference gives (PNG is lossless, 8 bits a channel like the rendering). */
async function pngPixels(png: Uint8Array): Promise<RgbImage> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}
