/**
 * What kind of file a buffer holds, from its bytes only (never the file name): camera RAW
 * containers by magic number and TIFF structure, and common non-RAW kinds so a renamed file
 * gets a specific message.
 */
import type { RawFormat } from '../types.js';
import { readTiff, Tag, tagText, type TiffFile } from './tiff.js';

function ascii(bytes: Uint8Array, start: number, length: number): string {
  if (bytes.length < start + length) return '';
  return String.fromCharCode(...bytes.subarray(start, start + length));
}

function isTiffHeader(bytes: Uint8Array): boolean {
  const head = ascii(bytes, 0, 4);
  return head === 'II*\0' || head === 'MM\0*';
}

/** ISO BMFF major brand ('crx ', 'heic', 'avif', 'isom'...) or null. */
function bmffBrand(bytes: Uint8Array): string | null {
  return ascii(bytes, 4, 4) === 'ftyp' ? ascii(bytes, 8, 4) : null;
}

/** The TIFF-based RAW formats that only the maker's Make tag tells apart. */
const makeFormats: [RegExp, RawFormat][] = [
  [/^nikon/i, 'NEF'],
  [/^sony/i, 'ARW'],
  [/^(pentax|ricoh imaging|asahi)/i, 'PEF'],
  [/^samsung/i, 'SRW'],
];

/**
 * Photometric CFA or LinearRaw, or a maker's private-data tag: separates a RAW from an ordinary
 * TIFF photo that merely carries the same camera Make (scanners, exported TIFFs).
 */
function hasRawMarkers(tiff: TiffFile): boolean {
  return tiff.ifds.some((ifd) => {
    const photometric = ifd.entries.get(Tag.PhotometricInterpretation)?.values[0];
    return (
      photometric === 32803 ||
      photometric === 34892 ||
      ifd.entries.has(50740) || // DNGPrivateData: Sony SR2 and Pentax store their raw keys here
      ifd.entries.has(Tag.SubIFDs)
    );
  });
}

export function detectRawFormat(bytes: Uint8Array): RawFormat | null {
  if (ascii(bytes, 0, 15) === 'FUJIFILMCCD-RAW') return 'RAF';
  if (bmffBrand(bytes) === 'crx ') return 'CR3';
  const head = ascii(bytes, 0, 4);
  if (head === 'IIRO' || head === 'IIRS' || head === 'MMOR') return 'ORF';
  if (head === 'IIU\0') return 'RW2';
  if (!isTiffHeader(bytes)) return null;
  if (ascii(bytes, 8, 2) === 'CR') return 'CR2';
  const tiff = readTiff(bytes);
  if (!tiff) return null;
  if (tiff.ifds.some((ifd) => ifd.entries.has(Tag.DNGVersion))) return 'DNG';
  const make = tagText(tiff, Tag.Make) ?? '';
  const byMake = makeFormats.find(([pattern]) => pattern.test(make));
  return byMake && hasRawMarkers(tiff) ? byMake[1] : null;
}

/** A human name for any file kind, used in error messages ("this file is a JPEG image"). */
export function describeFile(bytes: Uint8Array): string {
  if (bytes.length === 0) return 'an empty file';
  const raw = detectRawFormat(bytes);
  if (raw) return `a ${raw} camera RAW`;
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'a JPEG image';
  if (ascii(bytes, 0, 8) === '\x89PNG\r\n\x1a\n') return 'a PNG image';
  if (ascii(bytes, 0, 4) === 'GIF8') return 'a GIF image';
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WEBP') return 'a WebP image';
  if (ascii(bytes, 0, 2) === 'BM') return 'a BMP image';
  if (ascii(bytes, 0, 5) === '%PDF-') return 'a PDF document';
  if (ascii(bytes, 0, 4) === 'PK\x03\x04') return 'a ZIP archive';
  const brand = bmffBrand(bytes);
  if (brand) {
    if (/^(heic|heix|hevc|heim|heis|mif1|msf1)$/.test(brand)) return 'a HEIF/HEIC image';
    if (/^avi[fs]$/.test(brand)) return 'an AVIF image';
    if (/^(qt  |isom|mp4[12]|M4V |avc1|3gp\d)$/.test(brand)) return 'a video (ISO BMFF/QuickTime)';
    return `an ISO BMFF file (brand '${brand.trim()}')`;
  }
  if (isTiffHeader(bytes)) {
    const tiff = readTiff(bytes);
    const make = tiff ? tagText(tiff, Tag.Make) : undefined;
    if (make && /kodak/i.test(make) && tiff && hasRawMarkers(tiff)) return 'a Kodak KDC/DCR camera RAW';
    return 'a TIFF image';
  }
  return 'not a recognised image file';
}
