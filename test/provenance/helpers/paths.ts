import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const fixtures = path.resolve(repo, '../shared/fixtures');
export const fixture = (...parts: string[]) => path.join(fixtures, ...parts);
export const repoRoot = repo;
