import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { camera30d, fixtures } from './fixtures.js';

const bin = path.resolve(import.meta.dirname, '../../bin/photoverify.mjs');
// Each run is a whole pair analysis in a fresh process: seconds alone, minutes at load 10 on two
// cores (pipeline cases measured at 78-142 s at load 20), so the child gets 10 minutes, not one.
const run = (...args: string[]) => spawnSync(process.execPath, [bin, 'analyze', ...args], { encoding: 'utf8', timeout: 10 * 60_000 });
const f = (p: string) => path.join(fixtures, p);

describe('photoverify analyze (spawned bin)', { timeout: 11 * 60_000 }, () => {
  it('verified pair: summary, progress on stderr, exit 0', () => {
    const r = run('--raw', f(camera30d.raw), '--image', f(camera30d.jpeg));
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/ssim\s+pass/);
    expect(r.stdout).toMatch(/Grade: VERIFIED/);
    expect(r.stderr).toMatch(/register/);
  });
  it('--json prints the full analysis; a different scene exits 1', () => {
    const r = run('--json', '--raw', f(camera30d.raw), '--image', f('images/mei_nikon-d70.jpg'));
    expect(r.status).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.grade.assurance_level).toBe('flagged');
    expect(out.results).toHaveLength(8);
  });
  it('errors exit 2 with a clear message', () => {
    expect(run('--raw', f(camera30d.raw)).status).toBe(2);
    const r = run('--raw', f('raw/mei_issue247-1_jpeg_content.nef'), '--image', f(camera30d.jpeg));
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/photoverify analyze: [A-Z_]+:/);
  });
});
