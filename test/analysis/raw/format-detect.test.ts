import { describe, expect, it } from 'vitest';
import { describeFile, detectRawFormat, detectUnsupportedRaw, unsupportedRawError } from '../../../src/analysis/raw/index.js';
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
  'raw/kodak_dc50.kdc': 'KDC',
  'raw/mei_issue247-1_jpeg_content.nef': null,
  'pairs/canon_eos_30d_cr2/IMG_5952.CR2': 'CR2',
  'pairs/canon_eos_30d_cr2/IMG_5952.camera-preview.jpg': null,
  'pairs/canon_eos_6d_dng/canon_eos_6d.dng': 'DNG',
  'pairs/canon_eos_6d_dng/canon_eos_6d.preview.jpg': null,
  'pairs/canon_eos_r6_cr3_pruned/Canon-R6-pruned.CR3': 'CR3',
  'pairs/canon_eos_r6_cr3_pruned/Canon-R6-pruned.preview.jpg': null,
  'pairs/gopro_hero7_dng/GOPR9231.dng': 'DNG',
  'pairs/gopro_hero7_dng/GOPR9231.dcraw-render.jpg': null,
  'pairs/canon_powershot_g2_crw/CRW_0304.CRW': 'CRW',
  'pairs/canon_powershot_g2_crw/CRW_0304.camera-jpg.jpg': null,
  'pairs/apple_quicktake100_qtk/Image__1.qtk': 'QTK',
  'pairs/apple_quicktake100_qtk/Image__1.dcraw-render.jpg': null,
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
    ['pairs/canon_powershot_g2_crw/CRW_0304.CRW', 'a Canon CRW camera RAW'],
    ['pairs/apple_quicktake100_qtk/Image__1.qtk', 'an Apple QuickTake camera RAW'],
    ['pairs/canon_eos_30d_cr2/IMG_5952.CR2', 'a CR2 camera RAW'],
  ])('%s is %s', (file, description) => {
    expect(describeFile(fixture(file))).toBe(description);
  });

  it('says so for empty and unrecognised bytes', () => {
    expect(describeFile(new Uint8Array(0))).toBe('an empty file');
    expect(describeFile(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]))).toBe('not a recognised image file');
  });
});

/**
 * Headers of RAW formats there is no fixture for, built here from their documented signatures
 * (LibRaw identify.cpp, RawSpeed): no CRW, MRW, X3F or IIQ file exists in the fixtures.
 */
const ascii = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
const concat = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));
const u16le = (v: number) => Uint8Array.of(v & 0xff, v >> 8);
const u32le = (v: number) => Uint8Array.of(v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, v >>> 24);

/**
 * A minimal Canon CRW: the CIFF header (byte order, header length 26, "HEAPCCDR", version 1.2,
 * 8 reserved bytes) and an empty root heap (no records; its last 4 bytes point at the table).
 */
export function minimalCrw(order: 'II' | 'MM' = 'II'): Uint8Array {
  const header = concat(ascii(order), order === 'II' ? u32le(26) : Uint8Array.of(0, 0, 0, 26), ascii('HEAPCCDR'), u16le(2), u16le(1), new Uint8Array(8));
  return concat(header, u16le(0), u32le(0));
}

/** A little-endian TIFF with IFD0 holding a Make and, if given, a PhotometricInterpretation. */
function tiffWithMake(make: string, photometric?: number): Uint8Array {
  const entries: Uint8Array[] = [];
  const makeText = concat(ascii(make), new Uint8Array(1));
  const count = photometric === undefined ? 1 : 2;
  const dataOffset = 8 + 2 + count * 12 + 4;
  if (photometric !== undefined) entries.push(concat(u16le(262), u16le(3), u32le(1), u16le(photometric), u16le(0)));
  entries.push(concat(u16le(271), u16le(2), u32le(makeText.length), u32le(dataOffset)));
  return concat(ascii('II*\0'), u32le(8), u16le(count), ...entries, u32le(0), makeText, new Uint8Array(64));
}

describe('the formats LibRaw decodes beyond the spec\'s ten (issue 40) are recognised by content', () => {
  it.each([
    ['Canon CRW (CIFF, little-endian)', minimalCrw('II'), 'CRW', 'Canon CRW'],
    ['Canon CRW (CIFF, big-endian)', minimalCrw('MM'), 'CRW', 'Canon CRW'],
    ['Minolta MRW', concat(ascii('\0MRM'), new Uint8Array(60)), 'MRW', 'Minolta MRW'],
    ['Apple QuickTake 150/200', concat(ascii('qktn'), new Uint8Array(60)), 'QTK', 'Apple QuickTake'],
    ['Phase One IIQ', concat(ascii('II*\0'), u32le(0x100), ascii('IIII'), Uint8Array.of(1), ascii('waR'), new Uint8Array(64)), 'IIQ', 'Phase One IIQ'],
    ['a Hasselblad TIFF with CFA data (3FR)', tiffWithMake('Hasselblad', 32803), '3FR', 'Hasselblad 3FR'],
    ['a Leaf TIFF with CFA data (MOS)', tiffWithMake('Leaf', 32803), 'MOS', 'Leaf MOS'],
    ['a Mamiya TIFF with CFA data (MEF)', tiffWithMake('Mamiya-OP Co.,Ltd.', 32803), 'MEF', 'Mamiya MEF'],
    ['an Epson TIFF with CFA data (ERF)', tiffWithMake('SEIKO EPSON CORP.', 32803), 'ERF', 'Epson ERF'],
    ['the Kodak DC50 KDC fixture', fixture('raw/kodak_dc50.kdc'), 'KDC', 'Kodak KDC/DCR'],
  ] as [string, Uint8Array, string, string][])('%s', (_label, bytes, format, name) => {
    expect(detectRawFormat(bytes)).toBe(format);
    expect(detectUnsupportedRaw(bytes)).toBeNull();
    expect(unsupportedRawError(bytes)).toBeNull();
    expect(describeFile(bytes)).toMatch(new RegExp(`^an? ${name} camera RAW$`));
  });

  it('a TIFF carrying one of those makes but no RAW markers (a scan, an export) stays a TIFF', () => {
    for (const make of ['Hasselblad', 'Leaf', 'SEIKO EPSON CORP.']) {
      expect(detectRawFormat(tiffWithMake(make)), make).toBeNull();
      expect(describeFile(tiffWithMake(make, 2)), make).toBe('a TIFF image');
    }
  });

  it('the CIFF signature is required in full and at offset 6', () => {
    const crw = minimalCrw();
    expect(detectRawFormat(crw.subarray(0, 13))).toBeNull();
    expect(detectRawFormat(concat(ascii('XX'), crw.subarray(2)))).toBeNull();
    expect(detectRawFormat(concat(new Uint8Array(1), crw))).toBeNull();
  });
});

describe('detectUnsupportedRaw: recognised camera RAW formats LibRaw cannot decode here', () => {
  it('Sigma X3F gets a 400 naming the format and why', () => {
    const bytes = concat(ascii('FOVb'), new Uint8Array(60));
    expect(detectRawFormat(bytes)).toBeNull();
    expect(detectUnsupportedRaw(bytes)).toBe('Sigma X3F');
    expect(describeFile(bytes)).toBe('a Sigma X3F camera RAW');
    const error = unsupportedRawError(bytes)!;
    expect(error.code).toBe('UNSUPPORTED_FORMAT');
    expect(error.message).toBe(
      'Sigma X3F is a camera RAW format this service cannot decode (LibRaw 0.21, which this service decodes with, no longer includes a Foveon X3F decoder); ' +
        'supported: CR2, CR3, ARW, NEF, DNG, RAF, ORF, RW2, PEF, SRW, Canon CRW, Kodak KDC/DCR, Apple QuickTake, Minolta MRW, Hasselblad 3FR, Phase One IIQ, Leaf MOS, Mamiya MEF, Epson ERF.',
    );
    expect(error.suggestion).toEqual(expect.any(String));
  });

  it('names nothing among the fixtures: each is decodable-named or not a RAW', () => {
    const files = [...fixtureFiles('raw'), ...fixtureFiles('pairs'), ...fixtureFiles('images'), ...fixtureFiles('c2pa')];
    for (const file of files) expect([file, detectUnsupportedRaw(fixture(file))]).toEqual([file, null]);
    expect(detectUnsupportedRaw(new Uint8Array(0))).toBeNull();
    expect(unsupportedRawError(fixture('pairs/canon_eos_30d_cr2/IMG_5952.CR2'))).toBeNull();
  });
});
