import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeRawIntegrity, decodeRaw, shutdownRawDecoders } from '../../../src/analysis/raw/index.js';
import { decodeSensorData, type SensorData } from '../../../src/analysis/raw/decode.js';
import { assessSensorIntegrity } from '../../../src/analysis/raw/integrity.js';
import type { DecodedRaw } from '../../../src/analysis/types.js';
import { demosaicedRemosaic, duplicatedRegion, smoothed, uniformNoise, upscaled2x } from './derived-mosaics.js';
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

  it.each([
    ['GoPro HERO7 Black (GPR decoded by GoPro SDK; its bright sky lost noise to the VC-5 codec)', 'pairs/gopro_hero7_dng/GOPR9231.dng', true],
    ['GoPro Fusion front lens (GPR decoded by GoPro SDK)', 'raw/gopro_fusion_front_GPFR7066.dng', false],
  ])('the %s is recognised as sensor data', async (_name, file, brightBandsLeftOut) => {
    const result = analyzeRawIntegrity(await decoded(file));
    expect(result.result, String(result.details.summary)).toBe(true);
    const ptc = checksOf(result.details).photon_transfer!.measured as { fit: { excludedAbove?: number }; saturationElectronsAtIso100: number };
    expect(ptc.fit.excludedAbove !== undefined).toBe(brightBandsLeftOut);
    // Small-pixel sensors: a few thousand electrons at saturation (ISO 100).
    expect(ptc.saturationElectronsAtIso100).toBeGreaterThan(1_500);
    expect(ptc.saturationElectronsAtIso100).toBeLessThan(30_000);
  }, 120_000);

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

  it('without the container evidence its statistics are undecided, never taken for sensor data', async () => {
    // Its flat areas vary like scene texture (power ~2.4), not noise, and its values sit ~160 DN
    // apart (lossy 8-bit-like data): neither noise nor equal neighbours can be read. It used to
    // fail on a negative read-noise intercept and on duplicates, both explained by that encoding.
    const raw = await decoded(canon6dDng);
    const result = analyzeRawIntegrity({ ...raw, container: {} });
    expect(result.result).toBeNull();
    const checks = checksOf(result.details);
    expect(checks.photon_transfer!.verdict).toBe('undecided');
    expect(checks.duplicate_pixels!.measured.quantizationStep).toBeGreaterThan(100);
  });
});

describe('raw_integrity on forgeries derived from the real 30D mosaic', () => {
  const forgeries: [string, (m: SensorData) => Uint16Array, string[]][] = [
    ['demosaiced then re-mosaiced (rendered RGB posed as CFA)', demosaicedRemosaic, ['noise_whiteness', 'photon_transfer']],
    ['each plane upscaled 2x', upscaled2x, ['interpolation_periodicity', 'noise_whiteness']],
    ['noise-free smoothed planes', smoothed, ['noise_whiteness', 'read_noise_floor']],
    ['smoothed plus signal-independent noise (sigma 3)', (m) => uniformNoise(m, 3), ['photon_transfer']],
    ['smoothed plus signal-independent noise (sigma 8)', (m) => uniformNoise(m, 8), ['photon_transfer', 'read_noise_floor']],
    ['a 256x256 region copied elsewhere (clone stamp on the mosaic)', (m) => duplicatedRegion(m, { x: 1000, y: 900, width: 256, height: 256 }, { x: 2200, y: 1400 }), ['duplicated_regions']],
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
    const result = analyzeRawIntegrity(outcome.raw);
    expect(result.result).toBe(false);
    // After the damage the decoder fills flat runs: the darkest areas have no read noise.
    expect(checksOf(result.details).read_noise_floor!.verdict).toBe('fail');
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
