import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeRawIntegrity, decodeRaw, shutdownRawDecoders } from '../../../src/analysis/raw/index.js';
import { decodeSensorData, type SensorData } from '../../../src/analysis/raw/decode.js';
import { assessSensorIntegrity } from '../../../src/analysis/raw/integrity.js';
import type { DecodedRaw } from '../../../src/analysis/types.js';
import { demosaicedRemosaic, smoothed, uniformNoise, upscaled2x } from './derived-mosaics.js';
import { canon30d, canon6dDng, fixture } from './fixtures.js';

let real30d: DecodedRaw;

async function decoded(file: string): Promise<DecodedRaw> {
  const outcome = await decodeRaw(fixture(file));
  if (outcome.kind !== 'decoded') throw new Error(`${file} did not decode`);
  return outcome.raw;
}

beforeAll(async () => {
  real30d = await decoded(canon30d);
});
afterAll(() => shutdownRawDecoders());

type Checks = Record<string, { verdict: string; measured: Record<string, unknown> }>;
const checksOf = (details: Record<string, unknown>): Checks => details.checks as Checks;

describe('raw_integrity on real sensor data', () => {
  it('the Canon 30D CR2 passes every check with good confidence', () => {
    const result = analyzeRawIntegrity(real30d);
    expect(result.analysis).toBe('raw_integrity');
    expect(result.result).toBe(true);
    expect(result.confidence_score).toBeGreaterThan(0.85);
    const checks = checksOf(result.details);
    for (const [name, check] of Object.entries(checks)) expect([name, check.verdict]).toEqual([name, 'pass']);
    expect(result.details.thresholds).toBeDefined();
  });

  it('the Kodak DC50 (8-bit era sensor, noise below its quantisation) is never judged a forgery', async () => {
    const outcome = await decodeSensorData(fixture('raw/kodak_dc50.kdc'), 'KDC');
    if (outcome.kind !== 'decoded') throw new Error('KDC did not decode');
    const result = assessSensorIntegrity(outcome.sensor);
    expect(result.result).not.toBe(false);
  });
});

describe('raw_integrity on converted data', () => {
  it('the 6D LinearRaw DNG from Adobe Camera Raw is not original sensor data', async () => {
    const result = analyzeRawIntegrity(await decoded(canon6dDng));
    expect(result.result).toBe(false);
    const checks = checksOf(result.details);
    expect(checks.container_origin!.verdict).toBe('fail');
    expect(String(result.details.summary)).toMatch(/LinearRaw/);
  });

  it('the same data fails on its statistics alone, without the container evidence', async () => {
    const raw = await decoded(canon6dDng);
    const result = analyzeRawIntegrity({ ...raw, container: {} });
    expect(result.result).toBe(false);
  });
});

describe('raw_integrity on forgeries derived from the real 30D mosaic', () => {
  const forgeries: [string, (m: SensorData) => Uint16Array, string[]][] = [
    ['demosaiced then re-mosaiced (rendered RGB posed as CFA)', demosaicedRemosaic, ['noise_whiteness', 'photon_transfer']],
    ['each plane upscaled 2x', upscaled2x, ['interpolation_periodicity', 'noise_whiteness']],
    ['noise-free smoothed planes', smoothed, ['noise_whiteness', 'read_noise_floor']],
    ['smoothed plus signal-independent noise (sigma 3)', (m) => uniformNoise(m, 3), ['photon_transfer']],
    ['smoothed plus signal-independent noise (sigma 8)', (m) => uniformNoise(m, 8), ['photon_transfer', 'read_noise_floor']],
  ];
  for (const [name, forge, expectedFailures] of forgeries) {
    it(`${name} fails (${expectedFailures.join(', ')})`, () => {
      const result = analyzeRawIntegrity({ ...real30d, cfa: forge(real30d) });
      expect(result.result).toBe(false);
      expect(result.confidence_score).toBeGreaterThanOrEqual(0.75);
      const checks = checksOf(result.details);
      for (const failing of expectedFailures) expect([failing, checks[failing]!.verdict]).toEqual([failing, 'fail']);
    });
  }

  it('a CR2 whose compressed sensor stream was damaged (400 bytes overwritten) decodes but fails', async () => {
    const bytes = fixture(canon30d);
    bytes.fill(0xff, 2_000_000, 2_000_400);
    const outcome = await decodeRaw(bytes);
    if (outcome.kind !== 'decoded') throw new Error('expected LibRaw to decode the damaged file');
    expect(analyzeRawIntegrity(outcome.raw).result).toBe(false);
  });

  it('a greyscale image posed as CFA (all planes at one level) fails the plane check', () => {
    const cfa = new Uint16Array(real30d.cfa.length);
    const w = real30d.width;
    // Every pixel takes its quad's green value: four planes, one level.
    for (let y = 0; y < real30d.height; y++) for (let x = 0; x < w; x++) cfa[y * w + x] = real30d.cfa[(y & ~1) * w + (x | 1)]!;
    const result = analyzeRawIntegrity({ ...real30d, cfa });
    expect(result.result).toBe(false);
    expect(checksOf(result.details).cfa_planes!.verdict).toBe('fail');
  });
});
