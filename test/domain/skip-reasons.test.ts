import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * A suite that cannot run says why in the default output of `npm test`: every skip goes through
 * test/support/requires.ts, and its reporter prints the reasons in one block.
 */
const root = path.resolve(import.meta.dirname, '../..');

function testFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return /\.(ts|mts)$/.test(entry.name) ? [full] : [];
  });
}

describe('skip reasons', () => {
  it('every conditional skip in the tests goes through the one helper', () => {
    // Written split so this file does not match its own search.
    const direct = new RegExp(['\\.skip' + 'If\\(', 'describe\\.' + 'skip\\b', 'it\\.' + 'skip\\b', '\\.run' + 'If\\('].join('|'));
    const offenders = [...testFiles(path.join(root, 'test')), ...testFiles(path.join(root, 'src')).filter((f) => f.endsWith('.spec.ts'))]
      .filter((file) => !file.endsWith(path.join('support', 'requires.ts')))
      .filter((file) => direct.test(fs.readFileSync(file, 'utf8')))
      .map((file) => path.relative(root, file));
    expect(offenders).toEqual([]);
  });

  it('the default reporter output names the missing server and the variable that enables it', () => {
    // A real vitest run of a suite whose server is absent, with only the configured (default) reporters.
    const env = { ...process.env, MAILPIT_URL: '', DATABASE_URL: '', CI: '', NO_COLOR: '1' };
    const run = spawnSync(process.execPath, [path.join(root, 'node_modules/vitest/vitest.mjs'), 'run', 'test/mail/mailpit.test.ts'], {
      cwd: root,
      env,
      encoding: 'utf8',
      timeout: 300_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines.find((line) => line.includes('Mailpit') && line.includes('MAILPIT_URL') && line.includes('mailpit.test.ts'))).toBeDefined();
    expect(lines.find((line) => line.includes('PostgreSQL') && line.includes('DATABASE_URL'))).toBeDefined();
    // Said once, in the summary block, not once per file as well.
    expect(lines.filter((line) => line.includes('MAILPIT_URL'))).toHaveLength(1);
  });
});
