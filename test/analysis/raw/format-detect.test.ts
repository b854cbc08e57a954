import { describe, expect, it } from 'vitest';
import { describeFile, detectRawFormat } from '../../../src/analysis/raw/index.js';
import { fixture, fixtureFiles } from './fixtures.js';

/** What each RAW fixture is, by its content (SOURCES.md), not by its extension. */
const expected: Record<string, string | null> = {
  'raw/exiftool_canon_eos350d_stub.cr2': 'CR2',
  'raw/exiftool_canon_eos350d_stub.dng': 'DNG',
  'raw/exiftool_canon_eosm50_stub.cr3': 'CR3',
  'raw/exiftool_fujifilm_s5pro_stub.raf': 'RAF',
  'raw/exiftool_nikon_d70_stub.nef': 'NEF',
  'raw/exiftool_panasonic_lx3_stub.rw2': 'RW2',
  'raw/exiv2_apple_iphone12promax_IMG_1361_stub.dng': 'DNG',
  'raw/filetype_leica_m10_first100KB.dng': 'DNG',
  'raw/filetype_olympus_first128B.orf': 'ORF',
  'raw/filetype_sony_zv-e10_first100KB.arw': 'ARW',
  'raw/gopro_fusion_front_GPFR7066.GPR': 'DNG',
  'raw/gopro_hero7_GOPR9231.GPR': 'DNG',
  'raw/gopro_fusion_front_GPFR7066.dng': 'DNG',
  'raw/kodak_dc50.kdc': null,
  'raw/mei_issue247-1_jpeg_content.nef': null,
  'pairs/canon_eos_30d_cr2/IMG_5952.CR2': 'CR2',
  'pairs/canon_eos_30d_cr2/IMG_5952.camera-preview.jpg': null,
  'pairs/canon_eos_6d_dng/canon_eos_6d.dng': 'DNG',
  'pairs/canon_eos_6d_dng/canon_eos_6d.preview.jpg': null,
  'pairs/canon_eos_r6_cr3_pruned/Canon-R6-pruned.CR3': 'CR3',
  'pairs/canon_eos_r6_cr3_pruned/Canon-R6-pruned.preview.jpg': null,
  'pairs/gopro_hero7_dng/GOPR9231.dng': 'DNG',
  'pairs/gopro_hero7_dng/GOPR9231.dcraw-render.jpg': null,
};

describe('detectRawFormat', () => {
  it('knows every file in fixtures/raw and fixtures/pairs', () => {
    const files = [...fixtureFiles('raw'), ...fixtureFiles('pairs')];
    expect(files.sort()).toEqual(Object.keys(expected).sort());
  });

  for (const [file, format] of Object.entries(expected)) {
    it(`${file} -> ${format ?? 'not a RAW'}`, () => {
      expect(detectRawFormat(fixture(file))).toBe(format);
    });
  }

  it('needs only the head of the file (4 KB here; the service stages a 64 KB head)', () => {
    for (const [file, format] of Object.entries(expected)) expect([file, detectRawFormat(fixture(file).subarray(0, 4096))]).toEqual([file, format]);
  });

  it.each([
    'images/exifr_canon-eos1300d.jpg',
    'images/mei_nikon-d70.jpg',
    'images/exifr_png_with_exif_and_gps.png',
    'images/exifr_tif-with-iptc-icc-xmp.tif',
    'images/rs_test.tiff',
    'images/exifr_iphone7.heic',
    'images/rs_sample1.webp',
  ])('%s is not a RAW (a Canon/Nikon Make tag alone does not make one)', (file) => {
    expect(detectRawFormat(fixture(file))).toBeNull();
  });

  it('returns null for empty and tiny buffers', () => {
    expect(detectRawFormat(new Uint8Array(0))).toBeNull();
    expect(detectRawFormat(new Uint8Array([0x49, 0x49]))).toBeNull();
  });
});

describe('describeFile', () => {
  it.each([
    ['raw/mei_issue247-1_jpeg_content.nef', 'a JPEG image'],
    ['images/exifr_png_with_exif_and_gps.png', 'a PNG image'],
    ['images/rs_sample1.webp', 'a WebP image'],
    ['images/exifr_iphone7.heic', 'a HEIF/HEIC image'],
    ['images/rs_sample1.avif', 'an AVIF image'],
    ['images/rs_test.tiff', 'a TIFF image'],
    ['raw/kodak_dc50.kdc', 'a Kodak KDC/DCR camera RAW'],
    ['pairs/canon_eos_30d_cr2/IMG_5952.CR2', 'a CR2 camera RAW'],
  ])('%s is %s', (file, description) => {
    expect(describeFile(fixture(file))).toBe(description);
  });

  it('says so for empty and unrecognised bytes', () => {
    expect(describeFile(new Uint8Array(0))).toBe('an empty file');
    expect(describeFile(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]))).toBe('not a recognised image file');
  });
});
