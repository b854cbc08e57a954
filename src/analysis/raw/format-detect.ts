/**
 * What kind of file a buffer holds, from its bytes only (never the file name): camera RAW
 * containers by magic number and TIFF structure, and common non-RAW kinds so a renamed file
 * gets a specific message.
 */
import { FileError } from '../../core/errors.js';
import { rawFormats, type RawFormat } from '../types.js';
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

/**
 * The TIFF-based RAW formats that only the maker's Make tag tells apart (exact strings from
 * LibRaw identify.cpp and RawSpeed), and only with RAW markers (CFA photometric, SubIFDs...) so
 * a scanner's or an editor's TIFF carrying the same Make stays a TIFF.
 */
const makeFormats: [RegExp, RawFormat][] = [
  [/^nikon/i, 'NEF'],
  [/^sony/i, 'ARW'],
  [/^(pentax|ricoh imaging|asahi)/i, 'PEF'],
  [/^samsung/i, 'SRW'],
  [/^hasselblad/i, '3FR'],
  [/^leaf\b/i, 'MOS'],
  [/^mamiya/i, 'MEF'],
  [/^seiko epson/i, 'ERF'],
  [/kodak/i, 'KDC'],
];

/** The names messages use for a format whose code alone says little. */
const formatNames: Partial<Record<RawFormat, string>> = {
  CRW: 'Canon CRW',
  KDC: 'Kodak KDC/DCR',
  QTK: 'Apple QuickTake',
  MRW: 'Minolta MRW',
  '3FR': 'Hasselblad 3FR',
  IIQ: 'Phase One IIQ',
  MOS: 'Leaf MOS',
  MEF: 'Mamiya MEF',
  ERF: 'Epson ERF',
};

/** "Canon CRW", "CR2": the format as messages name it. */
export function rawFormatName(format: RawFormat): string {
  return formatNames[format] ?? format;
}

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

/**
 * The RAW format a file's bytes name, as LibRaw's identify step recognises it: by magic number
 * (RAF, CR3, ORF, RW2, Canon CRW's CIFF "HEAPCCDR" at offset 6, Minolta "\0MRM", QuickTake
 * "qktk"/"qktn", Phase One IIQ's "IIII" block tagged "Raw"), then TIFF structure (CR2, DNG) and
 * the maker's Make tag. Only names the format and refuses non-RAW files fast: whether the file
 * decodes is LibRaw's answer (decode.ts).
 */
export function detectRawFormat(bytes: Uint8Array): RawFormat | null {
  if (ascii(bytes, 0, 15) === 'FUJIFILMCCD-RAW') return 'RAF';
  if (bmffBrand(bytes) === 'crx ') return 'CR3';
  const head = ascii(bytes, 0, 4);
  if (head === 'IIRO' || head === 'IIRS' || head === 'MMOR') return 'ORF';
  if (head === 'IIU\0') return 'RW2';
  if (head === '\0MRM') return 'MRW';
  if (head === 'qktk' || head === 'qktn') return 'QTK';
  const order = ascii(bytes, 0, 2);
  if ((order === 'II' || order === 'MM') && ascii(bytes, 6, 8) === 'HEAPCCDR') return 'CRW';
  if (!isTiffHeader(bytes)) return null;
  if (head === 'II*\0' && ascii(bytes, 8, 4) === 'IIII' && ascii(bytes, 13, 3) === 'waR') return 'IIQ';
  if (ascii(bytes, 8, 2) === 'CR') return 'CR2';
  const tiff = readTiff(bytes);
  if (!tiff) return null;
  if (tiff.ifds.some((ifd) => ifd.entries.has(Tag.DNGVersion))) return 'DNG';
  const make = tagText(tiff, Tag.Make) ?? '';
  const byMake = makeFormats.find(([pattern]) => pattern.test(make));
  return byMake && hasRawMarkers(tiff) ? byMake[1] : null;
}

/** What detectRawFormat accepts, for messages: "CR2, CR3, ..., Canon CRW, Kodak KDC/DCR, ...". */
export const supportedRawFormats = rawFormats.map(rawFormatName).join(', ');

/**
 * Camera RAW formats LibRaw recognises but the LibRaw in this service cannot decode, with why:
 * Sigma/Foveon X3F ("FOVb"): LibRaw 0.21 removed its X3F decoder (libraw-wasm is built on it).
 * (GoPro GPR is a DNG whose VC-5 codec is reported as an unsupported variant by decode.ts.)
 */
const undecodable: [(bytes: Uint8Array) => boolean, string, string][] = [
  [(bytes) => ascii(bytes, 0, 4) === 'FOVb', 'Sigma X3F', 'LibRaw 0.21, which this service decodes with, no longer includes a Foveon X3F decoder'],
];

/** The name of a camera RAW format this service recognises but cannot decode, or null. */
export function detectUnsupportedRaw(bytes: Uint8Array): string | null {
  if (detectRawFormat(bytes)) return null;
  return undecodable.find(([matches]) => matches(bytes))?.[1] ?? null;
}

/** "Sigma X3F is a camera RAW format this service cannot decode: <why>; supported: CR2, ...". */
export function unsupportedRawMessage(name: string): string {
  const why = undecodable.find(([, known]) => known === name)?.[2];
  return `${name} is a camera RAW format this service cannot decode${why ? ` (${why})` : ''}; supported: ${supportedRawFormats}.`;
}

/**
 * The 400 for a recognised but undecodable RAW (null for anything else): the API's upload check
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
  if (raw) {
    const name = rawFormatName(raw);
    return `${/^[AEIO]/.test(name) ? 'an' : 'a'} ${name} camera RAW`;
  }
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
