/**
 * The reference implementation (c2pa-python, a prebuilt c2pa-rs) through
 * scripts/c2pa-python-check.py. Tests that use it run when `import c2pa` works and show a
 * skipped test naming the reason otherwise.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from './paths.js';

export const pythonAvailable = spawnSync('python3', ['-c', 'import c2pa'], { encoding: 'utf8' }).status === 0;
export const pythonSkipReason = 'c2pa-python is not installed here (pip install c2pa-python to run the cross-check)';

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
