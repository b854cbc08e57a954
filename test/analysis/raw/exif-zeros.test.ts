/**
 * Issue 21, defect 13: the badge printed "1s f/1" for a RAW whose EXIF holds zeros. LibRaw turns
 * the APEX fields ShutterSpeedValue 0 and ApertureValue 0 into 1 s and f/1, and the metadata
 * took those when the EXIF's own ExposureTime and FNumber were 0. Zero is "unknown": nothing is
 * made up in its place, in the metadata or on the badge.
 */
import { describe, expect, it } from 'vitest';
import type { CameraMetadata } from '../../../src/analysis/types.js';
import { badgeLayout } from '../../../src/provenance/badge.js';
import type { DngOptions } from './dng-writer.js';
import { canon30dDngs } from './sensor-crop.js';

const W = 256;
const H = 192;
const dngs = canon30dDngs(W, H, { make: 'Canon', model: 'EOS 30D' });
const metadataOf = async (options: Partial<DngOptions>): Promise<CameraMetadata> => (await dngs.decode(options)).metadata;

const strip = (metadata: CameraMetadata) => badgeLayout(1000, 700, { createdAt: new Date('2026-09-19T10:00:00Z'), metadata, shortCode: 'K7Q2M9', serviceName: 'PhotoVerify' }).stripItems;

describe('a RAW whose EXIF records zeros for exposure', () => {
  it('has no exposure time, aperture, ISO or focal length, and the badge shows none', async () => {
    const metadata = await metadataOf({ iso: 0, exposure: { exposureTime: 0, fNumber: 0, focalLength: 0, shutterSpeedValue: 0, apertureValue: 0 } });
    expect({ exposureTime: metadata.exposureTime, fNumber: metadata.fNumber, iso: metadata.iso, focalLength: metadata.focalLength }).toEqual({
      exposureTime: undefined,
      fNumber: undefined,
      iso: undefined,
      focalLength: undefined,
    });
    expect(strip(metadata)).toEqual(['PhotoVerify', 'REF: K7Q2M9']);
  });

  it('still shows what the EXIF does record', async () => {
    const metadata = await metadataOf({ iso: 400, exposure: { exposureTime: 1 / 250, fNumber: 8, focalLength: 35, shutterSpeedValue: 7.966, apertureValue: 6 } });
    expect(metadata).toMatchObject({ exposureTime: 1 / 250, fNumber: 8, iso: 400, focalLength: 35 });
    expect(strip(metadata)).toEqual(['PhotoVerify', '1/250   f/8   ISO 400', 'REF: K7Q2M9']);
  });

  it('takes a negative APEX shutter speed (a long exposure) as LibRaw converts it', async () => {
    const metadata = await metadataOf({ exposure: { shutterSpeedValue: -1 } });
    expect(metadata.exposureTime).toBeCloseTo(2, 3);
  });

  it('takes the APEX fields when the EXIF has only those', async () => {
    const metadata = await metadataOf({ exposure: { shutterSpeedValue: 7.966, apertureValue: 6 } });
    expect(strip(metadata)).toEqual(['PhotoVerify', '1/250   f/8', 'REF: K7Q2M9']);
  });
});
