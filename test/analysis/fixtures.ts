import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Sharp } from 'sharp';

export const fixtures = path.resolve(import.meta.dirname, '../../../shared/fixtures');
export const fixture = (p: string) => new Uint8Array(readFileSync(path.join(fixtures, p)));
export const camera30d = {
  raw: 'pairs/canon_eos_30d_cr2/IMG_5952.CR2',
  jpeg: 'pairs/canon_eos_30d_cr2/IMG_5952.camera-preview.jpg',
};
export const encode = async (s: Sharp) => new Uint8Array(await s.jpeg({ quality: 90 }).toBuffer());
