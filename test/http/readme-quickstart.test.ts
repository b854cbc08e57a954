import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { runInRepo } from '../support/processes.js';
import { serviceSuite } from '../support/suite.js';

/**
 * The README's quick start, run verbatim: its shell blocks, extracted from README.md, in order,
 * by bash with `set -eo pipefail`, in the repository (so `../shared/fixtures` picks the sample
 * pair and `npx photoverify` is this package), against a started service. Only the service's
 * address (PHOTOVERIFY_URL) and data directory (DATA_DIR) come from the test.
 */
const repo = path.resolve(import.meta.dirname, '../..');
const readme = fs.readFileSync(path.join(repo, 'README.md'), 'utf8');

function section(title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  expect(start, `README has a "## ${title}" section`).toBeGreaterThan(-1);
  const end = readme.indexOf('\n## ', start + 4);
  return readme.slice(start, end === -1 ? undefined : end);
}

const shellBlocks = (text: string) => [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);

describe('the README', () => {
  it('opens with the two commands: install and run on embedded defaults, and the whole test suite', () => {
    const firstHeading = readme.match(/^## (.+)$/m)?.[1];
    expect(firstHeading).toBe('Two commands');
    const [block] = shellBlocks(section('Two commands'));
    expect(block).toMatch(/^npm install && npm start\s/m);
    expect(block).toMatch(/^npm test\s/m);
  });

  it('quick start: unmistakable placeholders, a sample-file variant, and credentials on every call but health', () => {
    const script = shellBlocks(section('Quick start')).join('\n');
    expect(script).toContain('PHOTO=YOUR_PHOTO.jpg');
    expect(script).toMatch(/if \[ -d \.\.\/shared\/fixtures \]; then/);
    expect(script).toMatch(/^API_KEY=\$\(curl .*\/v1\/apikeys\//m);
    // Every request names its credentials, except health, registration and login (which give them).
    const requests = script.replace(/\\\n/g, ' ').split('\n').filter((line) => /\bcurl\b/.test(line));
    expect(requests.length).toBeGreaterThan(8);
    for (const line of requests) {
      if (/\/v1\/public\/health|\/v1\/accounts"|\/v1\/accounts\/login/.test(line)) continue;
      expect(line, 'an unauthenticated request').toMatch(/X-API-Key: \$API_KEY|authorization: Bearer \$TOKEN/);
    }
    // The login token is only for creating the key; everything after uses the key.
    const afterKey = script.slice(script.indexOf('API_KEY=$('));
    expect(afterKey.split('\n').slice(2).join('\n')).not.toContain('$TOKEN');
    expect(script).not.toMatch(/\bjq\b/);
  });
});

describe('the README quick start, run verbatim against the service', () => {
  const { t } = serviceSuite(databaseTargets[0]!);
  const badge = path.join(repo, 'badge.jpg');
  const kept = path.join(os.tmpdir(), `pv-badge-kept-${process.pid}.jpg`);
  beforeAll(async () => {
    // The quick start writes badge.jpg where it runs; keep a developer's own file aside.
    if (fs.existsSync(badge)) fs.renameSync(badge, kept);
  });
  afterAll(async () => {
    fs.rmSync(badge, { force: true });
    if (fs.existsSync(kept)) fs.renameSync(kept, badge);
  });

  it('registers, creates and uses an API key, verifies the sample pair, and runs the CLI', { timeout: 600_000 }, async () => {
    const script = `set -eo pipefail\n${shellBlocks(section('Quick start')).join('\n')}`;
    const run = await runInRepo('bash', ['-c', script], { PHOTOVERIFY_URL: t.url, DATA_DIR: t.dataDir, PHOTOVERIFY_API_KEY: '', NO_COLOR: '1' });
    const context = `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
    expect(run.code, context).toBe(0);
    const lines = run.stdout.split('\n');
    // Health, registration, and the key authenticating /v1/accounts/me.
    expect(lines.slice(0, 3), context).toEqual(['ok', 'admin', 'api_key']);
    // The sample pair, then the same photo alone.
    expect(lines).toContain('verified');
    expect(lines).toContain('unrated');
    expect(run.stdout).toMatch(/"analysis": "ssim"/);
    expect(run.stdout).toMatch(/"type": "VerificationQueued"/);
    expect(run.stdout).toMatch(/"type": "VerificationGraded"/);
    // The CLI: verify (through the service, with the key) and analyze (locally) agree; credentials reads the photo.
    expect(run.stdout).toMatch(/Status:\s+completed/);
    expect(run.stdout).toMatch(/Grade: VERIFIED/);
    expect(run.stdout).toMatch(/Credentials: no_manifest/);
    expect(run.stderr).not.toMatch(/in the response:/);
    const bytes = fs.readFileSync(badge);
    expect([bytes[0], bytes[1]]).toEqual([0xff, 0xd8]);
  });
});
