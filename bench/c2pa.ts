/**
 * C2PA check, in-process against in-process, on the same files in the same run: the service's
 * image-only check (`checkCredentials`: c2pa-wasm read and validation, unsigned AI metadata,
 * verdict) and its c2pa-wasm read alone, against c2pa-python (native c2pa-rs) timed inside its
 * own Python process (bench/c2pa-python-timing.py; the interpreter's start is not counted).
 * Two rounds, Node then Python each, so both sides see similar load. Target: ≤ 1.5x.
 * Run alone with `npx tsx bench/c2pa.ts`.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkCredentials } from '../src/provenance/check.js';
import { detectImageFormat, mimeTypes } from '../src/provenance/format.js';
import { readManifestStore } from '../src/provenance/read.js';
import { noTrustAnchors } from '../src/provenance/trust.js';
import { loadAverage, median, ratio, timeRuns } from './figures.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.resolve(here, '../../shared/fixtures');
const files = [
  'c2pa/rs_verify_photoshop2022.jpeg', // 2.8 MB JPEG, Photoshop, with ingredients
  'c2pa/pt_truepic-20230212-camera.jpg', // 2.3 MB camera JPEG
  'c2pa/jsl_gen-fill.jpg', // 1.4 MB, generative fill
  'c2pa/rs_firefly.png', // 2.2 MB PNG
  'c2pa/tn_trustnxt-icon-signed-v2.heic',
  'images/exifr_iphone7.heic', // no manifest
];
const RUNS = 7;
const ROUNDS = 2;

export async function benchC2pa(): Promise<Record<string, unknown>> {
  const inputs = files.map((file) => {
    const bytes = new Uint8Array(readFileSync(path.join(fixtures, file)));
    return { file, bytes, mime: mimeTypes[detectImageFormat(bytes)!] };
  });
  const node = new Map(files.map((f) => [f, { check: [] as number[], read: [] as number[] }]));
  const python = new Map(files.map((f) => [f, [] as number[]]));
  let pythonSkipped: string | undefined;
  const loadBefore = loadAverage();
  for (const input of inputs) await checkCredentials(input.bytes, noTrustAnchors); // warm-up: wasm instantiation, JIT
  for (let round = 0; round < ROUNDS; round++) {
    for (const input of inputs) {
      node.get(input.file)!.check.push(...(await timeRuns(RUNS, () => checkCredentials(input.bytes, noTrustAnchors))));
      node.get(input.file)!.read.push(...(await timeRuns(RUNS, () => readManifestStore(input.bytes, input.mime, noTrustAnchors))));
    }
    const args = [path.join(here, 'c2pa-python-timing.py'), String(RUNS), ...inputs.flatMap((i) => [path.join(fixtures, i.file), i.mime])];
    const result = spawnSync('python3', args, { encoding: 'utf8' });
    if (result.status !== 0) {
      pythonSkipped = result.status === 3 ? 'c2pa-python is not installed (pip install c2pa-python)' : `c2pa-python-timing.py failed: ${result.stderr}`;
      continue;
    }
    const times = JSON.parse(result.stdout) as Record<string, number[]>;
    for (const input of inputs) python.get(input.file)!.push(...times[path.join(fixtures, input.file)]!);
  }
  const perFile = inputs.map(({ file, bytes }) => {
    const n = node.get(file)!;
    const reference = python.get(file)!;
    const row: Record<string, unknown> = { file, bytes: bytes.length, check_ms: median(n.check), c2pa_wasm_read_ms: median(n.read) };
    if (reference.length > 0) {
      row.c2pa_python_ms = median(reference);
      row.check_to_python = ratio(median(n.check), median(reference));
      row.read_to_python = ratio(median(n.read), median(reference));
    }
    return row;
  });
  return {
    what: `in-process against in-process: checkCredentials and the c2pa-wasm read alone vs c2pa-python (native c2pa-rs) in a Python loop; medians of ${ROUNDS}x${RUNS} runs, no trust anchors, no remote fetch`,
    load_average: { before: loadBefore, after: loadAverage() },
    target_ratio: 1.5,
    ...(pythonSkipped ? { c2pa_python: { skipped: pythonSkipped } } : {}),
    files: perFile,
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await benchC2pa(), null, 2));
}
