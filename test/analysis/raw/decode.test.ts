import { afterAll, describe, expect, it } from 'vitest';
import { FileError } from '../../../src/core/errors.js';
import { decodeRaw, RawDecoderPool, shutdownRawDecoders } from '../../../src/analysis/raw/index.js';
import { DecodeStalledError } from '../../../src/analysis/raw/decoder-pool.js';
import { canon30d, canon6dDng, fixture } from './fixtures.js';

afterAll(() => shutdownRawDecoders());

async function decodeError(bytes: Uint8Array): Promise<FileError> {
  const error = await decodeRaw(bytes).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FileError);
  return error as FileError;
}

describe('decodeRaw: Canon EOS 30D CR2 (full sensor data)', () => {
  it('gives the camera-cropped mosaic with its pattern, levels, white balance and colour matrix', async () => {
    const bytes = fixture(canon30d);
    const copy = bytes.slice();
    const outcome = await decodeRaw(bytes);
    expect(outcome.kind).toBe('decoded');
    if (outcome.kind !== 'decoded') return;
    const raw = outcome.raw;
    expect(Buffer.compare(bytes, copy)).toBe(0); // the caller's buffer is not detached or changed
    expect(raw.format).toBe('CR2');
    expect([raw.width, raw.height]).toEqual([3504, 2336]);
    expect(raw.cfa.length).toBe(3504 * 2336);
    expect(raw.cfaPattern).toBe('RGGB');
    expect(raw.blackLevel).toBe(127);
    expect(raw.whiteLevel).toBe(4095);
    expect(raw.orientation).toBe(1);
    expect(raw.asShotWb[1]).toBe(1);
    expect(raw.asShotWb[0]).toBeGreaterThan(1.5);
    expect(raw.asShotWb[2]).toBeGreaterThan(1.1);
    expect(raw.camToSrgb).toHaveLength(9);
    expect(raw.linearRgb).toBeUndefined();
    expect(raw.container).toMatchObject({ cfaSource: 'sensor', sensorDirectory: 'IFD3' });
    const optical = raw.container.opticalBlack as { mean: number[] };
    for (const mean of optical.mean) expect(Math.abs(mean - 127)).toBeLessThan(3);
  });

  it('fills the camera metadata (SOURCES.md: ISO 640, 1/400 s, f/22, 2009-07-21, body 1530910263)', async () => {
    const outcome = await decodeRaw(fixture(canon30d));
    if (outcome.kind !== 'decoded') throw new Error('not decoded');
    expect(outcome.raw.metadata).toMatchObject({
      make: 'Canon',
      model: 'EOS 30D',
      serial: '1530910263',
      lens: 'EF-S 18-55mm f/3.5-5.6',
      iso: 640,
      exposureTime: 1 / 400,
      fNumber: 22,
      focalLength: 22,
      captureTime: '2009-07-21T13:03:20',
      width: 3504,
      height: 2336,
      orientation: 1,
    });
  });
});

describe('decodeRaw: Canon EOS 6D DNG (LinearRaw, converter output)', () => {
  it('decodes the linear RGB and labels the mosaic as resampled', async () => {
    const outcome = await decodeRaw(fixture(canon6dDng));
    if (outcome.kind !== 'decoded') throw new Error('not decoded');
    const raw = outcome.raw;
    expect(raw.format).toBe('DNG');
    expect([raw.width, raw.height]).toEqual([1224, 816]);
    expect(raw.linearRgb).toHaveLength(1224 * 816 * 3);
    expect(raw.container).toMatchObject({ photometric: 'LinearRaw', cfaSource: 'resampled_from_linear_raw', software: 'Adobe Photoshop Camera Raw 11.3.1 (Macintosh)' });
    expect(raw.metadata).toMatchObject({ make: 'Canon', model: 'EOS 6D', serial: '033024001432', iso: 1000 });
  });
});

describe('decodeRaw: bounded pool', () => {
  it('queues concurrent decodes on a one-worker pool and answers all of them', async () => {
    const pool = new RawDecoderPool({ size: 1 });
    const bytes = fixture(canon6dDng);
    const outcomes = await Promise.all([decodeRaw(bytes, { pool }), decodeRaw(bytes, { pool }), decodeRaw(bytes, { pool })]);
    pool.shutdown();
    expect(outcomes.map((o) => o.kind)).toEqual(['decoded', 'decoded', 'decoded']);
  });

  it('rejects a nonsensical pool size with the parameter named', () => {
    expect(() => new RawDecoderPool({ size: 0 })).toThrow(/size must be an integer >= 1, got 0/);
  });
});

describe('decodeRaw: unreadable compression variant', () => {
  it.each(['raw/gopro_hero7_GOPR9231.GPR', 'raw/gopro_fusion_front_GPFR7066.GPR'])('%s is a named VC-5 variant, not a crash', async (file) => {
    const outcome = await decodeRaw(fixture(file));
    expect(outcome.kind).toBe('unsupported_variant');
    if (outcome.kind !== 'unsupported_variant') return;
    expect(outcome.format).toBe('DNG');
    expect(outcome.variant).toMatch(/VC-5/);
    expect(outcome.details).toMatchObject({ compression: 9, make: 'GoPro' });
  });
});

describe('decodeRaw: files without usable sensor data get a specific error', () => {
  it.each([
    ['raw/exiftool_canon_eos350d_stub.cr2', 'UNPROCESSABLE_FILE', /CR2 file .*camera metadata but no sensor data: 16 bytes/],
    ['raw/exiftool_canon_eos350d_stub.dng', 'UNPROCESSABLE_FILE', /DNG file .*no sensor data: 22 bytes .* 3516x2328/],
    ['raw/exiftool_canon_eosm50_stub.cr3', 'UNPROCESSABLE_FILE', /CR3 file .*no sensor data: 41081 bytes .* 6024x4020/],
    ['pairs/canon_eos_r6_cr3_pruned/Canon-R6-pruned.CR3', 'UNPROCESSABLE_FILE', /CR3 file .*no sensor data: .*no media data \('mdat'\) box/],
    ['raw/exiftool_fujifilm_s5pro_stub.raf', 'UNPROCESSABLE_FILE', /RAF file .*no sensor data: 22 bytes/],
    ['raw/exiftool_nikon_d70_stub.nef', 'UNPROCESSABLE_FILE', /NEF file .*no sensor data: 18 bytes .* 3040x2014/],
    ['raw/exiftool_panasonic_lx3_stub.rw2', 'UNPROCESSABLE_FILE', /RW2 file .*no sensor data/],
    ['raw/exiv2_apple_iphone12promax_IMG_1361_stub.dng', 'CORRUPT_FILE', /DNG file .*truncated after 64104 bytes: the sensor image .* byte 29195592/],
    ['raw/filetype_leica_m10_first100KB.dng', 'CORRUPT_FILE', /DNG file .*truncated after 100000 bytes/],
    ['raw/filetype_sony_zv-e10_first100KB.arw', 'CORRUPT_FILE', /ARW file .*truncated after 100000 bytes/],
    ['raw/filetype_olympus_first128B.orf', 'CORRUPT_FILE', /ORF file .*truncated after 128 bytes/],
  ])('%s -> %s', async (file, code, message) => {
    const error = await decodeError(fixture(file));
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
    expect(error.message).not.toMatch(/\b(400|422|HTTP)\b/);
  });

  it('a JPEG renamed .nef is named as a JPEG', async () => {
    const error = await decodeError(fixture('raw/mei_issue247-1_jpeg_content.nef'));
    expect(error.code).toBe('UNSUPPORTED_FORMAT');
    expect(error.message).toMatch(/^This file is a JPEG image, not a camera RAW/);
  });

  it.each([
    ['raw/kodak_dc50.kdc', 'KDC', 768, 512, 'GRBG'],
    ['pairs/canon_powershot_g2_crw/CRW_0304.CRW', 'CRW', 2272, 1704, 'RGGB'],
    ['pairs/apple_quicktake100_qtk/Image__1.qtk', 'QTK', 640, 480, 'GRBG'],
  ])('%s, a format beyond the spec\'s ten, decodes as LibRaw reads it (issue 40)', async (file, format, width, height, cfa) => {
    const outcome = await decodeRaw(fixture(file));
    if (outcome.kind !== 'decoded') throw new Error(`${file}: ${outcome.variant}`);
    expect([outcome.raw.format, outcome.raw.width, outcome.raw.height, outcome.raw.cfaPattern]).toEqual([format, width, height, cfa]);
  });

  it('a Sigma X3F, which this LibRaw cannot decode, is named with why', async () => {
    const error = await decodeError(Uint8Array.from('FOVb\0\0\0\0\0\0\0\0', (c) => c.charCodeAt(0)));
    expect(error.code).toBe('UNSUPPORTED_FORMAT');
    expect(error.message).toMatch(/^Sigma X3F is a camera RAW format this service cannot decode \(LibRaw 0\.21.*no longer includes a Foveon X3F decoder\); supported: CR2, .*Canon CRW, Kodak KDC\/DCR, Apple QuickTake/);
  });

  it('an empty buffer is rejected', async () => {
    const error = await decodeError(new Uint8Array(0));
    expect(error.code).toBe('CORRUPT_FILE');
    expect(error.message).toMatch(/empty/);
  });

  it('random bytes are rejected as no known format', async () => {
    const random = new Uint8Array(200_000);
    let seed = 12345;
    for (let i = 0; i < random.length; i++) random[i] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
    const error = await decodeError(random);
    expect(error.code).toBe('UNSUPPORTED_FORMAT');
  });

  it('garbage behind a valid RAW header never hangs: it fails within the time limit', async () => {
    const header = fixture(canon30d).subarray(0, 4096);
    const garbage = new Uint8Array(3_000_000);
    garbage.set(header);
    let seed = 99;
    for (let i = header.length; i < garbage.length; i++) garbage[i] = (seed = (seed * 1664525 + 1013904223) >>> 0) >>> 24;
    const outcome = await decodeRaw(garbage).then(
      (o) => o,
      (e: unknown) => e,
    );
    expect(outcome).toBeInstanceOf(FileError);
    // No stopwatch: the decoder pool's watchdog (a CPU budget for the file's size) ends any decode,
    // so a hang fails this test by its timeout, set well above the budget for a busy machine.
  }, 120_000);

  it('a decoder that uses up its CPU budget is killed, and the file is called corrupt with that evidence', async () => {
    const pool = new RawDecoderPool({ size: 1, cpuBudgetMs: 1 });
    const error = await decodeRaw(fixture(canon30d), { pool }).then(
      () => undefined,
      (e: unknown) => e,
    );
    pool.shutdown();
    expect(error).toBeInstanceOf(FileError);
    expect((error as FileError).code).toBe('CORRUPT_FILE');
    expect((error as FileError).message).toMatch(/worked on it for [\d.]+ s of processor time without finishing/);
    expect((error as FileError).details).toMatchObject({ cpuBudgetMs: 1 });
  });

  it('a decoder that makes no progress is a service fault (retryable), not a verdict on the file', async () => {
    const pool = new RawDecoderPool({ size: 1, stallMs: 300 });
    // The job waits for ever: the decoder thread starts, then uses no processor time.
    const error = await pool.run(() => new Promise<never>(() => {})).then(
      () => undefined,
      (e: unknown) => e,
    );
    pool.shutdown();
    expect(error).toBeInstanceOf(DecodeStalledError);
    expect(error).not.toBeInstanceOf(FileError);
    expect((error as DecodeStalledError).serviceFault).toBe(true);
    expect((error as Error).message).not.toMatch(/corrupt/i);
  });
});
