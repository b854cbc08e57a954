import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FileError } from '../../src/core/errors.js';
import { checkCredentials } from '../../src/provenance/check.js';
import { makeThumbnail } from '../../src/provenance/thumbnail.js';
import { noTrustAnchors } from '../../src/provenance/trust.js';
import { fixture } from './helpers/paths.js';

/** A result or a FileError; anything else (crash, other error) fails the test. */
async function settle(bytes: Uint8Array): Promise<string> {
  try {
    const report = await checkCredentials(bytes, noTrustAnchors);
    return `${report.verdict}/${report.verdict_reason}`;
  } catch (error) {
    expect(error).toBeInstanceOf(FileError);
    return (error as FileError).code;
  }
}

const signed = readFileSync(fixture('c2pa/pt_adobe-20220124-C.jpg'));
/** Offset of the first JUMBF superbox ('jumb') in the JPEG's APP11 segment. */
const jumbAt = signed.indexOf(Buffer.from('jumb', 'latin1'));

describe('corrupt and hostile inputs', { timeout: 20_000 }, () => {
  it('zero bytes and tiny files are UNSUPPORTED_FORMAT', async () => {
    expect(await settle(new Uint8Array(0))).toBe('UNSUPPORTED_FORMAT');
    expect(await settle(Uint8Array.of(0xff, 0xd8))).toBe('UNSUPPORTED_FORMAT');
  });

  it('random garbage is UNSUPPORTED_FORMAT', async () => {
    for (let i = 0; i < 5; i++) expect(await settle(randomBytes(4096))).toBe('UNSUPPORTED_FORMAT');
  });

  it('garbage behind a JPEG / PNG / BMFF header gives a clear result', async () => {
    for (const header of [Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'), Buffer.from('\0\0\0\x18ftypheic\0\0\0\0mif1heic', 'latin1')]) {
      expect(await settle(Buffer.concat([header, randomBytes(4096)]))).toMatch(/^unrated\/|CORRUPT_FILE/);
    }
  });

  it('a JUMBF box truncated mid-way is not trusted', async () => {
    expect(jumbAt).toBeGreaterThan(0);
    const outcome = await settle(signed.subarray(0, jumbAt + 200));
    expect(outcome).not.toMatch(/^provenance_verified/);
  });

  it('a huge declared JUMBF box size does not hang or crash', async () => {
    const copy = Buffer.from(signed);
    copy.writeUInt32BE(0xfffffff0, jumbAt - 4); // the superbox LBox
    expect(await settle(copy)).not.toMatch(/^provenance_verified/);
    const copy2 = Buffer.from(signed);
    copy2.writeUInt32BE(1, jumbAt - 4); // XLBox form with an absurd 64-bit size
    copy2.writeUInt32BE(0x7fffffff, jumbAt + 4);
    expect(await settle(copy2)).not.toMatch(/^provenance_verified/);
  });

  it('a PNG with an oversized text chunk length is handled', async () => {
    const png = Buffer.from(readFileSync(fixture('images/exifr_png_with_exif_and_gps.png')));
    png.writeUInt32BE(0x7ffffff0, 8); // IHDR length
    expect(await settle(png)).toMatch(/^unrated\/|CORRUPT_FILE/);
  });

  it('thumbnails of corrupt images are a CORRUPT_FILE / UNSUPPORTED_FORMAT error', async () => {
    await expect(makeThumbnail(randomBytes(1000))).rejects.toMatchObject({ code: 'UNSUPPORTED_FORMAT' });
    await expect(makeThumbnail(Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(2000)]))).rejects.toMatchObject({ code: 'CORRUPT_FILE' });
  });
});
