/**
 * Image format detection by content (magic bytes), never by file name or declared type.
 * DNG is only recognised for reading Content Credentials; it is not an image-only upload format.
 */

export type ImageFormat = 'jpeg' | 'png' | 'webp' | 'heif' | 'avif' | 'tiff' | 'gif' | 'dng';

/** The media type c2pa-rs expects for each format. */
export const mimeTypes: Record<ImageFormat, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  heif: 'image/heic',
  avif: 'image/avif',
  tiff: 'image/tiff',
  gif: 'image/gif',
  dng: 'image/x-adobe-dng',
};

const ascii = (bytes: Uint8Array, start: number, end: number): string =>
  Buffer.from(bytes.subarray(start, end)).toString('latin1');

const HEIF_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'mif1', 'msf1', 'mif2']);
const AVIF_BRANDS = new Set(['avif', 'avis']);

function bmffFormat(bytes: Uint8Array): ImageFormat | undefined {
  if (bytes.length < 16 || ascii(bytes, 4, 8) !== 'ftyp') return undefined;
  const boxSize = Math.min(Buffer.from(bytes).readUInt32BE(0), bytes.length);
  const major = ascii(bytes, 8, 12);
  const compatible: string[] = [];
  for (let offset = 16; offset + 4 <= boxSize; offset += 4) compatible.push(ascii(bytes, offset, offset + 4));
  if (AVIF_BRANDS.has(major) || (major === 'mif1' && compatible.some((b) => AVIF_BRANDS.has(b)))) return 'avif';
  if (HEIF_BRANDS.has(major) || compatible.some((b) => HEIF_BRANDS.has(b))) return 'heif';
  return undefined;
}

/** A TIFF whose first IFD carries DNGVersion (tag 0xC612) is a DNG. */
function isDng(bytes: Uint8Array): boolean {
  const view = Buffer.from(bytes);
  const little = view[0] === 0x49;
  const u16 = (o: number) => (little ? view.readUInt16LE(o) : view.readUInt16BE(o));
  const u32 = (o: number) => (little ? view.readUInt32LE(o) : view.readUInt32BE(o));
  const ifd = u32(4);
  if (ifd + 2 > view.length) return false;
  const count = u16(ifd);
  for (let i = 0; i < count; i++) {
    const entry = ifd + 2 + i * 12;
    if (entry + 2 > view.length) return false;
    if (u16(entry) === 0xc612) return true;
  }
  return false;
}

export function detectImageFormat(bytes: Uint8Array): ImageFormat | undefined {
  if (bytes.length < 12) return undefined;
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (ascii(bytes, 0, 8) === '\x89PNG\r\n\x1a\n') return 'png';
  if (ascii(bytes, 0, 6) === 'GIF87a' || ascii(bytes, 0, 6) === 'GIF89a') return 'gif';
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') return 'webp';
  const tiffHeader = ascii(bytes, 0, 4);
  if (tiffHeader === 'II*\0' || tiffHeader === 'MM\0*') return isDng(bytes) ? 'dng' : 'tiff';
  return bmffFormat(bytes);
}
