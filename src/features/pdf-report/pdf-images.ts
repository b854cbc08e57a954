import sharp from 'sharp';
import QRCode from 'qrcode';
import type { ReportSource, SharedFileKind } from '../sharing/index.js';

/**
 * The images of the PDF report, small: the report's files downscaled to JPEGs (a 24 MP photo
 * would make a 10 MB report; a print-sized preview is enough to recognise it) and the share
 * link's QR code.
 */

const PHOTO_SIDE = 1400;
const EVIDENCE_SIDE = 900;

async function downscaled(bytes: Buffer, side: number): Promise<Uint8Array | null> {
  try {
    return await sharp(bytes, { limitInputPixels: false }).rotate().resize({ width: side, height: side, fit: 'inside', withoutEnlargement: true }).flatten({ background: '#ffffff' }).jpeg({ quality: 78 }).toBuffer();
  } catch {
    // A format sharp cannot decode (HEIC): the caller falls back to another file or shows none.
    return null;
  }
}

async function fileAsJpeg(source: ReportSource, kind: SharedFileKind, side: number): Promise<Uint8Array | null> {
  if (!source.report.files[kind]) return null;
  const bytes = await source.file(kind);
  return bytes ? downscaled(bytes, side) : null;
}

/** The photo as the report page shows it: the image, or its thumbnail when the image cannot be decoded. */
export async function photoJpeg(source: ReportSource): Promise<Uint8Array | null> {
  return (await fileAsJpeg(source, 'image', PHOTO_SIDE)) ?? fileAsJpeg(source, 'thumbnail', PHOTO_SIDE);
}

/** The pair's evidence the report page shows beside its analyses: the SSIM heatmap and the RAW rendered and aligned to the photo. */
export async function evidenceJpegs(source: ReportSource): Promise<{ caption: string; jpeg: Uint8Array }[]> {
  if (source.report.verification_mode !== 'raw_pair') return [];
  const items = [
    { kind: 'heatmap' as const, caption: 'SSIM difference heatmap: black where the photo matches the RAW, blue where it differs.' },
    { kind: 'raw_reference' as const, caption: 'The RAW file rendered and aligned to the photo (the flicker comparison’s reference).' },
  ];
  const made = await Promise.all(items.map(async (item) => ({ caption: item.caption, jpeg: await fileAsJpeg(source, item.kind, EVIDENCE_SIDE) })));
  return made.filter((m): m is { caption: string; jpeg: Uint8Array } => m.jpeg !== null);
}

export const qrCodePng = (url: string): Promise<Uint8Array> => QRCode.toBuffer(url, { type: 'png', errorCorrectionLevel: 'M', margin: 2, scale: 4 });
