import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { FileError } from '../../src/core/errors.js';
import { analyzePair } from '../../src/analysis/pipeline.js';
import { shutdownRawDecoders } from '../../src/analysis/raw/index.js';
import { camera30d, encode, fixture, fixtures } from './fixtures.js';

const raw = fixture(camera30d.raw);
const jpg = Buffer.from(fixture(camera30d.jpeg));
const nikon = readFileSync(path.join(fixtures, 'images/mei_nikon-d70.jpg'));
afterAll(() => shutdownRawDecoders());

const analyse = async (image: Uint8Array) => analyzePair({ raw, image });
const overlaps = (a: { x: number; y: number; width: number; height: number }, b: typeof a) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

// Each case is a whole pair analysis: seconds alone, over two minutes at load 20 on two cores
// (measured); sized for a loaded machine, not by the suite's one-minute default.
describe('analyzePair on the Canon EOS 30D CR2 and exports of its camera JPEG', { timeout: 10 * 60_000 }, () => {
  it('the camera JPEG (no EXIF: rule 1) grades verified with artefacts', async () => {
    const phases: string[] = [];
    const a = await analyzePair({ raw, image: new Uint8Array(jpg), onProgress: (p) => phases.push(p) });
    expect(a.grade.assurance_level).toBe('verified');
    expect(a.grade.capture_verified).toBe(true);
    expect(a.grade.result_confidence).toBeGreaterThan(0.9);
    expect(a.results.map((r) => r.analysis)).toEqual([
      'raw_integrity', 'ssim', 'perceptual_hash', 'color_histogram', 'processing_chain', 'exif', 'sensor_pattern', 'recapture',
    ]);
    expect(a.results.find((r) => r.analysis === 'exif')!.result).toBeNull();
    expect(a.results.find((r) => r.analysis === 'sensor_pattern')!.result).toBe(true);
    expect(a.artifacts.heatmap!.data.length).toBe(a.artifacts.heatmap!.width * a.artifacts.heatmap!.height * 3);
    expect(phases.at(-1)).toBe('done');
  });

  it.each([
    ['crop', () => encode(sharp(jpg).extract({ left: 300, top: 150, width: 1100, height: 800 }))],
    ['rotation 7°', () => encode(sharp(jpg).rotate(7, { background: '#fff' }))],
    ['rotation 90°', () => encode(sharp(jpg).rotate(90))],
    ['mirror', () => encode(sharp(jpg).flop())],
    ['resize', () => encode(sharp(jpg).resize(800))],
    ['exposure +0.5 EV', () => encode(sharp(jpg).linear(1.4, 0))],
    ['contrast', () => encode(sharp(jpg).linear(1.5, -0.25 * 255))],
    ['white balance', () => encode(sharp(jpg).recomb([[1.15, 0, 0], [0, 1, 0], [0, 0, 0.8]]))],
    ['black and white', () => encode(sharp(jpg).grayscale())],
    ['matching EXIF', async () => new Uint8Array(await sharp(jpg).withExif({ IFD0: { Make: 'Canon', Model: 'Canon EOS 30D' }, IFD2: { DateTimeOriginal: '2009:07:21 13:03:20' } }).jpeg().toBuffer())],
  ])('ordinary adjustment stays verified: %s', async (_name, make) => {
    const a = await analyse(await make());
    expect(a.grade.assurance_level, a.grade.assurance_reason).toBe('verified');
  });

  it('EXIF naming another camera flags (rule 1)', async () => {
    const a = await analyse(new Uint8Array(await sharp(jpg).withExif({ IFD0: { Make: 'Canon', Model: 'Canon EOS 450D' } }).jpeg().toBuffer()));
    expect(a.grade.assurance_level).toBe('flagged');
    expect(a.results.find((r) => r.analysis === 'exif')!.details.mismatched_fields).toEqual(['model']);
  });

  it.each(['images/mei_nikon-d70.jpg', 'images/mei_canon-eos450d.jpg'])('a different scene flags: %s', async (other) => {
    const a = await analyse(fixture(other));
    expect(a.grade.assurance_level).toBe('flagged');
  });

  it('an object pasted in flags and is localised', async () => {
    const box = { x: 1100, y: 750, width: 300, height: 220 };
    const patch = await sharp(nikon).extract({ left: 1000, top: 700, width: box.width, height: box.height }).toBuffer();
    const a = await analyse(await encode(sharp(jpg).composite([{ input: patch, left: box.x, top: box.y }])));
    expect(a.grade.assurance_level).toBe('flagged');
    const regions = a.results.flatMap((r) => (r.details.differing_regions ?? r.details.local_edit_regions ?? []) as (typeof box)[]);
    expect(regions.some((r) => overlaps(r, box))).toBe(true);
  });

  it('a cloned region flags and the SSIM regions localise it', async () => {
    const box = { x: 1200, y: 860, width: 260, height: 200 };
    const source = await sharp(jpg).extract({ left: 200, top: 900, width: box.width, height: box.height }).toBuffer();
    const a = await analyse(await encode(sharp(jpg).composite([{ input: source, left: box.x, top: box.y }])));
    expect(a.grade.assurance_level).toBe('flagged');
    const ssim = a.results.find((r) => r.analysis === 'ssim')!;
    expect((ssim.details.differing_regions as (typeof box)[]).some((r) => overlaps(r, box))).toBe(true);
  });

  it('a panorama: the frame extended sideways with another photo grades unrated (rule 2)', async () => {
    const side = await sharp(nikon).resize({ height: 1152 }).extract({ left: 0, top: 0, width: 900, height: 1152 }).toBuffer();
    const a = await analyse(await encode(sharp(jpg).extend({ right: 900, background: '#000' }).composite([{ input: side, left: 1728, top: 0 }])));
    expect(a.grade.assurance_level).toBe('unrated');
  });

  it('the converter-written 6D DNG pair matches its JPEG but grades provisional, not verified', async () => {
    const a = await analyzePair({ raw: fixture('pairs/canon_eos_6d_dng/canon_eos_6d.dng'), image: fixture('pairs/canon_eos_6d_dng/canon_eos_6d.preview.jpg') });
    expect(a.grade.assurance_level, a.grade.assurance_reason).toBe('provisional');
    expect(a.grade.assurance_reason).toMatch(/converter/);
    for (const analysis of ['ssim', 'perceptual_hash', 'color_histogram', 'processing_chain', 'recapture'])
      expect(a.results.find((r) => r.analysis === analysis)!.result, analysis).toBe(true);
  });

  it('an undecodable variant (GoPro VC-5) grades unrated and names it (rule 3)', async () => {
    const a = await analyzePair({ raw: fixture('raw/gopro_hero7_GOPR9231.GPR'), image: new Uint8Array(jpg) });
    expect(a.grade.assurance_level).toBe('unrated');
    expect(a.grade.assurance_reason).toMatch(/VC-5/);
  });

  it('bad inputs give FileError', async () => {
    await expect(analyzePair({ raw, image: new Uint8Array(jpg.subarray(0, 5000)) })).rejects.toBeInstanceOf(FileError);
    await expect(analyzePair({ raw, image: fixture('images/rs_sample1.webp') })).rejects.toBeInstanceOf(FileError);
    await expect(analyzePair({ raw: fixture('raw/exiftool_nikon_d70_stub.nef'), image: new Uint8Array(jpg) })).rejects.toBeInstanceOf(FileError);
  });
});
