/**
 * The benches run (issue 38): each bench script of `npm run bench` at a small N, as its own
 * process, must finish and print its figures. Not timed: the figures go in docs/performance.md.
 * bench/service.ts's seeding is also checked for what it wrote: every seeded stream chained by
 * the event store's own append, and the read models holding exactly the seeded verifications.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/adapters/db/database.js';
import { PostgresEventStore } from '../../src/adapters/eventstore/postgres.js';
import { verifyChain } from '../../src/core/audit/hash-chain.js';

const repo = path.resolve(import.meta.dirname, '../..');
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs `bench/<script>` with tsx; resolves its stdout parsed as the JSON report it prints. */
function runBench(script: string, args: string[], env: Record<string, string>): Promise<Record<string, any>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join('bench', script), ...args], { cwd: repo, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`bench/${script} exited ${code}:\n${err.slice(-4000)}`));
      try {
        resolve(JSON.parse(out.slice(out.indexOf('{'))));
      } catch (error) {
        reject(new Error(`bench/${script} printed no JSON report: ${(error as Error).message}\n${out.slice(-2000)}\n${err.slice(-2000)}`));
      }
    });
  });
}

const figure = expect.any(Number);
const series = expect.objectContaining({ rps: figure, p95_ms: figure, load_average: figure, non_2xx_or_socket_errors: 0 });
const TEN_MINUTES = 600_000;

describe('the benches run at a small N', () => {
  it(
    'bench/service.ts seeds through the event store and reports every read series; bench/rebuild.ts rebuilds what it seeded',
    async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-bench-smoke-'));
      dirs.push(dataDir);
      const seeded = 30;
      const report = await runBench('service.ts', ['pglite'], {
        BENCH_DATA_DIR: dataDir,
        BENCH_VERIFICATIONS: String(seeded),
        BENCH_SEED_BATCH: '7', // several append statements
        BENCH_WRK_SECONDS: '1',
        BENCH_IMAGE_ONLY: '4',
        BENCH_IDLE_WAIT_MS: '0',
      });
      const pglite = report.pglite;
      expect(pglite.read_models).toEqual({ verifications_listed: seeded, page_items: 20, search_for_last_seeded: { name: 'IMG_000029.png', total: 1 } });
      for (const name of ['reference_node_http_same_body', 'get_verification_by_id', 'list_size_20', 'search_size_20', 'health']) expect(pglite[name], name).toEqual(series);
      expect(pglite.list_size_20.one_connection).toEqual(series);
      expect(pglite.get_verification_by_id.ratio_to_reference).toBeGreaterThan(0);
      expect(pglite.image_only).toMatchObject({ count: 4, completed_per_s: figure });
      expect(pglite.rss_mib).toMatchObject({ idle_after_cold_start: figure, after_read_load: figure, idle_again: figure });

      // What the seeding wrote: one verification stream per seeded verification, each a whole
      // hash chain (the seeding once wrote rows without one), numbered without holes.
      const db = await openDatabase({ dataDir });
      try {
        const store = new PostgresEventStore(db.knex);
        const streams: { stream: string }[] = await db.knex('events').distinct('stream').where('stream', 'like', 'verification-%');
        expect(streams).toHaveLength(seeded + 4); // and the image-only burst's
        for (const { stream } of streams) {
          const events = await store.readStream(stream);
          expect(verifyChain(events), stream).toEqual({ ok: true, checked: events.length });
        }
        const { n, max } = (await db.knex('events').select(db.knex.raw('count(*)::int as n, max(position)::int as max')))[0];
        expect(n).toBe(max);
      } finally {
        await db.close();
      }

      // bench/rebuild.ts on the same seeded directory: the rebuild against a plain read of the log.
      // DATABASE_URL emptied: the seeded directory's PGlite, never the suite's PostgreSQL.
      const rebuild = await runBench('rebuild.ts', [dataDir], { DATABASE_URL: '' });
      expect(rebuild.events).toBeGreaterThan(seeded * 5);
      expect(rebuild.plain_read).toMatchObject({ events: rebuild.events, events_per_s: figure });
      expect(rebuild.rebuild).toMatchObject({ ms: figure, events_per_s: figure });
      expect(rebuild.by_projector.verifications).toMatchObject({ ms: figure, statements: figure });
    },
    TEN_MINUTES,
  );

  it(
    // After the service bench, which built dist/ (this one runs the build as it is).
    'bench/command-path.ts reports the command path of a few verifications',
    async () => {
      const report = await runBench('command-path.ts', ['pglite'], { BENCH_COMMAND_PATH_UPLOADS: '2', BENCH_COMMAND_PATH_ROUNDS: '1' });
      expect(report.queries_per_verification.this).toEqual(expect.arrayContaining([figure]));
      expect(report.pglite).toEqual([{ this: expect.objectContaining({ completed_median_ms: figure, service_cpu_ms_per_verification: figure, load_average: figure }) }]);
    },
    TEN_MINUTES,
  );

  it(
    'bench/startup.ts reports start-up against its reference',
    async () => {
      const report = await runBench('startup.ts', [], { BENCH_STARTUP_RUNS: '1' });
      for (const name of ['cold_start_fresh_data_dir', 'warm_start_existing_data_dir', 'cli_help']) expect(report[name], name).toMatchObject({ median_ms: figure, ratio_to_reference: figure });
    },
    TEN_MINUTES,
  );

  it(
    'bench/decode.ts reports the RAW decode figures',
    async () => {
      const report = await runBench('decode.ts', [], {});
      expect(report.canon30dCr2.wasm_ms).toMatchObject({ unpack: figure, decodeRaw: figure, fullAhd: figure });
    },
    TEN_MINUTES,
  );

  it(
    'bench/c2pa.ts reports the credentials check of every signed file',
    async () => {
      const report = await runBench('c2pa.ts', [], {});
      expect(report.files.length).toBeGreaterThan(0);
      for (const file of report.files) expect(file, file.file).toMatchObject({ check_ms: figure });
    },
    TEN_MINUTES,
  );
});
