import { afterAll, describe, expect, it } from 'vitest';
import { AnalysisPool } from '../../src/features/verifications/analysis-pool.js';

/**
 * Footprint (D-049): an analysis thread holds its decoders' WebAssembly memory and the analysis
 * modules; once idle for `idleMs` it is terminated, and the next job starts a fresh one.
 */
describe('analysis pool: idle threads', () => {
  const pool = new AnalysisPool(1, { idleMs: 300 });
  afterAll(() => pool.close());
  // Not a RAW file: the thread answers with an error quickly, and stays healthy.
  const garbage = () => ({ raw: new Uint8Array(64), image: new Uint8Array(64) });

  async function until(condition: () => boolean): Promise<void> {
    for (let i = 0; i < 600 && !condition(); i++) await new Promise((r) => setTimeout(r, 50));
  }

  it('terminates a thread that stayed idle, and starts a new one for the next job', async () => {
    expect(pool.threads).toBe(0);
    await expect(pool.analyze(garbage())).rejects.toThrow();
    expect(pool.threads).toBe(1); // answered: kept for the next job
    await until(() => pool.threads === 0);
    expect(pool.threads).toBe(0);
    await expect(pool.analyze(garbage())).rejects.toThrow();
    expect(pool.threads).toBe(1);
  }, 60_000);
});
