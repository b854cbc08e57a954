/**
 * C2PA check, in-process against in-process, on the same files in the same run: the service's
 * image-only check (`checkCredentials`: the read and validation with the reader the service
 * chose, unsigned AI metadata, verdict), the c2pa-wasm read alone and the native c2pa-rs read
 * alone (native/c2pa, when `npm run build:native` has built it), against c2pa-python (native
 * c2pa-rs) timed inside its own Python process (bench/c2pa-python-timing.py; the interpreter's
 * start is not counted). Two rounds, Node then Python each, so both sides see similar load.
 * Target: ≤ 1.5x. Run alone with `npx tsx bench/c2pa.ts`.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { c2paReader, loadNativeReader, wasmReader, type C2paReader } from '../src/provenance/c2pa-reader.js';
import { checkCredentials } from '../src/provenance/check.js';
import { detectImageFormat, mimeTypes } from '../src/provenance/format.js';
import { readerContext } from '../src/provenance/read.js';
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
  const loaded = loadNativeReader();
  const native = 'reader' in loaded ? loaded.reader : undefined;
  // The read alone, as read.ts does it without trust anchors; a missing manifest rejects.
  const readAlone = (reader: C2paReader, bytes: Uint8Array, mime: string) => reader.readJson(mime, bytes, readerContext([])).then(JSON.parse, () => undefined);
  const node = new Map(files.map((f) => [f, { check: [] as number[], wasm: [] as number[], native: [] as number[] }]));
  const python = new Map(files.map((f) => [f, [] as number[]]));
  let pythonSkipped: string | undefined;
  const loadBefore = loadAverage();
  for (const input of inputs) {
    // warm-up: wasm instantiation, addon load, JIT
    await checkCredentials(input.bytes, noTrustAnchors);
    await readAlone(wasmReader, input.bytes, input.mime);
    if (native) await readAlone(native, input.bytes, input.mime);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const input of inputs) {
      node.get(input.file)!.check.push(...(await timeRuns(RUNS, () => checkCredentials(input.bytes, noTrustAnchors))));
      node.get(input.file)!.wasm.push(...(await timeRuns(RUNS, () => readAlone(wasmReader, input.bytes, input.mime))));
      if (native) node.get(input.file)!.native.push(...(await timeRuns(RUNS, () => readAlone(native, input.bytes, input.mime))));
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
    const row: Record<string, unknown> = { file, bytes: bytes.length, check_ms: median(n.check), c2pa_wasm_read_ms: median(n.wasm) };
    if (native) row.native_read_ms = median(n.native);
    if (reference.length > 0) {
      row.c2pa_python_ms = median(reference);
      row.check_to_python = ratio(median(n.check), median(reference));
      row.wasm_read_to_python = ratio(median(n.wasm), median(reference));
      if (native) row.native_read_to_python = ratio(median(n.native), median(reference));
    }
    return row;
  });
  return {
    what: `in-process against in-process: checkCredentials, the c2pa-wasm read alone and the native c2pa-rs read alone vs c2pa-python (native c2pa-rs) in a Python loop; medians of ${ROUNDS}x${RUNS} runs, no trust anchors, no remote fetch`,
    check_reader: c2paReader().description,
    ...('missing' in loaded ? { native_read: { skipped: loaded.missing } } : {}),
    load_average: { before: loadBefore, after: loadAverage() },
    target_ratio: 1.5,
    ...(pythonSkipped ? { c2pa_python: { skipped: pythonSkipped } } : {}),
    files: perFile,
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await benchC2pa(), null, 2));
}
