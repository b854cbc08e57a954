/**
 * What kind of file a buffer holds, from its bytes only (never the file name): camera RAW
 * containers by magic number and TIFF structure, and common non-RAW kinds so a renamed file
 * gets a specific message.
 */
import { FileError } from '../../core/errors.js';
import { rawFormats, type RawFormat } from '../types.js';
import { readTiff, Tag, tagText, type TiffFile } from './tiff.js';

/** What detectRawFormat accepts, for messages: "CR2, CR3, ARW, NEF, DNG, RAF, ORF, RW2, PEF, SRW". */
export const supportedRawFormats = rawFormats.join(', ');

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

/**
 * Camera RAW formats recognised by content but not supported, each as LibRaw (identify.cpp)
 * and RawSpeed (the decoders' isAppropriateDecoder) recognise it:
 * - by magic number: Canon CRW (CIFF: byte order "II"/"MM", "HEAPCCDR" at offset 6), Minolta
 *   MRW ("\0MRM"), Sigma/Foveon X3F ("FOVb"), Phase One IIQ (a little-endian TIFF whose byte 8
 *   starts the "IIII" Phase One block, tagged "Raw": bytes 13-15 "waR");
 * - TIFF containers told apart only by the maker's Make tag (exact strings from RawSpeed),
 *   and only with RAW markers (CFA photometric, SubIFDs...) so a scanner's or an editor's TIFF
 *   carrying the same Make stays a TIFF: Hasselblad 3FR, Leaf MOS, Mamiya MEF, Epson ERF,
 *   Kodak DCR/KDC.
 */
const unsupportedByMake: [RegExp, string][] = [
  [/^hasselblad/i, 'Hasselblad 3FR'],
  [/^leaf\b/i, 'Leaf MOS'],
  [/^mamiya/i, 'Mamiya MEF'],
  [/^seiko epson/i, 'Epson ERF'],
  [/kodak/i, 'Kodak KDC/DCR'],
];

/** The name of a camera RAW format this service recognises but does not support, or null. */
export function detectUnsupportedRaw(bytes: Uint8Array): string | null {
  if (detectRawFormat(bytes)) return null;
  const order = ascii(bytes, 0, 2);
  if ((order === 'II' || order === 'MM') && ascii(bytes, 6, 8) === 'HEAPCCDR') return 'Canon CRW';
  const head = ascii(bytes, 0, 4);
  if (head === '\0MRM') return 'Minolta MRW';
  if (head === 'FOVb') return 'Sigma X3F';
  if (head === 'II*\0' && ascii(bytes, 8, 4) === 'IIII' && ascii(bytes, 13, 3) === 'waR') return 'Phase One IIQ';
  if (!isTiffHeader(bytes)) return null;
  const tiff = readTiff(bytes);
  if (!tiff || !hasRawMarkers(tiff)) return null;
  const make = tagText(tiff, Tag.Make) ?? '';
  return unsupportedByMake.find(([pattern]) => pattern.test(make))?.[1] ?? null;
}

/** "Canon CRW is a camera RAW format this service does not support; supported: CR2, ...". */
export function unsupportedRawMessage(name: string): string {
  return `${name} is a camera RAW format this service does not support; supported: ${supportedRawFormats}.`;
}

/**
 * The 400 for a recognised but unsupported RAW (null for anything else): the API's upload check
 * and the RAW decoder (so the CLI) give this same answer.
 */
export function unsupportedRawError(bytes: Uint8Array): FileError | null {
  const name = detectUnsupportedRaw(bytes);
  if (!name) return null;
  return new FileError('UNSUPPORTED_FORMAT', unsupportedRawMessage(name), {
    suggestion: 'Send the image alone for an image-only verification, or a RAW in one of the supported formats.',
    details: { detected: name, supported: [...rawFormats] },
  });
}

/** A human name for any file kind, used in error messages ("this file is a JPEG image"). */
export function describeFile(bytes: Uint8Array): string {
  if (bytes.length === 0) return 'an empty file';
  const raw = detectRawFormat(bytes);
  if (raw) return `a ${raw} camera RAW`;
  const unsupported = detectUnsupportedRaw(bytes);
  if (unsupported) return `a ${unsupported} camera RAW`;
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
  if (isTiffHeader(bytes)) return 'a TIFF image';
  return 'not a recognised image file';
}
