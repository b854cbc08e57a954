import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture, repoRoot } from './helpers/paths.js';

const bin = path.join(repoRoot, 'bin/photoverify.mjs');
const run = (...args: string[]) => spawnSync(process.execPath, [bin, 'credentials', ...args], { encoding: 'utf8', cwd: repoRoot });

describe('photoverify credentials', { timeout: 60_000 }, () => {
  it('prints verdict, state, signer, actions, AI declarations and status codes', () => {
    const result = run(fixture('c2pa/rs_ocsp_photoshop_genfill.jpg'));
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/Verdict:\s+self_declared_ai \(untrusted_signer_generative\)/);
    expect(result.stdout).toMatch(/state Valid/);
    expect(result.stdout).toMatch(/Signer:\s+Adobe C2PA/);
    expect(result.stdout).toMatch(/c2pa\.edited \[compositeWithTrainedAlgorithmicMedia\]/);
    expect(result.stdout).toMatch(/AI declarations:/);
    expect(result.stdout).toMatch(/signingCredential\.untrusted: /);
  });

  it('--json prints the report', () => {
    const result = run(fixture('c2pa/pt_adobe-20220124-E-dat-CA.jpg'), '--json');
    expect(result.status).toBe(0);
    const report = JSON.parse(result.stdout) as { verdict: string; evidence_report: { validation_state: string } };
    expect(report.verdict).toBe('modified_after_signing');
    expect(report.evidence_report.validation_state).toBe('Invalid');
  });

  it('--help names the trust settings it shares with the service', () => {
    const result = run('--help');
    expect(result.status).toBe(0);
    for (const name of ['--data-dir', 'DATA_DIR', 'C2PA_TRUST_ANCHORS', 'C2PA_TSA_TRUST_ANCHORS', 'C2PA_LEGACY_TRUST_ANCHORS', 'C2PA_SIGNING_KEY']) {
      expect(result.stdout).toContain(name);
    }
  });

  it('exits 2 on errors', () => {
    expect(run('/nonexistent/file.jpg').status).toBe(2);
    expect(run(fixture('SOURCES.md')).status).toBe(2);
    expect(run().status).toBe(2);
  });
});
