/**
 * `photoverify analyze` (the real bin, compiled by the globalSetup) on the file-check variants the
 * service's test (test/http/file-checks.test.ts) uploads: same acceptance of trailing data after
 * the JPEG's end-of-image marker, same recorded length, same refusals of truncated JPEGs and of
 * a CRW with the same messages, because both run the one check (src/analysis/image/jpeg-structure.ts, format-detect.ts). The
 * variants are built here from the fixtures into a scratch directory; there is no CRW fixture,
 * so a minimal CIFF header is built here.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { concat, x3f, x3fMessage, cutJpeg, fixtures, noise, pairJpeg, trailer2k, truncatedMessage } from '../support/file-variants.js';
import { runNode } from '../support/processes.js';

const root = path.resolve(import.meta.dirname, '../..');
const bin = path.join(root, 'bin/photoverify.mjs');
const pairRaw = path.join(fixtures, 'pairs/canon_eos_30d_cr2/IMG_5952.CR2');

const analyze = (args: string[]) => runNode([bin, 'analyze', ...args], {});

describe('photoverify analyze: the JPEG and RAW format checks', () => {
  let scratch: string;
  const write = (name: string, bytes: Uint8Array) => {
    const file = path.join(scratch, name);
    fs.writeFileSync(file, bytes);
    return file;
  };

  beforeAll(() => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-analyze-'));
  });
  afterAll(() => {
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('a JPEG with 16 zero bytes after its end-of-image marker: verified, trailing_bytes 16 in image_metadata', async () => {
    const run = await analyze(['--json', '--raw', pairRaw, '--image', write('padded.jpg', concat(pairJpeg, new Uint8Array(16)))]);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.grade.assurance_level).toBe('verified');
    expect(out.image_metadata).toMatchObject({ format: 'jpeg', trailing_bytes: 16 });
  }, 120_000);

  it('a JPEG with a 2 KB trailer: verified, the trailing length printed', async () => {
    const run = await analyze(['--raw', pairRaw, '--image', write('trailer.jpg', concat(pairJpeg, trailer2k))]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^trailing data\s+2048 bytes after the JPEG's end-of-image marker/m);
    expect(run.stdout).toMatch(/Grade: VERIFIED/);
  }, 120_000);

  it('a JPEG without trailing data records 0', async () => {
    const run = await analyze(['--json', '--raw', pairRaw, '--image', path.join(fixtures, 'pairs/canon_eos_30d_cr2/IMG_5952.camera-preview.jpg')]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).image_metadata.trailing_bytes).toBe(0);
    expect(run.stdout).not.toMatch(/trailing data/);
  }, 120_000);

  it.each([
    ['a JPEG cut in the middle of its scan', () => ['--raw', pairRaw, '--image', write('cut.jpg', cutJpeg)], `CORRUPT_FILE: ${truncatedMessage(cutJpeg)}`],
    ['a Sigma X3F (which this LibRaw cannot decode) as the RAW', () => ['--raw', write('SDIM0001.X3F', x3f), '--image', path.join(fixtures, 'pairs/canon_eos_30d_cr2/IMG_5952.camera-preview.jpg')], `UNSUPPORTED_FORMAT: ${x3fMessage}`],
    ["a 'JPEG' of random bytes after SOI", () => ['--raw', pairRaw, '--image', write('random.jpg', concat(Uint8Array.of(0xff, 0xd8, 0xff), noise(3_000_000)))], /CORRUPT_FILE: The JPEG is damaged: an unknown marker/],
    ['SOI followed by 0xFF bytes to the end', () => ['--raw', pairRaw, '--image', write('soi-ff.jpg', concat(Uint8Array.of(0xff, 0xd8), new Uint8Array(3_000_000).fill(0xff)))], /CORRUPT_FILE: The JPEG is truncated: .*before any image data/],
    // Not a JPEG at all: the pipeline's own format check answers (the service's names the file kind).
    ['a file of 0xFF bytes', () => ['--raw', pairRaw, '--image', write('ff.jpg', new Uint8Array(3_000_000).fill(0xff))], /UNSUPPORTED_FORMAT: The image of a RAW pair must be a JPEG or HEIF\/HEIC file/],
  ] as [string, () => string[], string | RegExp][])('%s: exit 2, a clear message and a suggestion', async (_label, args, message) => {
    const started = Date.now();
    const run = await analyze(args());
    expect(run.code, run.stderr).toBe(2);
    const line = run.stderr.split('\n').find((l) => l.startsWith('photoverify analyze: ')) ?? '';
    if (typeof message === 'string') expect(line).toContain(message);
    else expect(line).toMatch(message);
    expect(line).toMatch(/\(.+\)$/); // the suggestion
    expect(run.stdout).toBe('');
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 60_000);
});
