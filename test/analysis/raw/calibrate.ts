/**
 * The raw_integrity calibration run: every real CFA source among the fixtures, in every
 * container variant, plus forgeries derived from each source, judged through decodeRaw and
 * analyzeRawIntegrity. Prints the markdown table kept in docs/analysis-raw.md.
 *
 *   npx tsx test/analysis/raw/calibrate.ts            # the crops the tests use
 *   npx tsx test/analysis/raw/calibrate.ts --full     # whole frames
 *   ... --only Fusion                                  # sources whose name contains "Fusion"
 */
import { analyzeRawIntegrity, shutdownRawDecoders } from '../../../src/analysis/raw/index.js';
import { assessSensorIntegrity } from '../../../src/analysis/raw/integrity.js';
import type { AnalysisResult } from '../../../src/analysis/types.js';
import { containerVariants, cropSource, decodeFixture, decodeVariant, genuineFiles, sourceOf, variantDng } from './container-variants.js';
import { demosaicedRemosaic, duplicatedRegion, smoothed, uniformNoise, upscaled2x } from './derived-mosaics.js';

type Checks = Record<string, { verdict: string; measured: Record<string, unknown> }>;

export const forgeries: [string, (m: { cfa: Uint16Array; width: number; height: number }) => Uint16Array][] = [
  ['demosaiced + re-mosaiced', demosaicedRemosaic],
  ['planes upscaled 2x', upscaled2x],
  ['smoothed (noise-free)', smoothed],
  ['smoothed + noise σ3', (m) => uniformNoise(m, 3)],
  ['smoothed + noise σ8', (m) => uniformNoise(m, 8)],
  ['128x128 region copied elsewhere', (m) => duplicatedRegion(m, { x: m.width >> 2, y: m.height >> 2, width: 128, height: 128 }, { x: (m.width >> 1) + 36, y: (m.height >> 1) + 22 })],
];

/** The forgery containers: as stored by the source, and as the issue's CinemaDNG. */
export const forgeryContainers = ['uncompressed 16-bit', 'CinemaDNG: LinearizationTable to 16 bits, WhiteLevel 65535, lossless-JPEG tiles', 'square-root companded to 8 bits + LinearizationTable, lossless-JPEG'];

export function row(result: AnalysisResult): Record<string, string> {
  const c = result.details.checks as Checks;
  const v = (name: string): string => ({ pass: 'p', fail: 'F', undecided: 'u' })[c[name]!.verdict] ?? '?';
  const pt = c.photon_transfer!.measured as {
    fit?: { gainDnPerElectron: number; r2: number; readVariance: number; bandsUsed: number; excludedAbove?: number; model: string; logLogExponent?: number };
    saturationElectronsAtIso100?: number;
    quantisationShare?: number;
  };
  const fit = pt.fit;
  const num = (x: unknown, digits = 3): string => (typeof x === 'number' ? String(Number(x.toFixed(digits))) : '-');
  return {
    result: `${result.result} ${result.confidence_score.toFixed(2)}`,
    ptc: fit
      ? `${v('photon_transfer')} g ${num(fit.gainDnPerElectron, 4)} R² ${num(fit.r2)} read ${num(fit.readVariance, 1)} pow ${num(fit.logLogExponent, 2)} q ${num(pt.quantisationShare, 2)}${fit.excludedAbove ? ` (≤${Math.round(fit.excludedAbove)})` : ''}`
      : `${v('photon_transfer')} -`,
    electrons: pt.saturationElectronsAtIso100 === undefined ? '-' : String(pt.saturationElectronsAtIso100),
    whiteness: `${v('noise_whiteness')} ${num(c.noise_whiteness!.measured.samePlaneResidualCorrelation)}`,
    cross: `${v('cross_colour_independence')} ${num(c.cross_colour_independence!.measured.crossPlaneResidualCorrelation)}`,
    periodicity: `${v('interpolation_periodicity')} ${num(c.interpolation_periodicity!.measured.evenOddResidualEnergyRatio)}`,
    duplicates: `${v('duplicate_pixels')} ${num(c.duplicate_pixels!.measured.duplicateExcess, 2)}`,
    regions: `${v('duplicated_regions')} ${(c.duplicated_regions!.measured.strongestDisplacement as { blocks: number } | null)?.blocks ?? 0}`,
    other: `bl ${v('black_level')} pl ${v('cfa_planes')} rn ${v('read_noise_floor')}`,
  };
}

async function main(): Promise<void> {
  const full = process.argv.includes('--full');
  const columns = ['result', 'ptc', 'electrons', 'whiteness', 'cross', 'periodicity', 'duplicates', 'regions', 'other'];
  console.log(`| source | variant | ${columns.join(' | ')} |`);
  console.log(`|${'---|'.repeat(columns.length + 2)}`);
  const print = (source: string, variant: string, result: AnalysisResult) => {
    const r = row(result);
    console.log(`| ${source} | ${variant} | ${columns.map((k) => r[k]).join(' | ')} |`);
  };
  const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
  for (const file of genuineFiles) {
    if (only && !file.name.includes(only)) continue;
    const raw = await decodeFixture(file.file);
    const src = cropSource(sourceOf(file.name, raw), full ? undefined : file.crop);
    print(file.name, full ? 'as decoded (whole frame)' : 'as decoded (test crop)', assessSensorIntegrity({ ...raw, ...src.mosaic }));
    for (const variant of containerVariants) {
      const decoded = await decodeVariant(variantDng(src, variant));
      print(file.name, variant.name, analyzeRawIntegrity(decoded));
    }
    for (const [forgery, forge] of forgeries) {
      const cfa = forge(src.mosaic);
      print(file.name, `FORGED ${forgery} (in memory)`, assessSensorIntegrity({ ...raw, ...src.mosaic, cfa }));
      for (const name of forgeryContainers) {
        const variant = containerVariants.find((v) => v.name === name)!;
        print(file.name, `FORGED ${forgery}, ${name}`, analyzeRawIntegrity(await decodeVariant(variantDng(src, variant, cfa))));
      }
    }
  }
  shutdownRawDecoders();
}

if (process.argv[1]?.endsWith('calibrate.ts')) await main();
