import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AnalysisPool } from '../../src/features/verifications/analysis-pool.js';

/**
 * The workflow deadline reaches the pair analysis: aborting the job's signal terminates its
 * worker thread (the CPU work stops, nothing is recorded) and the pool carries on with a fresh one.
 */
const pair = path.resolve(import.meta.dirname, '../../../shared/fixtures/pairs/canon_eos_30d_cr2');
const job = () => ({ raw: new Uint8Array(fs.readFileSync(path.join(pair, 'IMG_5952.CR2'))), image: new Uint8Array(fs.readFileSync(path.join(pair, 'IMG_5952.camera-preview.jpg'))) });

describe('analysis pool: aborting a job', () => {
  const pool = new AnalysisPool(1);
  afterAll(() => pool.close());
  const threads = () => pool as unknown as { busy: Set<unknown>; idle: unknown[] };

  it('terminates the running thread, rejects with the abort reason, and runs the next job on a new thread', async () => {
    const controller = new AbortController();
    const running = pool.analyze(job(), controller.signal).then(
      () => 'finished',
      (error: unknown) => error,
    );
    // A second job waits for the only thread; aborting it takes it out of the queue.
    const waitingController = new AbortController();
    const waiting = pool.analyze(job(), waitingController.signal).catch((error: unknown) => error);
    await new Promise((r) => setTimeout(r, 100));
    const reason = new Error('deadline passed');
    waitingController.abort(reason);
    expect(await waiting).toBe(reason);
    controller.abort(reason);
    expect(await running).toBe(reason);
    expect(threads().busy.size + threads().idle.length).toBe(0); // the aborted thread is gone

    const analysis = await pool.analyze(job());
    expect(analysis.results.length).toBeGreaterThan(0);
  }, 120_000);

  it('refuses a job whose signal has already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('too late'));
    await expect(pool.analyze(job(), controller.signal)).rejects.toThrow('too late');
  });
});
