import { decodeRaw } from '../../../src/analysis/raw/index.js';
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
