import fs from 'node:fs';
import path from 'node:path';
import { NotFoundError } from '../../core/errors.js';
import { packageRoot } from '../../core/package-root.js';

/**
 * The offline verifier as the browser loads it: the very files `tsc` compiled from
 * src/core/audit/audit-verify.ts, the canonical-json.ts and der-read.ts it imports, and the read models' folds it
 * replays a bundle with (replays.ts: projections/<feature>/replay.ts, which import nothing), so
 * the page runs the code the CLI and the projectors run. Only these names are served; read once, kept.
 */
const VERIFIER_SOURCES = {
  'audit-verify.js': 'dist/src/core/audit/audit-verify.js',
  'canonical-json.js': 'dist/src/core/audit/canonical-json.js',
  'der-read.js': 'dist/src/core/audit/der-read.js',
  'verification-replay.js': 'dist/projections/verifications/replay.js',
  'psd-export-replay.js': 'dist/projections/psd-export/replay.js',
} as const;
export type VerifierFile = keyof typeof VERIFIER_SOURCES;
export const verifierFiles = Object.keys(VERIFIER_SOURCES) as VerifierFile[];

/** What the page imports for each stream kind's replay (BundleReplays), by file. */
export const replayFiles: Record<'verification' | 'psdexport', VerifierFile> = { verification: 'verification-replay.js', psdexport: 'psd-export-replay.js' };

const cache = new Map<VerifierFile, Buffer>();

export function verifierFile(name: string): Buffer {
  const file = verifierFiles.find((f) => f === name);
  if (!file) throw new NotFoundError('NOT_FOUND', `No asset ${name}.`, { suggestion: `Assets: ${verifierFiles.join(', ')}.` });
  let bytes = cache.get(file);
  if (!bytes) {
    const source = path.join(packageRoot, VERIFIER_SOURCES[file]);
    if (!fs.existsSync(source)) throw new NotFoundError('NOT_FOUND', `${file} has not been built.`, { suggestion: 'Run npm run build.' });
    // The source map is not served: the comment would only send the browser's tools after a 404.
    bytes = Buffer.from(fs.readFileSync(source, 'utf8').replace(/\n\/\/# sourceMappingURL=.*\s*$/, '\n'));
    cache.set(file, bytes);
  }
  return bytes;
}
