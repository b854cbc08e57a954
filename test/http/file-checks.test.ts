/**
 * The upload checks over real HTTP: JPEG structure (trailing data after the end-of-image marker
 * accepted and recorded, truncated and hostile files a clear 400) and recognised but unsupported
 * RAW formats named as such. The variants are built here from the fixtures; there is no CRW
 * fixture, so a minimal CIFF header is built here too. The expected messages come from the
 * shared check (src/analysis/image/jpeg-structure.ts, src/analysis/raw/format-detect.ts), which
 * the CLI test (test/cli/analyze-file-checks.test.ts) compares with the CLI's output.
 */
import { describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { concat, crw, x3f, x3fMessage, cutJpeg, fixture, noise, pairJpeg, trailer2k, truncatedMessage } from '../support/file-variants.js';
import { waitForTerminal } from '../support/poll.js';
import { serviceSuite } from '../support/suite.js';

const pairRaw = fixture('pairs/canon_eos_30d_cr2/IMG_5952.CR2');
/** A camera JPEG cut right after the end-of-image marker of the thumbnail inside its EXIF (APP1). */
const cameraJpeg = fixture('images/mei_canon-eos450d.jpg');
const cutAfterThumbnail = cameraJpeg.subarray(0, Buffer.from(cameraJpeg).indexOf(Buffer.from([0xff, 0xd9])) + 2);

type Part = { field: string; name: string; bytes: Uint8Array };

async function upload(url: string, token: string, parts: Part[]) {
  const form = new FormData();
  for (const part of parts) form.append(part.field, new Blob([new Uint8Array(part.bytes)]), part.name);
  const response = await fetch(`${url}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  return { status: response.status, body: await response.json() };
}

const target = databaseTargets[0]!;

describe('upload file checks over HTTP', () => {
  const { t, call, newAccount } = serviceSuite(target, { MAX_UPLOAD_BYTES: String(8 * 1024 * 1024) });
  const owner = newAccount();

  const blobCount = async () => (await t.storedBlobs()).length;

  it('a pair whose JPEG has 16 zero bytes after its end-of-image marker is accepted, verified, and the length recorded', async () => {
    const created = await upload(t.url, owner.token, [
      { field: 'image', name: 'padded.jpg', bytes: concat(pairJpeg, new Uint8Array(16)) },
      { field: 'raw', name: 'IMG_5952.CR2', bytes: pairRaw },
    ]);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const v = await waitForTerminal(call, owner.token, created.body.id);
    expect(v).toMatchObject({ status: 'completed', verification_mode: 'raw_pair', assurance_level: 'verified' });
    expect(v.image_metadata).toMatchObject({ format: 'jpeg', trailing_bytes: 16, size: pairJpeg.length + 16 });
    // A pair through the workflow: up to its 10-minute deadline on a loaded machine.
  }, 15 * 60_000);

  it.each([
    ['the 30D JPEG with a 2 KB trailer', concat(pairJpeg, trailer2k), 2048],
    ["the R6's camera preview as written (6 zero bytes after EOI)", fixture('pairs/canon_eos_r6_cr3_pruned/Canon-R6-pruned.preview.jpg'), 6],
    ['a JPEG without trailing data', pairJpeg, 0],
  ] as [string, Uint8Array, number][])('image-only: %s is accepted and its trailing length recorded', async (_label, bytes, trailing) => {
    const created = await upload(t.url, owner.token, [{ field: 'image', name: 'image.jpg', bytes }]);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const v = await waitForTerminal(call, owner.token, created.body.id);
    expect(v).toMatchObject({ status: 'completed', verification_mode: 'image_only' });
    expect(v.image_metadata).toMatchObject({ format: 'jpeg', trailing_bytes: trailing });
  }, 60_000);

  it.each([
    ['a JPEG cut in the middle of its scan', [{ field: 'image', name: 'cut.jpg', bytes: cutJpeg }], 'CORRUPT_FILE', truncatedMessage(cutJpeg)],
    [
      'a cut JPEG padded with zeros',
      [{ field: 'image', name: 'cut.jpg', bytes: concat(cutJpeg, new Uint8Array(16)) }],
      'CORRUPT_FILE',
      truncatedMessage(concat(cutJpeg, new Uint8Array(16))),
    ],
    [
      "a camera JPEG cut just after its EXIF thumbnail's FFD9 (the old last-two-bytes check accepted it)",
      [{ field: 'image', name: 'cut.jpg', bytes: cutAfterThumbnail }],
      'CORRUPT_FILE',
      /^The JPEG is truncated: the file ends after \d+ bytes, inside the 0xFFE1 segment/,
    ],
    [
      'a pair whose JPEG is cut',
      [
        { field: 'image', name: 'cut.jpg', bytes: cutJpeg },
        { field: 'raw', name: 'IMG_5952.CR2', bytes: pairRaw },
      ],
      'CORRUPT_FILE',
      truncatedMessage(cutJpeg),
    ],
    ["a 'JPEG' of random bytes after SOI", [{ field: 'image', name: 'random.jpg', bytes: concat(Uint8Array.of(0xff, 0xd8, 0xff), noise(3_000_000)) }], 'CORRUPT_FILE', /^The JPEG is damaged: an unknown marker/],
    [
      "a 'JPEG' of random bytes after SOI ending with FFD9",
      [{ field: 'image', name: 'random.jpg', bytes: concat(Uint8Array.of(0xff, 0xd8, 0xff), noise(100_000, 7), Uint8Array.of(0xff, 0xd9)) }],
      'CORRUPT_FILE',
      /^The JPEG is damaged/,
    ],
    ['SOI followed by 0xFF bytes to the end', [{ field: 'image', name: 'ff.jpg', bytes: concat(Uint8Array.of(0xff, 0xd8), new Uint8Array(3_000_000).fill(0xff)) }], 'CORRUPT_FILE', /^The JPEG is truncated: .*before any image data/],
    ['a file of 0xFF bytes', [{ field: 'image', name: 'ff.jpg', bytes: new Uint8Array(3_000_000).fill(0xff) }], 'UNSUPPORTED_FORMAT', /not a recognised image file/],
    [
      'a Sigma X3F (which this LibRaw cannot decode) as the RAW',
      [
        { field: 'image', name: 'IMG_5952.jpg', bytes: pairJpeg },
        { field: 'raw', name: 'SDIM0001.X3F', bytes: x3f },
      ],
      'UNSUPPORTED_FORMAT',
      x3fMessage,
    ],
    ['a Canon CRW as the image', [{ field: 'image', name: 'CRW_0001.jpg', bytes: crw }], 'UNSUPPORTED_FORMAT', 'The image part is a camera RAW (Canon CRW), which is not accepted for image-only verification.'],
  ] as [string, Part[], string, string | RegExp][])('rejects %s with a clear 400, storing nothing', async (_label, parts, code, message) => {
    await t.settled();
    const events = await t.eventCount();
    const blobs = await blobCount();
    const started = Date.now();
    const res = await upload(t.url, owner.token, parts);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.detail.error_code).toBe(code);
    if (typeof message === 'string') expect(res.body.detail.message).toBe(message);
    else expect(res.body.detail.message).toMatch(message);
    expect(res.body.detail.suggestion).toEqual(expect.any(String));
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await t.eventCount()).toBe(events);
    expect(await blobCount()).toBe(blobs);
  });

  it('the X3F refusal names the supported formats in its details too (CRW among them, issue 40)', async () => {
    const res = await upload(t.url, owner.token, [
      { field: 'image', name: 'IMG_5952.jpg', bytes: pairJpeg },
      { field: 'raw', name: 'SDIM0001.X3F', bytes: x3f },
    ]);
    expect(res.body.detail).toMatchObject({
      error_code: 'UNSUPPORTED_FORMAT',
      suggestion: expect.stringContaining('image-only'),
      details: { detected: 'Sigma X3F', supported: ['CR2', 'CR3', 'ARW', 'NEF', 'DNG', 'RAF', 'ORF', 'RW2', 'PEF', 'SRW', 'CRW', 'KDC', 'QTK', 'MRW', '3FR', 'IIQ', 'MOS', 'MEF', 'ERF'] },
    });
  });
});
