import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { badgeLayout, formatAperture, formatDateStamp, formatShutter, renderBadge } from '../../src/provenance/badge.js';
import { checkCredentials } from '../../src/provenance/check.js';
import { signVerifiedImage } from '../../src/provenance/sign.js';
import { decodeHeifImage } from '../../src/provenance/heif.js';
import { THUMBNAIL_MAX_SIDE, makeThumbnail } from '../../src/provenance/thumbnail.js';
import { anchorsFromPem, noTrustAnchors } from '../../src/provenance/trust.js';
import { derToPem } from '../../src/provenance/x509.js';
import { fixture } from './helpers/paths.js';
import { makeCa, signerFrom, validNow } from './helpers/pki.js';

const original = readFileSync(fixture('pairs/canon_eos_30d_cr2/IMG_5952.camera-preview.jpg'));
const badgeInput = {
  createdAt: new Date('2026-09-19T23:30:00Z'),
  metadata: { exposureTime: 1 / 400, fNumber: 22, iso: 640 },
  shortCode: 'L-7K2Q9X',
  serviceName: 'PhotoVerify',
};

describe('badge text', () => {
  it('formats date (UTC), shutter and aperture', () => {
    expect(formatDateStamp(new Date('2026-09-19T23:30:00Z'))).toBe("19 SEP '26");
    expect(formatDateStamp(new Date('2026-09-19T23:30:00-05:00'))).toBe("20 SEP '26");
    expect(formatShutter(1 / 400)).toBe('1/400');
    expect(formatShutter(2)).toBe('2s');
    expect(formatAperture(22)).toBe('f/22');
    expect(formatAperture(2.8)).toBe('f/2.8');
  });

  it('lays out service name, exposure and REF, and nothing else', () => {
    const layout = badgeLayout(1728, 1152, badgeInput);
    expect(layout.dateStamp).toBe("19 SEP '26");
    expect(layout.stripItems).toEqual(['PhotoVerify', '1/400   f/22   ISO 640', 'REF: L-7K2Q9X']);
    expect(layout.svg).toContain("19 SEP &apos;26");
    expect(layout.svg).not.toMatch(/verified|https?:\/\/(?!www\.w3\.org)|<image|qr/i);
  });

  it('omits REF without a short code', () => {
    const layout = badgeLayout(1728, 1152, { ...badgeInput, shortCode: undefined });
    expect(layout.stripItems).toEqual(['PhotoVerify', '1/400   f/22   ISO 640']);
    expect(layout.svg).not.toContain('REF');
  });
});

describe('renderBadge', () => {
  it('keeps the photo, adds a dark strip, and can be signed', async () => {
    const badge = await renderBadge({ jpeg: original, ...badgeInput });
    const meta = await sharp(badge).metadata();
    const layout = badgeLayout(1728, 1152, badgeInput);
    expect([meta.width, meta.height]).toEqual([1728, 1152 + layout.stripHeight]);

    // Strip region (left of the text) is dark.
    // (raw pixels: sharp's stats() ignores a preceding extract)
    const strip = await sharp(badge).extract({ left: 0, top: 1152 + 2, width: 20, height: layout.stripHeight - 4 }).raw().toBuffer();
    expect(Math.max(...strip)).toBeLessThan(40);
    // The top half of the photo is unchanged (JPEG re-encode aside).
    const region = { left: 0, top: 0, width: 1728, height: 500 };
    const [a, b] = await Promise.all([
      sharp(original).extract(region).raw().toBuffer(),
      sharp(badge).extract(region).raw().toBuffer(),
    ]);
    let diff = 0;
    for (let i = 0; i < a.length; i++) diff += Math.abs(a[i]! - b[i]!);
    expect(diff / a.length).toBeLessThan(3);

    const ca = makeCa('Badge CA');
    const signed = await signVerifiedImage(
      {
        image: badge,
        format: 'image/jpeg',
        raw: { bytes: Uint8Array.of(1, 2, 3), name: 'IMG_5952.CR2', format: 'image/x-canon-cr2' },
        assertion: { verificationId: 'v', assuranceLevel: 'verified', captureVerified: true, imageSha256: 'a', rawSha256: 'b', pipelineBuild: 't', processingRegion: 'eu' },
      },
      signerFrom(ca, validNow()),
    );
    const report = await checkCredentials(signed, { ...noTrustAnchors, signer: anchorsFromPem(derToPem(ca.der)) });
    expect(report.evidence_report.validation_state).toBe('Trusted');
  });
});

describe('renderBadge with an EXIF orientation', { timeout: 60_000 }, () => {
  it('turns the photo upright first, so the strip is at the bottom as the photo is viewed', async () => {
    // The same pixels stored sideways with orientation 6 (rotate 90° clockwise to view).
    const sideways = await sharp(original).rotate(-90).withMetadata({ orientation: 6 }).jpeg({ quality: 95 }).toBuffer();
    const badge = await renderBadge({ jpeg: sideways, ...badgeInput });
    const meta = await sharp(badge).metadata();
    const layout = badgeLayout(1728, 1152, badgeInput);
    expect([meta.width, meta.height, meta.orientation ?? 1]).toEqual([1728, 1152 + layout.stripHeight, 1]);
    const region = { left: 0, top: 0, width: 1728, height: 500 };
    const [a, b] = await Promise.all([sharp(original).extract(region).raw().toBuffer(), sharp(badge).extract(region).raw().toBuffer()]);
    let diff = 0;
    for (let i = 0; i < a.length; i++) diff += Math.abs(a[i]! - b[i]!);
    expect(diff / a.length).toBeLessThan(4);
  });
});

describe('makeThumbnail', { timeout: 60_000 }, () => {
  it.each(['rs_sample1.webp', 'rs_sample1.gif', 'rs_sample1.avif', 'rs_test.tiff', 'exifr_png_with_exif_and_gps.png', 'exifr_canon-eos1300d.jpg', 'exifr_iphone7.heic'])(
    '%s -> JPEG within 512 px',
    async (file) => {
      const thumb = await makeThumbnail(readFileSync(fixture('images', file)));
      const meta = await sharp(thumb).metadata();
      expect(meta.format).toBe('jpeg');
      expect(Math.max(meta.width!, meta.height!)).toBeLessThanOrEqual(THUMBNAIL_MAX_SIDE);
    },
  );
});

describe('HEIF thumbnails come from the thumbnail item the file carries (D-051)', { timeout: 120_000 }, () => {
  const iphone = readFileSync(fixture('images', 'exifr_iphone7.heic'));

  it('an iPhone HEIC (4032x3024 grid) gets its 320x240 thumbnail item, not enlarged', async () => {
    const preview = decodeHeifImage(iphone, { preferThumbnail: true, maxPixels: 1e8 });
    expect(preview).toMatchObject({ source: 'thumbnail', width: 320, height: 240, primaryWidth: 4032, primaryHeight: 3024 });
    const meta = await sharp(await makeThumbnail(iphone)).metadata();
    expect([meta.width, meta.height]).toEqual([320, 240]);
  });

  it('the thumbnail item shows the same picture, the same way up, as the full image', async () => {
    const preview = decodeHeifImage(iphone, { preferThumbnail: true, maxPixels: 1e8 });
    const full = decodeHeifImage(iphone, { maxPixels: 1e8 });
    expect(full.source).toBe('primary');
    const scaled = await sharp(Buffer.from(full.data.buffer), { raw: { width: full.width, height: full.height, channels: 4 } })
      .resize(preview.width, preview.height, { fit: 'fill' })
      .raw()
      .toBuffer();
    const meanDifference = (other: Uint8Array | Uint8ClampedArray) => {
      let sum = 0;
      for (let i = 0; i < scaled.length; i++) if (i % 4 !== 3) sum += Math.abs(scaled[i]! - other[i]!);
      return sum / ((scaled.length * 3) / 4);
    };
    // Same picture: a few levels of compression difference. Turned upside down it would differ far more.
    const upsideDown = new Uint8ClampedArray(preview.data.length);
    for (let p = 0; p < preview.width * preview.height; p++) upsideDown.set(preview.data.subarray(p * 4, p * 4 + 4), (preview.width * preview.height - 1 - p) * 4);
    expect(meanDifference(preview.data)).toBeLessThan(12);
    expect(meanDifference(upsideDown)).toBeGreaterThan(3 * meanDifference(preview.data));
  });

  it('a HEIC without a thumbnail item is decoded in full', () => {
    const icon = readFileSync(fixture('c2pa', 'tn_trustnxt-icon-signed-v2.heic'));
    expect(decodeHeifImage(icon, { preferThumbnail: true, maxPixels: 1e8 })).toMatchObject({ source: 'primary', width: 1056, height: 1056 });
  });

  it('truncated HEIF bytes are a CORRUPT_FILE, not a crash', async () => {
    await expect(makeThumbnail(iphone.subarray(0, 4000))).rejects.toMatchObject({ code: 'CORRUPT_FILE' });
  });
});
