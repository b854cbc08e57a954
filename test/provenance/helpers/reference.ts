/**
 * The reference implementation (c2pa-python, a prebuilt c2pa-rs) through
 * scripts/c2pa-python-check.py. Tests that use it run when `import c2pa` works; otherwise they
 * skip and the run's skip summary says why (test/support/requires.ts).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { requires } from '../../support/requires.js';
import { repoRoot } from './paths.js';

export const c2paPython = requires(
  {
    server: 'c2pa-python (the reference C2PA implementation) for python3',
    available: spawnSync('python3', ['-c', 'import c2pa'], { encoding: 'utf8' }).status === 0,
    how: 'pip install c2pa-python',
  },
  'the cross-checks against c2pa-python',
);
export const pythonAvailable = c2paPython.available;

export interface ReferenceResult {
  validation_state?: 'Invalid' | 'Valid' | 'Trusted';
  /** Failure codes of the active manifest. */
  failures?: string[];
  /** Failure codes of every ingredient delta. */
  ingredient_failures?: string[];
  /** The reader refused the file (no manifest, remote manifest, unknown algorithm, pre-release...). */
  error?: string;
}

/** Reads `bytes` with c2pa-python, offline, with `anchorPem` as the only trust anchors if given. */
export function referenceRead(bytes: Uint8Array, mime: string, anchorPem?: string): ReferenceResult {
  const dir = mkdtempSync(path.join(tmpdir(), 'pv-ref-'));
  try {
    const file = path.join(dir, 'asset');
    writeFileSync(file, bytes);
    const args = [path.join(repoRoot, 'scripts/c2pa-python-check.py'), file, mime];
    if (anchorPem) {
      writeFileSync(path.join(dir, 'anchors.pem'), anchorPem);
      args.push(path.join(dir, 'anchors.pem'));
    }
    const result = spawnSync('python3', args, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`c2pa-python-check.py failed: ${result.stderr}`);
    return JSON.parse(result.stdout) as ReferenceResult;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
