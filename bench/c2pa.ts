/**
 * C2PA check, in-process against in-process, on the same files in the same run: the service's
 * image-only check (`checkCredentials`: the read and validation with the reader the service
 * chose, unsigned AI metadata, verdict), the c2pa-wasm read alone and the native c2pa-rs read
 * alone (native/c2pa, when `npm run build:native` has built it), against c2pa-python (native
 * c2pa-rs) timed inside its own long-lived Python process (bench/c2pa-python-timing.py; the
 * interpreter's start and the pipe are not counted). The four are interleaved run by run, so
 * every one sees the same load. Target: ≤ 1.5x. Run alone with `npx tsx bench/c2pa.ts`.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
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

/** c2pa-python's read time (ms, measured in Python) of one file, one request at a time; or why there is none. */
async function pythonTimer(): Promise<{ time(file: string, mime: string): Promise<number>; close(): void } | { skipped: string }> {
  const child = spawn('python3', [path.join(here, 'c2pa-python-timing.py')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const line = await lines.next();
    if (line.done) throw new Error('c2pa-python-timing.py stopped');
    return line.value;
  };
  const first = await next().catch(() => 'stopped');
  if (first !== 'ready') {
    child.kill();
    return { skipped: first.includes('skipped') ? 'c2pa-python is not installed (pip install c2pa-python)' : `c2pa-python-timing.py failed (${first})` };
  }
  return {
    async time(file, mime) {
      child.stdin.write(`${file}\t${mime}\n`);
      return Number(await next());
    },
    close: () => child.stdin.end(),
  };
}

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
  const timer = await pythonTimer();
  const pythonSkipped = 'skipped' in timer ? timer.skipped : undefined;
  const loadBefore = loadAverage();
  for (const input of inputs) {
    // warm-up: wasm instantiation, addon load, JIT
    await checkCredentials(input.bytes, noTrustAnchors);
    await readAlone(wasmReader, input.bytes, input.mime);
    if (native) await readAlone(native, input.bytes, input.mime);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const input of inputs) {
      // Interleaved run by run, so load swings, GC and background compilation fall on all four alike.
      const times = node.get(input.file)!;
      for (let run = 0; run < RUNS; run++) {
        times.check.push(...(await timeRuns(1, () => checkCredentials(input.bytes, noTrustAnchors))));
        times.wasm.push(...(await timeRuns(1, () => readAlone(wasmReader, input.bytes, input.mime))));
        if (native) times.native.push(...(await timeRuns(1, () => readAlone(native, input.bytes, input.mime))));
        if ('time' in timer) python.get(input.file)!.push(await timer.time(path.join(fixtures, input.file), input.mime));
      }
    }
  }
  if ('close' in timer) timer.close();
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
