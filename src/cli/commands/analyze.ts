/**
 * `photoverify analyze --raw FILE --image FILE [--json]`: runs the RAW+image pipeline on two
 * local files. Exit code 0 = verified, 1 = any other grade, 2 = error (bad arguments or files).
 */
import { readFile } from 'node:fs/promises';
import { parseCommand } from '../args.js';
import { ProgressBar } from '../progress-bar.js';
import { analyzeSpec } from '../specs.js';
import { AppError } from '../../core/errors.js';
import type { PairAnalysis } from '../../analysis/pipeline.js';

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommand(analyzeSpec, argv);
  if (typeof parsed === 'number') return parsed;
  const values = parsed.values as { raw?: string; image?: string; json: boolean };
  if (!values.raw || !values.image) {
    process.stderr.write(`photoverify analyze: both --raw and --image are required.\nRun "photoverify analyze --help" for the options and an example.\n`);
    return 2;
  }
  // The pipeline (sharp, LibRaw wasm) loads only once the arguments are known to be usable.
  const { analyzePair } = await import('../../analysis/pipeline.js');
  const { shutdownRawDecoders } = await import('../../analysis/raw/index.js');
  const progress = new ProgressBar();
  try {
    const [raw, image] = await Promise.all([readInput(values.raw), readInput(values.image)]);
    const analysis = await analyzePair({ raw, image, onProgress: (phase, fraction) => progress.update(phase, fraction) });
    progress.done();
    process.stdout.write(values.json ? JSON.stringify(toJson(analysis), null, 2) + '\n' : describe(analysis));
    return analysis.grade.assurance_level === 'verified' ? 0 : 1;
  } catch (error) {
    progress.done();
    const message =
      error instanceof AppError
        ? `${error.code}: ${error.message}${error.suggestion ? ` (${error.suggestion})` : ''}`
        : `unexpected failure: ${(error as Error).stack ?? String(error)}`;
    process.stderr.write(`photoverify analyze: ${message}\n`);
    return 2;
  } finally {
    shutdownRawDecoders();
  }
}

async function readInput(path: string): Promise<Uint8Array> {
  try {
    return new Uint8Array(await readFile(path));
  } catch (cause) {
    throw new AppError('VALIDATION_ERROR', `cannot read ${path}: ${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message}`);
  }
}

/** Artefacts are pixel buffers: the JSON carries their sizes, not their bytes. */
function toJson(a: PairAnalysis) {
  const { heatmap, registeredReference, transform } = a.artifacts;
  return {
    grade: a.grade,
    results: a.results,
    facts: a.facts,
    transform,
    artifacts: {
      heatmap: heatmap && { width: heatmap.width, height: heatmap.height },
      registered_reference: registeredReference && { width: registeredReference.width, height: registeredReference.height },
    },
    raw_metadata: a.rawMetadata,
    image_metadata: a.imageMetadata,
  };
}

function describe(a: PairAnalysis): string {
  const lines: string[] = [];
  for (const r of a.results) {
    const verdict = r.result === true ? 'pass' : r.result === false ? 'FAIL' : 'n/a ';
    lines.push(`${r.analysis.padEnd(17)} ${verdict}  confidence ${r.confidence_score.toFixed(2)}  ${keyDetails(r.details)}`);
  }
  const g = a.grade;
  const trailing = a.imageMetadata.trailing_bytes;
  if (trailing) lines.push(`trailing data     ${trailing} bytes after the JPEG's end-of-image marker (accepted, not analysed)`);
  lines.push('');
  lines.push(`Grade: ${g.assurance_level.toUpperCase()}  (result ${g.result}, capture_verified ${g.capture_verified}, result_confidence ${g.result_confidence.toFixed(3)})`);
  if (g.verdict) lines.push(`Verdict: ${g.verdict} (${g.verdict_reason})`);
  lines.push(`Reason: ${g.assurance_reason}`);
  return lines.join('\n') + '\n';
}

const summaryKeys = [
  'ssim', 'hamming_distance', 'similarity', 'tone_reversal', 'largest_region_fraction', 'residual_correlation',
  'mismatched_fields', 'note', 'variant',
];

function keyDetails(d: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const k of summaryKeys) {
    const v = d[k];
    if (v === undefined || (Array.isArray(v) && v.length === 0)) continue;
    parts.push(`${k}=${Array.isArray(v) ? v.join(',') : String(v)}`);
  }
  const regions = (d.differing_regions ?? d.local_edit_regions) as { x: number; y: number; width: number; height: number }[] | undefined;
  if (regions?.length) parts.push(`region=${regions[0]!.width}x${regions[0]!.height}@${regions[0]!.x},${regions[0]!.y}`);
  return parts.join('  ');
}
