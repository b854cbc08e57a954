/** Paths into the shared, read-only fixtures (never copied into the repository). */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const fixturesDir = path.resolve(repo, '../shared/fixtures');

export function fixture(relative: string): Uint8Array {
  return new Uint8Array(readFileSync(path.join(fixturesDir, relative)));
}

export function fixtureFiles(folder: string): string[] {
  return readdirSync(path.join(fixturesDir, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(fixturesDir, path.join(entry.parentPath, entry.name)))
    .sort();
}

export const canon30d = 'pairs/canon_eos_30d_cr2/IMG_5952.CR2';
export const canon30dJpeg = 'pairs/canon_eos_30d_cr2/IMG_5952.camera-preview.jpg';
export const canon6dDng = 'pairs/canon_eos_6d_dng/canon_eos_6d.dng';
