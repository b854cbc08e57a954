/**
 * The file-check variants the upload test (test/http/file-checks.test.ts) and the CLI test
 * (test/cli/analyze-file-checks.test.ts) both use, built from the fixtures in memory: the two
 * must judge the same bytes, because they run the one check (src/analysis/image/jpeg-structure.ts,
 * src/analysis/raw/format-detect.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { inspectJpeg, jpegStructureError } from '../../src/analysis/image/jpeg-structure.js';

export const fixtures = path.resolve(import.meta.dirname, '../../../shared/fixtures');
export const fixture = (name: string) => new Uint8Array(fs.readFileSync(path.join(fixtures, name)));
export const concat = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));

/** Deterministic pseudo-random bytes (an LCG), so a failure reproduces. */
export function noise(length: number, seed = 1): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
  return bytes;
}

export const pairJpeg = fixture('pairs/canon_eos_30d_cr2/IMG_5952.camera-preview.jpg');

/** A 2 KB trailer that holds SOI/EOI bytes and itself ends with FFD9. */
export const trailer2k = concat(Uint8Array.of(0xff, 0xd8, 0xff, 0xd9), noise(2040), Uint8Array.of(0xff, 0xd9, 0xff, 0xd9));

/** Minimal Canon CRW (no fixture exists): CIFF header "II", length 26, "HEAPCCDR", v1.2, and an empty heap. */
export const crw = concat(Uint8Array.of(0x49, 0x49, 26, 0, 0, 0), Buffer.from('HEAPCCDR', 'latin1'), Uint8Array.of(2, 0, 1, 0), new Uint8Array(8), Uint8Array.of(0, 0, 0, 0, 0, 0));
/** A Sigma X3F header ("FOVb"): a RAW LibRaw 0.21 recognises but cannot decode, so refused at upload (issue 40). */
export const x3f = concat(Buffer.from('FOVb', 'latin1'), new Uint8Array(60));
export const x3fMessage =
  'Sigma X3F is a camera RAW format this service cannot decode (LibRaw 0.21, which this service decodes with, no longer includes a Foveon X3F decoder); ' +
  'supported: CR2, CR3, ARW, NEF, DNG, RAF, ORF, RW2, PEF, SRW, Canon CRW, Kodak KDC/DCR, Apple QuickTake, Minolta MRW, Hasselblad 3FR, Phase One IIQ, Leaf MOS, Mamiya MEF, Epson ERF.';

/** The 30D preview cut in the middle of its entropy-coded data. */
export const cutJpeg = pairJpeg.subarray(0, Math.floor(pairJpeg.length / 2));

/** The message the shared check gives for an incomplete JPEG. */
export function truncatedMessage(bytes: Uint8Array): string {
  const structure = inspectJpeg(bytes);
  if (structure.ok) throw new Error('expected an incomplete JPEG');
  return jpegStructureError(structure).message;
}
