/**
 * Vitest globalSetup: compiles src/ to dist/ once before any suite runs, so the tests that
 * spawn the service or the CLI (bin/photoverify.mjs, dist/main.js) never run a stale build.
 * `tsc -b` is incremental: a fresh dist/ costs ~0.1 s.
 *
 * Type errors do not stop the run: tsc still writes every file (its exit code 2 says
 * "diagnostics present, outputs generated"), the in-process suites do not need dist/ at all, and
 * `npm run typecheck` is where types are judged. They are printed so nobody misses them.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

const repo = path.resolve(import.meta.dirname, '../..');

export default function buildOnce(): void {
  const tsc = path.join(path.dirname(createRequire(import.meta.url).resolve('@typescript/native/package.json')), 'bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-b', 'tsconfig.build.json'], { cwd: repo, encoding: 'utf8' });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim();
  if (result.status === 2) process.stderr.write(`[build] dist/ written, with type errors (npm run typecheck):\n${output}\n`);
  if (result.status === 0 || result.status === 2) {
    // The empty-cluster template fresh embedded databases start from (scripts/pglite-template.mjs).
    const template = spawnSync(process.execPath, ['scripts/pglite-template.mjs'], { cwd: repo, encoding: 'utf8' });
    if (template.status !== 0) process.stderr.write(`[build] no PGlite template (databases start slower): ${template.stderr}\n`);
    return;
  }
  throw new Error(`npm run build failed (${result.error?.message ?? `exit ${result.status}`}): the tests that spawn dist/ cannot run.\n${output}`);
}
