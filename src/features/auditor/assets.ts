import fs from 'node:fs';
import path from 'node:path';
import { NotFoundError } from '../../core/errors.js';
import { packageRoot } from '../../core/package-root.js';

/**
 * The offline verifier as the browser loads it: the very files `tsc` compiled from
 * src/core/audit-verify.ts and the canonical-json.ts it imports (dist/src/core/), so the page
 * runs the code the CLI runs. Only these two names are served; read once, kept.
 */
export const verifierFiles = ['audit-verify.js', 'canonical-json.js'] as const;
export type VerifierFile = (typeof verifierFiles)[number];

const cache = new Map<VerifierFile, Buffer>();

export function verifierFile(name: string): Buffer {
  const file = verifierFiles.find((f) => f === name);
  if (!file) throw new NotFoundError('NOT_FOUND', `No asset ${name}.`, { suggestion: `Assets: ${verifierFiles.join(', ')}.` });
  let bytes = cache.get(file);
  if (!bytes) {
    const source = path.join(packageRoot, 'dist/src/core', file);
    if (!fs.existsSync(source)) throw new NotFoundError('NOT_FOUND', `${file} has not been built.`, { suggestion: 'Run npm run build.' });
    // The source map is not served: the comment would only send the browser's tools after a 404.
    bytes = Buffer.from(fs.readFileSync(source, 'utf8').replace(/\n\/\/# sourceMappingURL=.*\s*$/, '\n'));
    cache.set(file, bytes);
  }
  return bytes;
}
