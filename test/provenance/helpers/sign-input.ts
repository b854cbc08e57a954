import { readFileSync } from 'node:fs';
import type { SignVerifiedImageInput } from '../../../src/provenance/sign.js';
import { fixture } from './paths.js';

/** The 30D camera JPEG and its RAW: what the signing tests sign. */
export const pairJpeg = readFileSync(fixture('pairs/canon_eos_30d_cr2/IMG_5952.camera-preview.jpg'));
const pairRaw = readFileSync(fixture('pairs/canon_eos_30d_cr2/IMG_5952.CR2'));

/** A verified pair's signing input for `image` (default: the 30D camera JPEG). */
export const signInput = (image: Uint8Array = pairJpeg, format: SignVerifiedImageInput['format'] = 'image/jpeg'): SignVerifiedImageInput => ({
  image,
  format,
  raw: { bytes: pairRaw, name: 'IMG_5952.CR2', format: 'image/x-canon-cr2' },
  assertion: {
    verificationId: '3f1c2a9e-5a43-4c1e-9b1a-0d6f1f1b2c3d',
    assuranceLevel: 'verified',
    captureVerified: true,
    imageSha256: 'ee9d178bd581a70f',
    rawSha256: '9f4958fb43824fdc',
    pipelineBuild: 'test-build',
    processingRegion: 'eu-central',
  },
});
