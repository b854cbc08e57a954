/**
 * The hostile suites' service: dist/src/main.js as its own OS process (so its resident memory is its
 * own, read from /proc/<pid>/status), watched the whole time by a /health probe loop and an RSS
 * sampler, with the checks every hostile answer must pass (a clear 4xx or a true record, never a
 * 5xx), and the state checks afterwards (no stray blobs, no half-written events).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { expect, it } from 'vitest';
import { allocatorEnv } from '../../src/core/allocator.js';
import type { DatabaseTarget } from '../support/databases.js';
import { freePort } from '../support/processes.js';
import { client, registerAccount, type CallResult } from '../support/service.js';

const repo = path.resolve(import.meta.dirname, '../..');

/** The upload limit the hostile service runs with: "just over the limit" uploads stay small. */
export const MAX_UPLOAD_BYTES = 8 * 1024 * 1024;
/** The service's REST JSON body limit (JSON_BODY_LIMIT_BYTES' default). */
export const JSON_BODY_LIMIT_BYTES = 64 * 1024;
/** Resident memory the service may reach under every hostile input (issue 21, must-work 3). */
export const RSS_LIMIT_BYTES = 1.5 * 1024 ** 3;

export interface HostileService {
  url: string;
  dataDir: string;
  child: ChildProcess;
  call: ReturnType<typeof client>;
  owner: Awaited<ReturnType<typeof registerAccount>>;
  /**
   * Events in the log: every event on PostgreSQL; on the embedded database (owned by the child),
   * the owner's audit streams. ApiKeyUsed is left out: a valid key presented with a refused
   * request was used, and its use is recorded (at most once a minute), which is not half-written state.
   */
  eventCount(): Promise<number>;
  /** The owner's streams and their event counts (to name what a refused request appended). */
  streamCounts(): Promise<Map<string, number>>;
  stop(): Promise<void>;
}

export async function startHostileService(target: DatabaseTarget): Promise<HostileService> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-hostile-'));
  const scratch = await target.scratchUrl();
  const port = await freePort();
  const log = fs.openSync(path.join(dataDir, 'service.log'), 'a');
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    cwd: repo,
    env: {
      ...process.env,
      ...allocatorEnv,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: scratch.url ?? '',
      EVENTSTORE_URL: '',
      TEMPORAL_ADDRESS: '',
      LOG_LEVEL: 'warn',
      PASSWORD_HASH_COST: '10',
      MAX_UPLOAD_BYTES: String(MAX_UPLOAD_BYTES),
    },
    stdio: ['ignore', log, log],
  });
  fs.closeSync(log);
  const url = `http://127.0.0.1:${port}`;
  let up = false;
  for (let i = 0; i < 600 && !up && child.exitCode === null; i++) {
    up = await fetch(`${url}/v1/public/health`).then((r) => r.ok, () => false);
    if (!up) await new Promise((r) => setTimeout(r, 200));
  }
  if (!up) {
    child.kill('SIGKILL');
    throw new Error(`the service did not start: ${fs.readFileSync(path.join(dataDir, 'service.log'), 'utf8').slice(-2000)}`);
  }
  const call = client(url);
  // A plan with room for every pair the suites send (the free plan's 5 would answer 402 instead).
  const owner = await registerAccount(call, { plan: 'professional' });
  const knex: Knex | undefined = scratch.url ? knexFactory({ client: 'pg', connection: scratch.url, pool: { min: 0, max: 1 } }) : undefined;
  return {
    url,
    dataDir,
    child,
    call,
    owner,
    async eventCount() {
      if (knex) {
        const rows = await knex('events').whereNot({ type: 'ApiKeyUsed' }).count<{ count: string }[]>('* as count');
        return Number(rows[0]?.count ?? 0);
      }
      let total = 0;
      for (let offset = 0; ; offset += 100) {
        const page = await call('GET', `/v1/audit/streams?offset=${offset}&size=100`, { token: owner.token });
        if (page.status !== 200) throw new Error(`audit streams answered ${page.status}`);
        // Key streams hold only the set-up's creation and then ApiKeyUsed (see above).
        total += page.body.items.filter((s: { stream: string }) => !s.stream.startsWith('apikey-')).reduce((n: number, s: { event_count: number }) => n + s.event_count, 0);
        if (offset + 100 >= page.body.total) return total;
      }
    },
    async streamCounts() {
      const page = await call('GET', '/v1/audit/streams?size=100', { token: owner.token });
      return new Map(page.body.items.map((item: { stream: string; event_count: number }) => [item.stream, item.event_count]));
    },
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        const exited = await Promise.race([new Promise((r) => child.once('exit', () => r(true))), new Promise((r) => setTimeout(() => r(false), 30_000))]);
        if (!exited) child.kill('SIGKILL');
      }
      await knex?.destroy();
      await scratch.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Health latencies: a baseline before the hostile phase, then a probe loop running throughout it. */
export class HealthWatch {
  private running = false;
  private loop: Promise<void> | undefined;
  readonly samples: number[] = [];
  failures: string[] = [];
  /** What the suite is sending now: each probe is put down to it, so a stall names its cause. */
  current = 'nothing';
  /** Requests in flight and verifications being processed, when several run at once. */
  readonly inFlight = new Set<string>();
  /**
   * The slowest probe, what was being sent when it started, and the CPU time the service's main
   * thread (the event loop) spent meanwhile: near the probe's time, code blocked the loop; far
   * below it, the loop was waiting for a core (other threads and processes on a loaded machine).
   */
  slowest = { ms: 0, during: 'nothing', mainThreadCpuMs: 0 };
  readonly probes: { ms: number; during: string; mainThreadCpuMs: number }[] = [];

  /**
   * Probes that show the service holding up other requests: over `limitMs` while the event loop's
   * thread was busy for at least a quarter of the wait (code on the loop: a parse, a decode), or
   * over 10 s whatever the cause. A slow probe during which the thread barely ran was waiting for
   * a core on a loaded machine (two cores, the analyses' own threads, other suites), not stalled
   * by the service; a freeze like issue 21 #1 (51 s parsing JSON) is on-CPU and is caught.
   */
  stalls(limitMs: number): string[] {
    return this.probes
      .filter((p) => (p.ms > limitMs && p.mainThreadCpuMs >= p.ms / 4) || p.ms > 10_000)
      .map((p) => `${Math.round(p.ms)} ms (event loop on CPU ${p.mainThreadCpuMs} ms) while sending ${p.during}`);
  }

  constructor(
    private readonly url: string,
    private readonly pid?: number,
  ) {}

  /** The main thread's user + system CPU time in ms (/proc/<pid>/task/<pid>/stat, in clock ticks of 10 ms). */
  private mainThreadCpuMs(): number {
    if (!this.pid) return 0;
    try {
      const stat = fs.readFileSync(`/proc/${this.pid}/task/${this.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      return 0;
    }
  }

  private async probe(): Promise<number> {
    const started = performance.now();
    const response = await fetch(`${this.url}/v1/public/health`, { signal: AbortSignal.timeout(120_000) });
    await response.arrayBuffer();
    if (response.status !== 200) this.failures.push(`health answered ${response.status}`);
    return performance.now() - started;
  }

  /** The slowest of `count` probes on the quiet service (this machine's own noise). */
  async baseline(count = 20): Promise<number> {
    const times: number[] = [];
    for (let i = 0; i < count; i++) {
      times.push(await this.probe());
      await new Promise((r) => setTimeout(r, 50));
    }
    return Math.max(...times);
  }

  start(): void {
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        try {
          const during = this.inFlight.size ? [...this.inFlight].join(' | ') : this.current;
          const cpuBefore = this.mainThreadCpuMs();
          const ms = await this.probe();
          this.samples.push(ms);
          const cpu = this.mainThreadCpuMs() - cpuBefore;
          this.probes.push({ ms, during, mainThreadCpuMs: cpu });
          if (ms > this.slowest.ms) this.slowest = { ms, during, mainThreadCpuMs: cpu };
        } catch (error) {
          this.failures.push(`health probe failed: ${String(error)}`);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
  }

  /** Stops the loop; the slowest probe of the hostile phase. */
  async stop(): Promise<number> {
    this.running = false;
    await this.loop;
    return Math.max(0, ...this.samples);
  }

  /**
   * Stops the loop and says what it saw, as both hostile suites report it: the slowest probe's
   * time, the failures, what was being sent when the slowest started, and the stalls past
   * healthLimitMs of the quiet baseline.
   */
  async summary(baselineMs: number): Promise<{ max: number; failures: string[]; during: string; stalls: string[] }> {
    const max = await this.stop();
    const during = `${this.slowest.during} (the event loop's thread used ${this.slowest.mainThreadCpuMs} ms of CPU meanwhile)`;
    return { max, failures: this.failures, during, stalls: this.stalls(healthLimitMs(baselineMs)) };
  }
}

/** The child's resident memory, sampled from /proc every 200 ms; the peak kernel figure VmHWM is read too. */
export class RssWatch {
  private timer: NodeJS.Timeout | undefined;
  peak = 0;

  constructor(private readonly pid: number) {}

  private read(field: 'VmRSS' | 'VmHWM'): number {
    const status = fs.readFileSync(`/proc/${this.pid}/status`, 'utf8');
    const kib = Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
    return kib * 1024;
  }

  start(): void {
    this.timer = setInterval(() => {
      try {
        this.peak = Math.max(this.peak, this.read('VmRSS'));
      } catch {
        // the process is gone: the suite's own checks say so
      }
    }, 200);
  }

  /** The highest resident size seen, or the kernel's high-water mark if a sample missed the peak. */
  stop(): number {
    clearInterval(this.timer);
    try {
      this.peak = Math.max(this.peak, this.read('VmHWM'));
    } catch {
      // gone
    }
    return this.peak;
  }
}

/**
 * Both hostile suites' watch over their hostile phase: the /health probe loop (after a quiet
 * baseline) and the resident-memory sampler, and the two checks they make of what was seen.
 */
export class ServiceWatch {
  readonly health = { baseline: 0, max: 0, during: '', failures: [] as string[], stalls: [] as string[] };
  rssPeak = 0;
  private probes: HealthWatch | undefined;
  private rss: RssWatch | undefined;

  /** Takes the quiet baseline, then starts both watches; the probe loop, to name what is being sent. */
  async start(s: HostileService): Promise<HealthWatch> {
    const probes = new HealthWatch(s.url, s.child.pid);
    this.probes = probes;
    this.health.baseline = await probes.baseline();
    this.rss = new RssWatch(s.child.pid!);
    this.rss.start();
    probes.start();
    return probes;
  }

  /** Stops both watches and keeps what they saw for the checks. */
  async stop(): Promise<void> {
    Object.assign(this.health, await this.probes!.summary(this.health.baseline));
    this.rssPeak = this.rss!.stop();
  }

  /** The suite's checks of the watched phase (call inside its describe, after its other checks). */
  declareChecks(): void {
    it('health answered every probe within max(1 s, 10 x the quiet baseline), unless the machine, not the service, held it', () => {
      expect(this.health.failures).toEqual([]);
      expect(this.health.stalls, `slowest probe ${Math.round(this.health.max)} ms while sending ${this.health.during}`).toEqual([]);
    });
    it('the service stayed under 1.5 GiB resident', () => {
      expect(this.rssPeak).toBeGreaterThan(0);
      expect(this.rssPeak).toBeLessThanOrEqual(RSS_LIMIT_BYTES);
    });
  }
}

/** The health probe limit: 1 s, or ten times the quiet service's slowest probe on a loaded machine. */
export const healthLimitMs = (baselineMs: number) => Math.max(1000, 10 * baselineMs);

/**
 * A hostile request's answer: never a 5xx; a 4xx says what was wrong and what to do (the error
 * envelope with error_code, message and suggestion, or the validation list of {loc, msg, type}).
 */
export function expectClearRefusalOrSuccess(what: string, res: CallResult): void {
  expect(res.status, `${what}: ${JSON.stringify(res.body).slice(0, 300)}`).toBeLessThan(500);
  if (res.status >= 400) expectClear4xx(what, res);
}

export function expectClear4xx(what: string, res: CallResult): void {
  expect(res.status, `${what}: ${JSON.stringify(res.body).slice(0, 300)}`).toBeGreaterThanOrEqual(400);
  expect(res.status, `${what}: ${JSON.stringify(res.body).slice(0, 300)}`).toBeLessThan(500);
  if (/^text\/html/.test(res.headers.get('content-type') ?? '')) {
    // A page route answers its error as a page: it says what happened in words.
    expect(String(res.body), what).toMatch(/<title>[^<]+<\/title>/);
    return;
  }
  const detail = res.body?.detail;
  if (Array.isArray(detail)) {
    expect(detail.length, what).toBeGreaterThan(0);
    for (const issue of detail) expect(issue, what).toMatchObject({ loc: expect.any(Array), msg: expect.any(String), type: expect.any(String) });
    return;
  }
  if (res.body?.jsonrpc === '2.0') {
    // The MCP door answers in JSON-RPC: its error says what was wrong.
    expect(res.body.error?.message, what).toEqual(expect.any(String));
    return;
  }
  expect(detail, `${what}: ${JSON.stringify(res.body).slice(0, 300)}`).toMatchObject({ error_code: expect.any(String), message: expect.any(String), suggestion: expect.any(String) });
}

/** Every verification id of the owner (any status). */
export async function verificationIds(s: HostileService): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let offset = 0; ; offset += 100) {
    const page = await s.call('GET', `/v1/verifications/?offset=${offset}&size=100`, { token: s.owner.token });
    if (page.status !== 200) throw new Error(`list answered ${page.status}: ${JSON.stringify(page.body)}`);
    for (const item of page.body.items) ids.add(item.id);
    if (page.body.items.length < 100) return ids;
  }
}

/**
 * Blobs on disk that no verification refers to: a verification's files live under
 * blobs/verifications/<id>/, staging must be empty once every request has been answered.
 */
export async function strayBlobs(s: HostileService): Promise<string[]> {
  const root = path.join(s.dataDir, 'blobs');
  const ids = await verificationIds(s);
  const stray: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, '.staging'))) stray.push(`.staging/${entry}`);
  const verifications = path.join(root, 'verifications');
  if (fs.existsSync(verifications)) for (const id of fs.readdirSync(verifications)) if (!ids.has(id)) stray.push(`verifications/${id}`);
  return stray;
}

/** Polls a verification until it is completed or failed. */
export async function terminal(s: HostileService, id: string): Promise<any> {
  for (let i = 0; i < 1200; i++) {
    const res = await s.call('GET', `/v1/verifications/${id}`, { token: s.owner.token });
    if (res.status >= 500) throw new Error(`GET ${id} answered ${res.status}`);
    if (res.body.status === 'completed' || res.body.status === 'failed') return res.body;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`verification ${id} did not finish within 5 minutes`);
}

/** Waits until background work (mail, workflows) has stopped appending: the count holds for 3 s. */
export async function quiescent(s: HostileService): Promise<void> {
  let last = await s.eventCount();
  for (let stable = 0, i = 0; stable < 3 && i < 120; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = await s.eventCount();
    stable = now === last ? stable + 1 : 0;
    last = now;
  }
}

/** Runs tasks `width` at a time. */
export async function inParallel<T>(items: T[], width: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await task(items[next++]!);
    }),
  );
}
