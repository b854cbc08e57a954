/** Small helpers the analysis benchmarks share: medians and the load average beside each figure. */
import os from 'node:os';

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[sorted.length >> 1]! * 10) / 10;
};

/** 1/5/15-minute load averages, e.g. "1.52 0.80 0.61": on a shared 2-core machine every figure moves with them. */
export const loadAverage = (): string =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

export const ratio = (value: number, reference: number): number => Math.round((value / reference) * 100) / 100;

/** Milliseconds of each of `runs` sequential calls. */
export async function timeRuns(runs: number, task: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await task();
    times.push(Math.round((performance.now() - started) * 10) / 10);
  }
  return times;
}
