/**
 * The badge rendition (spec 4.1 renditions/signed/original): the original photo with a date
 * stamp at its bottom right and a dark strip below it carrying the service name, shutter,
 * aperture, ISO and `REF: <short_code>`. Deliberately no QR code, logo, URL or "verified".
 * `badgeLayout` is pure (and what the tests read); `renderBadge` draws it with sharp.
 */
import sharp from 'sharp';
import type { CameraMetadata } from '../analysis/types.js';
import { FileError } from '../core/errors.js';

export interface BadgeInput {
  jpeg: Uint8Array;
  /** The verification's server-side created_at (not the capture time). */
  createdAt: Date;
  metadata: Pick<CameraMetadata, 'exposureTime' | 'fNumber' | 'iso'>;
  shortCode?: string;
  serviceName: string;
}

export interface BadgeLayout {
  width: number;
  photoHeight: number;
  stripHeight: number;
  dateStamp: string;
  stripItems: string[];
  svg: string;
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
export const STRIP_COLOUR = { r: 17, g: 17, b: 17 };
const FONT = "'DejaVu Sans', 'Liberation Sans', Arial, sans-serif";

/** `19 SEP '26`, in UTC. */
export function formatDateStamp(date: Date): string {
  const year = String(date.getUTCFullYear() % 100).padStart(2, '0');
  return `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} '${year}`;
}

/** 1/400 for fractions of a second, 2s or 1.3s otherwise. */
export function formatShutter(seconds: number): string {
  if (seconds >= 1) return `${Number(seconds.toFixed(1))}s`;
  return `1/${Math.round(1 / seconds)}`;
}

export const formatAperture = (fNumber: number): string => `f/${Number(fNumber.toFixed(1))}`;

/** A value the camera recorded: 0 (and anything not a positive number) is unknown and shown as nothing, never made up. */
const known = (value: number | undefined): value is number => typeof value === 'number' && Number.isFinite(value) && value > 0;

const escapeXml = (text: string): string =>
  text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] ?? c);

export function badgeLayout(width: number, photoHeight: number, input: Omit<BadgeInput, 'jpeg'>): BadgeLayout {
  const stripHeight = Math.max(40, Math.round(Math.min(width, photoHeight * 1.5) * 0.06));
  const { exposureTime, fNumber, iso } = input.metadata;
  const exposure = [
    known(exposureTime) ? formatShutter(exposureTime) : undefined,
    known(fNumber) ? formatAperture(fNumber) : undefined,
    known(iso) ? `ISO ${Math.round(iso)}` : undefined,
  ].filter((s): s is string => s !== undefined);
  const stripItems = [input.serviceName, exposure.join('   '), ...(input.shortCode ? [`REF: ${input.shortCode}`] : [])].filter(Boolean);
  const dateStamp = formatDateStamp(input.createdAt);
  const font = Math.round(stripHeight * 0.42);
  const dateFont = Math.round(stripHeight * 0.5);
  const margin = Math.round(stripHeight * 0.5);
  const baseline = photoHeight + Math.round(stripHeight * 0.64);
  const [service = '', settings = '', ref] = stripItems;
  const text = (x: number, anchor: string, value: string, weight = 'normal') =>
    `<text xml:space="preserve" x="${x}" y="${baseline}" text-anchor="${anchor}" font-family="${FONT}" font-size="${font}" font-weight="${weight}" fill="#f2f2f2">${escapeXml(value)}</text>`;
  const svg = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${photoHeight + stripHeight}">`,
    // Date stamp in the photo's bottom-right corner, with a dark outline so it reads on any background.
    `<text x="${width - margin}" y="${photoHeight - margin}" text-anchor="end" font-family="${FONT}" font-size="${dateFont}" font-weight="bold" fill="#ff9a2e" stroke="#000000" stroke-opacity="0.6" stroke-width="${Math.max(1, Math.round(dateFont / 14))}" paint-order="stroke">${escapeXml(dateStamp)}</text>`,
    text(margin, 'start', service, 'bold'),
    text(ref ? Math.round(width / 2) : width - margin, ref ? 'middle' : 'end', settings),
    ...(ref ? [text(width - margin, 'end', ref)] : []),
    '</svg>',
  ].join('\n');
  return { width, photoHeight, stripHeight, dateStamp, stripItems, svg };
}

export async function renderBadge(input: BadgeInput): Promise<Uint8Array> {
  try {
    // One decode and one encode: the header gives the size as viewed (EXIF orientation applied),
    // and rotate() bakes the orientation in before the strip is added, so the strip lands at
    // the bottom as the photo is viewed.
    const image = sharp(input.jpeg, { failOn: 'error' });
    const { autoOrient } = await image.metadata();
    const layout = badgeLayout(autoOrient.width, autoOrient.height, input);
    const out = await image
      .rotate()
      .extend({ bottom: layout.stripHeight, background: STRIP_COLOUR })
      .composite([{ input: Buffer.from(layout.svg), top: 0, left: 0 }])
      .jpeg({ quality: 92 })
      .toBuffer();
    return new Uint8Array(out);
  } catch (error) {
    throw new FileError('CORRUPT_FILE', `The badge could not be rendered: ${error instanceof Error ? error.message : String(error)}`, {
      suggestion: 'The original must be a complete JPEG.',
      cause: error,
    });
  }
}
