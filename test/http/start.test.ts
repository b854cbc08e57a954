import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../support/processes.js';

const repo = path.resolve(import.meta.dirname, '../..');

function npmStart(env: Record<string, string>) {
  // Its own process group, like a terminal session: a signal reaches npm, tsx and the service.
  const child = spawn('npm', ['start', '--silent'], {
    cwd: repo,
    detached: true,
    env: { ...process.env, DATABASE_URL: '', EVENTSTORE_URL: '', TEMPORAL_ADDRESS: '', ...env },
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

describe('npm start', () => {
  it('honours PORT and DATA_DIR, serves, and shuts down gracefully on a terminal interrupt', async () => {
    const port = await freePort();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-start-'));
    const run = npmStart({ PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'info' });
    try {
      let health: Response | undefined;
      for (let i = 0; i < 100 && !health; i++) {
        health = await fetch(`http://127.0.0.1:${port}/v1/public/health`).catch(() => undefined);
        if (!health) await new Promise((r) => setTimeout(r, 200));
      }
      expect(health?.status, run.output()).toBe(200);
      expect(fs.existsSync(path.join(dataDir, 'pglite'))).toBe(true);
      expect(fs.existsSync(path.join(dataDir, 'secrets', 'jwt-secret'))).toBe(true);
      process.kill(-run.child.pid!, 'SIGINT');
      await run.exited;
      for (let i = 0; i < 50 && !run.output().includes('photoverify stopped'); i++) await new Promise((r) => setTimeout(r, 100));
      expect(run.output()).toContain('photoverify stopped');
    } finally {
      try {
        process.kill(-run.child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses to start with a bad variable and names it', async () => {
    const run = npmStart({ PORT: 'not-a-port', PROCESSING_REGION: 'us-east-1' });
    const code = await run.exited;
    expect(code).not.toBe(0);
    expect(run.output()).toContain('PORT');
    expect(run.output()).toContain('PROCESSING_REGION');
    expect(run.output()).toContain('must be an EU region');
  });
});
