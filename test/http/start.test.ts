import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../support/poll.js';
import { freePort } from '../support/processes.js';

const repo = path.resolve(import.meta.dirname, '../..');

// No wall-clock expectations: on a loaded machine a cold start (PGlite's first open) can take
// tens of seconds. Waits are bounded only by these generous limits.
const START_LIMIT_MS = 150_000;
const TEST_TIMEOUT_MS = 240_000;

function npmStart(env: Record<string, string>) {
  // Its own process group, like a terminal session: a signal reaches npm, the shell and the service.
  const child = spawn('npm', ['start', '--silent'], {
    cwd: repo,
    detached: true,
    env: { ...process.env, DATABASE_URL: '', EVENTSTORE_URL: '', TEMPORAL_ADDRESS: '', ...env },
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // 'close' comes once every process holding the output pipes (npm, the shell, the service) is gone.
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return { child, exited, closed, output: () => output };
}

/**
 * A request the server has begun (its 'request' event fired: it answered `100 Continue`) but not
 * finished: half the body is sent, the rest only when `finish()` is called.
 */
function slowRegistration(port: number) {
  const body = JSON.stringify({
    name: 'Drain Test',
    admin: { email: `drain-${Date.now()}@example.eu`, name: 'Drain', password: 'a long enough password' },
  });
  const request = http.request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/v1/accounts',
    agent: false,
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' },
  });
  const half = body.length >> 1;
  const started = new Promise<void>((resolve) => request.once('continue', () => request.write(body.slice(0, half), () => resolve())));
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    request.on('error', reject);
    request.on('response', (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      res.on('error', reject);
    });
  });
  response.catch(() => undefined); // awaited later: a failure then is reported there, not as unhandled
  request.flushHeaders();
  return { started, response, finish: () => request.end(body.slice(half)) };
}

describe('npm start', () => {
  it('honours PORT and DATA_DIR, serves, and on a terminal interrupt drains in-flight requests and exits 0', { timeout: TEST_TIMEOUT_MS }, async () => {
    const port = await freePort();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-start-'));
    const run = npmStart({ PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'info', PASSWORD_HASH_COST: '10' });
    try {
      const healthy = () => fetch(`http://127.0.0.1:${port}/v1/public/health`).then((r) => r.status === 200, () => false);
      await waitFor(healthy, `the service to answer /v1/public/health\n${run.output()}`, { timeoutMs: START_LIMIT_MS });
      expect(fs.existsSync(path.join(dataDir, 'pglite'))).toBe(true);
      expect(fs.existsSync(path.join(dataDir, 'secrets', 'jwt-secret'))).toBe(true);

      // A request in flight when the interrupt arrives: the server has it, half its body is sent.
      const inFlight = slowRegistration(port);
      await inFlight.started;
      process.kill(-run.child.pid!, 'SIGINT');
      await waitFor(() => run.output().includes('shutting down'), `the shutdown to begin\n${run.output()}`, { timeoutMs: START_LIMIT_MS });
      expect(run.output()).toContain('draining 1 requests');
      // No new connections once draining...
      await expect(fetch(`http://127.0.0.1:${port}/v1/public/health`)).rejects.toThrow();
      // ...but the request in flight completes.
      inFlight.finish();
      const answered = await inFlight.response;
      expect(answered.status, answered.body).toBe(201);

      await run.closed;
      expect(await run.exited).toBe(0);
      expect(run.output()).toContain('in-flight requests drained');
      expect(run.output()).toContain('workflow steps drained');
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

  it('refuses to start with a bad variable and names it', { timeout: TEST_TIMEOUT_MS }, async () => {
    const run = npmStart({ PORT: 'not-a-port', PROCESSING_REGION: 'us-east-1' });
    const code = await run.exited;
    expect(code).not.toBe(0);
    expect(run.output()).toContain('PORT');
    expect(run.output()).toContain('PROCESSING_REGION');
    expect(run.output()).toContain('must be an EU region');
  });
});
