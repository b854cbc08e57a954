/**
 * `photoverify verify` end to end: the real bin, as a child process, against a real service on
 * PGlite. The child must be spawned asynchronously: the service answers from this process.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { runNode } from '../support/processes.js';
import { registerAccount } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';

const root = path.resolve(import.meta.dirname, '../..');
const bin = path.join(root, 'bin/photoverify.mjs');
const fixtures = path.resolve(root, '../shared/fixtures');
const pairJpeg = path.join(fixtures, 'pairs/canon_eos_30d_cr2/IMG_5952.camera-preview.jpg');
const pairRaw = path.join(fixtures, 'pairs/canon_eos_30d_cr2/IMG_5952.CR2');
const c2paTampered = path.join(fixtures, 'c2pa/pt_adobe-20220124-E-sig-CA.jpg');

// Without these the developer's own settings would leak into the runs.
const photoverify = (args: string[], env: Record<string, string> = {}) => runNode([bin, ...args], { PHOTOVERIFY_URL: '', PHOTOVERIFY_API_KEY: '', ...env });

/** A port nothing listens on: bind one, then let it go. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const target = databaseTargets[0]!;

// The pair case waits for a whole analysis: sized for a machine at load 10, not by the one-minute default.
describe('photoverify verify (CLI against a real service)', { timeout: 15 * 60_000 }, () => {
  const { t, call } = serviceSuite(target, { MAX_UPLOAD_BYTES: String(8 * 1024 * 1024) });
  let key: string;
  let scratch: string;
  const common = () => ['--url', t.url, '--key', key, '--interval', '0.2'];

  beforeAll(async () => {
    const owner = await registerAccount(call);
    const created = await call('POST', '/v1/apikeys/', { token: owner.token, json: { account_id: owner.account.id } });
    expect(created.status).toBe(201);
    key = created.body.raw_key;
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-cli-'));
  });
  afterAll(() => {
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('verifies the Canon 30D pair: exit 0, verified, analyses and short code printed, progress on stderr', async () => {
    const run = await photoverify(['verify', '--image', pairJpeg, '--raw', pairRaw, ...common()]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Status:\s+completed$/m);
    expect(run.stdout).toMatch(/^Assurance:\s+verified/m);
    expect(run.stdout).toMatch(/^Short code:\s+L-[0-9A-Z]{6}$/m);
    expect(run.stdout).toMatch(/^Confidence:\s+0\.\d{3}/m);
    for (const analysis of ['raw_integrity', 'sensor_pattern', 'ssim', 'recapture']) expect(run.stdout).toMatch(new RegExp(`^  ${analysis}\\s+pass`, 'm'));
    expect(run.stderr).toMatch(/created verification [0-9a-f-]{36}/);
    expect(run.stderr).toMatch(/\] (queued|in_progress)$/m);
    // Not a terminal: no spinner control sequences in the log.
    expect(run.stderr).not.toContain('\r');
  });

  it('an image-only C2PA file with a broken signature: exit 1, flagged', async () => {
    const run = await photoverify(['verify', '--image', c2paTampered, ...common()]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toMatch(/^Verification:\s+[0-9a-f-]{36} \(image_only\)$/m);
    expect(run.stdout).toMatch(/^Assurance:\s+flagged/m);
    expect(run.stdout).toMatch(/^Verdict:\s+modified_after_signing \(invalid_signature\)$/m);
  });

  it('--json prints the whole record; URL and key may come from the environment', async () => {
    const run = await photoverify(['verify', '--image', c2paTampered, '--interval', '0.2', '--json'], { PHOTOVERIFY_URL: t.url, PHOTOVERIFY_API_KEY: key });
    expect(run.code, run.stderr).toBe(1);
    const record = JSON.parse(run.stdout);
    expect(record).toMatchObject({ status: 'completed', verification_mode: 'image_only', assurance_level: 'flagged', verdict_reason: 'invalid_signature' });
    expect(record.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a bad key: exit 2 with the service\'s error code, message and suggestion', async () => {
    const bad = key.slice(0, -4) + (key.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    const run = await photoverify(['verify', '--image', c2paTampered, '--url', t.url, '--key', bad]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('HTTP 401');
    expect(run.stderr).toContain('INVALID_API_KEY');
    expect(run.stderr).toMatch(/suggestion: Create a new key/);
    expect(run.stdout).toBe('');
  });

  it('a RAW in the image field: exit 2, UNSUPPORTED_FORMAT with the suggestion', async () => {
    const run = await photoverify(['verify', '--image', pairRaw, ...common()]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('HTTP 400');
    expect(run.stderr).toMatch(/UNSUPPORTED_FORMAT: The image part is a camera RAW/);
    expect(run.stderr).toMatch(/suggestion: /);
  });

  it('a file over the server\'s limit: exit 2, 413 explained', async () => {
    const big = path.join(scratch, 'big.jpg');
    fs.writeFileSync(big, Buffer.alloc(9 * 1024 * 1024, 0xff));
    const run = await photoverify(['verify', '--image', big, ...common()]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/HTTP 413[\s\S]*PAYLOAD_TOO_LARGE|upload size limit/);
  });

  it('times out: exit 3, the id and how to look it up later', async () => {
    const run = await photoverify(['verify', '--image', pairJpeg, '--raw', pairRaw, ...common(), '--timeout', '0.3']);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toMatch(/timed out after 0\.3s: verification [0-9a-f-]{36} is still (queued|in_progress)/);
    expect(run.stdout).toMatch(/^Status:\s+(queued|in_progress)$/m);
  });

  it('clear messages for missing files, an unreachable service and bad usage (exit 2)', async () => {
    const missing = await photoverify(['verify', '--image', path.join(scratch, 'nope.jpg'), ...common()]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read the --image file .*nope\.jpg: no such file/);

    const missingRaw = await photoverify(['verify', '--image', pairJpeg, '--raw', scratch, ...common()]);
    expect(missingRaw.code).toBe(2);
    expect(missingRaw.stderr).toMatch(/the --raw path .* is not a regular file/);

    const port = await closedPort();
    const down = await photoverify(['verify', '--image', c2paTampered, '--url', `http://127.0.0.1:${port}`, '--key', key]);
    expect(down.code).toBe(2);
    expect(down.stderr).toMatch(/cannot reach http:\/\/127\.0\.0\.1:\d+\/v1\/verifications\/: connection refused/);

    const noKey = await photoverify(['verify', '--image', c2paTampered, '--url', t.url]);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('--key (or PHOTOVERIFY_API_KEY) is required');

    const help = await photoverify(['verify', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Exit codes:[\s\S]*3\s+timed out/);
  });
});
