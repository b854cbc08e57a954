/**
 * The JPEG structure check shared by the service's upload check and the CLI's pipeline, on every
 * JPEG fixture and on variants built here from them (padding, trailers, cuts) and hostile bytes.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { checkJpegStructure, inspectJpeg, inspectJpegStream, jpegStructureError } from '../../../src/analysis/image/jpeg-structure.js';
import { FileError } from '../../../src/core/errors.js';
import { fixture, fixtureFiles } from '../raw/fixtures.js';

const pairJpeg = 'pairs/canon_eos_30d_cr2/IMG_5952.camera-preview.jpg';
const concat = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));

/** Deterministic bytes (an LCG), so a failure reproduces. */
function noise(length: number, seed = 1): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
  return bytes;
}

/** A 2 KB trailer that itself holds SOI/EOI bytes and ends with FFD9, as appended images do. */
const trailer2k = concat(new Uint8Array([0xff, 0xd8, 0xff, 0xd9]), noise(2040), new Uint8Array([0xff, 0xd9, 0xff, 0xd9]));

const jpegFixtures = [...fixtureFiles('images'), ...fixtureFiles('c2pa'), ...fixtureFiles('pairs')].filter((f) => {
  const b = fixture(f);
  return b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff;
});

/** Fixtures whose files carry data after the image's end-of-image marker, as written. */
const writtenWithTrailer: Record<string, number> = {
  // The camera's PRVW preview (extracted byte-exact from the CR3): six zero bytes after EOI.
  'pairs/canon_eos_r6_cr3_pruned/Canon-R6-pruned.preview.jpg': 6,
  // 310 zero bytes, then the Multi-Picture Format preview image (FFD8 ... FFD9).
  'c2pa/pt_nikon-20221019-building.jpeg': 314_084,
};

async function streamed(bytes: Uint8Array, chunkSize: number) {
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += chunkSize) chunks.push(bytes.subarray(i, i + chunkSize));
  return inspectJpegStream(Readable.from(chunks), bytes.length);
}

describe('inspectJpeg: the fixtures', () => {
  it('finds JPEG fixtures to check', () => expect(jpegFixtures.length).toBeGreaterThan(30));

  it.each(jpegFixtures)('%s is complete', (file) => {
    const bytes = fixture(file);
    const structure = inspectJpeg(bytes);
    expect(structure).toMatchObject({ ok: true, trailingBytes: writtenWithTrailer[file] ?? 0 });
  });

  it('skips the EXIF thumbnail (its EOI inside APP1 is not the image end): cut after it, the file is truncated', () => {
    // The first FFD9 of these files is their thumbnail's; a search for "any EOI" would pass the cut.
    for (const file of ['images/mei_canon-eos450d.jpg', 'images/exifr_canon-eos1300d.jpg', 'c2pa/pt_nikon-20221019-building.jpeg']) {
      const bytes = fixture(file);
      const thumbnailEnd = Buffer.from(bytes).indexOf(Buffer.from([0xff, 0xd9])) + 2;
      expect(thumbnailEnd, file).toBeLessThan(100_000);
      const structure = inspectJpeg(bytes.subarray(0, thumbnailEnd + 50_000));
      expect(structure, file).toMatchObject({ ok: false, problem: 'truncated' });
    }
  });
});

describe('inspectJpeg: trailing data is accepted and counted', () => {
  const jpeg = fixture(pairJpeg);

  it.each([
    ['16 zero bytes', new Uint8Array(16)],
    ['a 2 KB trailer holding SOI/EOI bytes', trailer2k],
    ['a whole second JPEG appended', fixture('pairs/canon_eos_6d_dng/canon_eos_6d.preview.jpg')],
    ['1 MB of 0xFF', new Uint8Array(1 << 20).fill(0xff)],
  ] as [string, Uint8Array][])('%s', async (_label, extra) => {
    const bytes = concat(jpeg, extra);
    const expected = { ok: true, imageEnd: jpeg.length, trailingBytes: extra.length, scans: 1 };
    expect(inspectJpeg(bytes)).toEqual(expected);
    expect(checkJpegStructure(bytes)).toBe(extra.length);
    for (const size of [1, 7, 4096, 65536]) expect(await streamed(bytes, size), `chunks of ${size}`).toEqual(expected);
  });

  it('a progressive JPEG (several scans) is walked to its end', () => {
    expect(inspectJpeg(fixture('images/pp_IMG_E4120.JPG'))).toMatchObject({ ok: true, scans: 10, trailingBytes: 0 });
  });
});

describe('inspectJpeg: incomplete and damaged files', () => {
  const jpeg = fixture(pairJpeg);

  it('cut in the middle of the scan: truncated, the same from memory and from a stream', async () => {
    const cut = jpeg.subarray(0, Math.floor(jpeg.length / 2));
    const structure = inspectJpeg(cut);
    expect(structure).toEqual({ ok: false, problem: 'truncated', reason: `the file ends after ${cut.length} bytes, inside the image data, without an end-of-image marker`, offset: cut.length, size: cut.length });
    for (const size of [1, 4096]) expect(await streamed(cut, size)).toEqual(structure);
    const error = jpegStructureError(structure as Extract<typeof structure, { ok: false }>);
    expect(error).toBeInstanceOf(FileError);
    expect(error.code).toBe('CORRUPT_FILE');
    expect(error.message).toBe(`The JPEG is truncated: the file ends after ${cut.length} bytes, inside the image data, without an end-of-image marker.`);
    expect(() => checkJpegStructure(cut)).toThrow(error.message);
  });

  it('cut one byte short of its EOI, or inside the headers: truncated', () => {
    expect(inspectJpeg(jpeg.subarray(0, jpeg.length - 1))).toMatchObject({ ok: false, problem: 'truncated' });
    // The camera preview has no APP segments; a camera JPEG's EXIF (APP1) runs past byte 1000.
    expect(inspectJpeg(jpeg.subarray(0, 1000))).toMatchObject({ ok: false, problem: 'truncated', reason: expect.stringContaining('inside the image data') });
    expect(inspectJpeg(fixture('images/mei_canon-eos450d.jpg').subarray(0, 1000))).toMatchObject({ ok: false, problem: 'truncated', reason: expect.stringContaining('inside the 0xFFE1 segment') });
    expect(inspectJpeg(jpeg.subarray(0, 2))).toMatchObject({ ok: false, problem: 'truncated', reason: expect.stringContaining('before any image data') });
  });

  it.each([
    ['random bytes after SOI', concat(new Uint8Array([0xff, 0xd8, 0xff]), noise(2_000_000)), 'damaged', /unknown marker/],
    ['SOI then 0xFF to the end', concat(new Uint8Array([0xff, 0xd8]), new Uint8Array(2_000_000).fill(0xff)), 'truncated', /before any image data/],
    ['SOI then zeros', concat(new Uint8Array([0xff, 0xd8]), new Uint8Array(100_000)), 'truncated', /before any image data/],
    ['an EOI straight after SOI', new Uint8Array([0xff, 0xd8, 0xff, 0xd9]), 'damaged', /before any image data/],
    ['a segment length below 2', new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x01, 0xff, 0xd9]), 'damaged', /0xFFE0 segment has an invalid length \(1\)/],
    ['a scan before any frame header', new Uint8Array([0xff, 0xd8, 0xff, 0xda, 0x00, 0x08, 1, 1, 0, 0, 63, 0, 0xff, 0xd9]), 'damaged', /scan starts before any frame header/],
    ['a malformed frame header', new Uint8Array([0xff, 0xd8, 0xff, 0xc0, 0x00, 0x08, 8, 0, 1, 0, 0, 1, 0xff, 0xd9]), 'damaged', /frame header .* malformed/],
    ['a second SOI in the headers', new Uint8Array([0xff, 0xd8, 0xff, 0xfe, 0x00, 0x04, 0x41, 0x42, 0xff, 0xd8, 0xff, 0xd9]), 'damaged', /second start-of-image/],
    ['no SOI at all', new Uint8Array(1000).fill(0xff), 'damaged', /does not start with a start-of-image marker/],
  ] as [string, Uint8Array, string, RegExp][])('%s', async (_label, bytes, problem, reason) => {
    const started = performance.now();
    const structure = inspectJpeg(bytes);
    expect(structure).toMatchObject({ ok: false, problem, reason: expect.stringMatching(reason) });
    expect(await streamed(bytes, 65536)).toEqual(structure);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('100 MB of fill bytes after SOI is answered in bounded time and memory (one pass, no copy)', () => {
    const bytes = new Uint8Array(100 * 1024 * 1024).fill(0xff);
    bytes[1] = 0xd8;
    const started = performance.now();
    expect(inspectJpeg(bytes)).toMatchObject({ ok: false, problem: 'truncated' });
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
