import { afterAll, beforeAll } from 'vitest';
import { decodeRaw, shutdownRawDecoders } from '../../../src/analysis/raw/index.js';
import type { DecodedRaw } from '../../../src/analysis/types.js';
import { writeDng, type DngOptions } from './dng-writer.js';
import { canon30d, fixture } from './fixtures.js';

/**
 * Real sensor samples to write test DNGs from: a `width` x `height` crop of the Canon 30D's CFA
 * (an RGGB mosaic, black 127, white 4095), taken away from the frame's edges.
 */
export async function canon30dCrop(width: number, height: number): Promise<Uint16Array> {
  const outcome = await decodeRaw(fixture(canon30d));
  if (outcome.kind !== 'decoded') throw new Error('30D did not decode');
  const r = outcome.raw;
  const samples = new Uint16Array(width * height);
  for (let y = 0; y < height; y++) samples.set(r.cfa.subarray((800 + y) * r.width + 1000, (800 + y) * r.width + 1000 + width), y * width);
  return samples;
}

/**
 * A suite of test DNGs written from a 30D crop: the crop is read before the suite's tests (and
 * the decoders shut down after them); `decode` writes an RGGB DNG of it (black 127, white 4095,
 * the suite's `defaults`, then the test's `options`) and reads it back through decodeRaw.
 */
export function canon30dDngs(width: number, height: number, defaults: Partial<DngOptions> = {}) {
  let samples: Uint16Array;
  beforeAll(async () => {
    samples = await canon30dCrop(width, height);
  }, 120_000);
  afterAll(() => shutdownRawDecoders());
  return {
    get samples(): Uint16Array {
      return samples;
    },
    async decode(options: Partial<DngOptions>): Promise<DecodedRaw> {
      const outcome = await decodeRaw(writeDng({ width, height, cfaPattern: 'RGGB', samples, whiteLevel: 4095, blackLevel: 127, ...defaults, ...options }));
      if (outcome.kind !== 'decoded') throw new Error(`not decoded: ${outcome.variant}`);
      return outcome.raw;
    },
  };
}
