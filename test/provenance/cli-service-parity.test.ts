/**
 * One trust configuration: the service's image-only path and `photoverify credentials` (the
 * compiled CLI, as users run it) give every C2PA fixture the same verdict and reason when the
 * CLI is pointed at the service's data directory. Without it, the CLI does not know the
 * service's development CA, which is exactly what made them disagree before (issue 10).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureDevelopmentSigner } from '../../src/provenance/dev-signer.js';
import { signVerifiedImage } from '../../src/provenance/sign.js';
import { databaseTargets } from '../support/databases.js';
import { registerAccount } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';
import { fixture, fixtures, repoRoot } from './helpers/paths.js';

const bin = path.join(repoRoot, 'bin/photoverify.mjs');
const c2paFiles = fs.readdirSync(path.join(fixtures, 'c2pa')).sort();

interface Outcome {
  verdict: string;
  verdict_reason: string;
  assurance_level: string;
}

/** The environment without any trust setting of the machine running the tests. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('C2PA_') || key === 'DATA_DIR') delete env[key];
  return { ...env, ...extra };
}

function cli(args: string[], env = cleanEnv()): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'credentials', ...args], { cwd: repoRoot, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

async function cliOutcome(file: string, args: string[], env?: NodeJS.ProcessEnv): Promise<Outcome> {
  const result = await cli([file, '--json', ...args], env);
  if (result.status !== 0) throw new Error(`photoverify credentials ${path.basename(file)}: exit ${result.status}: ${result.stderr}`);
  const report = JSON.parse(result.stdout) as Outcome;
  return { verdict: report.verdict, verdict_reason: report.verdict_reason, assurance_level: report.assurance_level };
}

/** Runs `work` over `items`, `limit` at a time (two cores: the CLI processes load wasm). */
async function pooled<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await work(items[i]!);
      }
    }),
  );
  return results;
}

const target = databaseTargets[0]!;

describe('CLI and service agree on every C2PA fixture (one trust configuration)', { timeout: 300_000 }, () => {
  const { t, call } = serviceSuite(target, { MAX_UPLOAD_BYTES: String(8 * 1024 * 1024) });
  let token: string;

  async function serviceOutcome(name: string, bytes: Uint8Array): Promise<Outcome | { status: number; error_code: string }> {
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(bytes)]), name);
    const response = await fetch(`${t.url}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    const created = (await response.json()) as { id?: string; detail?: { error_code: string } };
    if (response.status !== 201) return { status: response.status, error_code: created.detail?.error_code ?? '?' };
    for (let i = 0; i < 480; i++) {
      const v = (await call('GET', `/v1/verifications/${created.id}`, { token })).body as Outcome & { status: string };
      if (v.status === 'completed') return { verdict: v.verdict, verdict_reason: v.verdict_reason, assurance_level: v.assurance_level };
      if (v.status === 'failed') throw new Error(`${name}: verification failed`);
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`${name}: verification did not finish`);
  }

  beforeAll(async () => {
    token = (await registerAccount(call)).token;
  });

  it('same verdict and reason from the API and from `photoverify credentials FILE --json --data-dir DATA_DIR`', async () => {
    const [service, viaCli] = await Promise.all([
      pooled(c2paFiles, 2, (file) => serviceOutcome(file, fs.readFileSync(fixture('c2pa', file)))),
      pooled(c2paFiles, 2, (file) => cliOutcome(fixture('c2pa', file), ['--data-dir', t.dataDir])),
    ]);
    const compared = c2paFiles.map((file, i) => ({ file, service: service[i], cli: viaCli[i] }));
    for (const { file, service: s, cli: c } of compared) expect([file, c]).toEqual([file, s]);
    // The case of issue 10: a valid credential of a test signer is judged against the same
    // anchors (the development CA) by both, so both say untrusted_signer, not trust_unverified.
    expect(compared.find((r) => r.file === 'pt_adobe-20220124-C.jpg')?.cli).toMatchObject({ verdict: 'unrated', verdict_reason: 'untrusted_signer' });
  });

  it("DATA_DIR works like --data-dir; the service's own credentials read Trusted in both", async () => {
    const development = await ensureDevelopmentSigner(t.dataDir);
    const signed = await signVerifiedImage(
      {
        image: fs.readFileSync(fixture('pairs/canon_eos_30d_cr2/IMG_5952.camera-preview.jpg')),
        format: 'image/jpeg',
        raw: { bytes: new Uint8Array(0), name: 'IMG_5952.CR2', format: 'image/x-canon-cr2' },
        assertion: {
          verificationId: 'parity',
          assuranceLevel: 'verified',
          captureVerified: true,
          imageSha256: '0'.repeat(64),
          rawSha256: '0'.repeat(64),
          pipelineBuild: 'test',
          processingRegion: 'eu-central-1',
        },
      },
      development.signer,
    );
    const file = path.join(t.dataDir, 'signed-by-service.jpg');
    fs.writeFileSync(file, signed);
    const expected = { verdict: 'provenance_verified', verdict_reason: 'c2pa_trusted_capture', assurance_level: 'provenance' };
    expect(await serviceOutcome('signed-by-service.jpg', signed)).toEqual(expected);
    expect(await cliOutcome(file, ['--data-dir', t.dataDir])).toEqual(expected);
    expect(await cliOutcome(file, [], cleanEnv({ DATA_DIR: t.dataDir }))).toEqual(expected);
    // Without the data directory the CLI has no anchor at all: trust cannot be checked.
    expect(await cliOutcome(file, [])).toMatchObject({ verdict: 'unrated', verdict_reason: 'trust_unverified' });
  });
});
