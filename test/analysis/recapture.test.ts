import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeRecapture } from '../../src/analysis/compare/recapture.js';
import { loadPairImage } from '../../src/analysis/image/load.js';
import { downscaleRgb } from '../../src/analysis/image/ops.js';
import { decodeRaw, renderReference, shutdownRawDecoders } from '../../src/analysis/raw/index.js';
import type { RgbImage } from '../../src/analysis/types.js';
import { camera30d, fixture } from './fixtures.js';
import { photographPrint, photographScreen } from './recapture-simulation.js';

afterAll(() => shutdownRawDecoders());

async function rendering(path: string): Promise<RgbImage> {
  const decoded = await decodeRaw(fixture(path));
  if (decoded.kind !== 'decoded') throw new Error(`${path} did not decode`);
  return renderReference(decoded.raw);
}
const photo = async (path: string) => (await loadPairImage(fixture(path))).image;
const recaptured = (image: RgbImage) => analyzeRecapture(image, image).result === false;

/**
 * Timeouts sized by work, not by a machine's speed. On an idle 2-core machine each simulated
 * recapture test takes about 2-5 s (three sources, each simulated at 4x4 samples per camera
 * pixel and analysed) and loading the sources about 1 s; under two CPU burners and a second
 * test file (npm run test:loaded) they took up to 25 s. The limits leave room for more than
 * that; a hang still fails.
 */
const simulationTimeout = 120_000;
const sourcesTimeout = 240_000;
/**
 * Prints are simulated from 800-px-wide sources: 800x533 holds 3x2 = 6 tiles, enough to tell
 * a frame-filling halftone from a print in the scene (coverage 2/3 = 4 of 6 tiles), at half the
 * work of 1100 px. Every source still shows >= 14 frame-spanning peaks and a strongest ratio
 * >= 700 at this size (>= 2 and >= 100 needed).
 */
const printSourceWidth = 800;

describe('recapture detection', () => {
  const sources: Record<string, RgbImage> = {};
  beforeAll(async () => {
    sources['30D'] = await rendering(camera30d.raw);
    sources['6D'] = await rendering('pairs/canon_eos_6d_dng/canon_eos_6d.dng');
    sources['Nikon D70'] = await photo('images/mei_nikon-d70.jpg');
  }, sourcesTimeout);

  it('genuine scenes are not recaptures, a monitor showing text inside the 6D scene included', async () => {
    for (const [name, image] of Object.entries(sources)) {
      const r = analyzeRecapture(image, image);
      expect(r.result, name).toBe(true);
    }
    // The 6D frame does hold periodic peaks (the monitor's text), only not across the frame.
    const sixD = analyzeRecapture(sources['6D']!, sources['6D']!).details.raw_rendering as { periodic_peaks: number; frame_spanning_peaks: number };
    expect(sixD.periodic_peaks).toBeGreaterThan(0);
    expect(sixD.frame_spanning_peaks).toBe(0);
  }, simulationTimeout);

  it.each([
    ['screen, sampled finely', { displayWidth: 420, cameraPxPerDisplayPx: 3.3, angleDeg: -3 }],
    ['screen, aliased into moiré', { displayWidth: 700, cameraPxPerDisplayPx: 1.4, angleDeg: 1.5 }],
  ])('a photograph of a screen is detected: %s', (_name, shot) => {
    for (const [name, image] of Object.entries(sources)) expect(recaptured(photographScreen(downscaleRgb(image, 800), shot)), name).toBe(true);
  }, simulationTimeout);

  it.each([
    ['fine halftone', { periodPx: 3.2, angleDeg: 0 }],
    ['coarse halftone, tilted', { periodPx: 7, angleDeg: -4 }],
  ])('a photograph of a print is detected: %s', (_name, shot) => {
    for (const [name, image] of Object.entries(sources)) expect(recaptured(photographPrint(downscaleRgb(image, printSourceWidth), shot)), name).toBe(true);
  }, simulationTimeout);

  it('a frame too small for four tiles is not judged', () => {
    const small = downscaleRgb(sources['30D']!, 400);
    const r = analyzeRecapture(small, small);
    expect(r.result).toBe(true);
    expect(r.confidence_score).toBe(0.5);
    expect(String(r.details.note)).toMatch(/tiles needed/);
  });
});
