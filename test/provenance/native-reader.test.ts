import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { loadNativeReader, wasmReader, type C2paReader } from '../../src/provenance/c2pa-reader.js';
import { detectImageFormat, mimeTypes } from '../../src/provenance/format.js';
import { readerContext } from '../../src/provenance/read.js';
import { signVerifiedImage } from '../../src/provenance/sign.js';
import { derToPem } from '../../src/provenance/x509.js';
import { requires } from '../support/requires.js';
import { fixture } from './helpers/paths.js';
import { makeCa, signerFrom, validNow, type TestCa } from './helpers/pki.js';
import { startLocalTsa, type LocalTsa } from './helpers/tsa.js';
import { pairJpeg as jpeg, signInput as input } from './helpers/sign-input.js';

/**
 * The native reader (native/c2pa, D-058) must validate exactly as c2pa-wasm: same c2pa-rs, same
 * settings, so the same manifest store JSON, or the same error text where c2pa-rs throws.
 */
const loaded = loadNativeReader();
const native: C2paReader | undefined = 'reader' in loaded ? loaded.reader : undefined;
const gate = requires(
  { server: 'native C2PA reader', available: native !== undefined, how: 'npm run build:native (needs cargo; see README)' },
  'native against c2pa-wasm C2PA reader',
);

type Outcome = { store: Record<string, unknown> } | { error: string };

async function readWith(reader: C2paReader, bytes: Uint8Array, mime: string, anchors: string[]): Promise<Outcome> {
  try {
    return { store: JSON.parse(await reader.readJson(mime, bytes, readerContext(anchors))) as Record<string, unknown> };
  } catch (error) {
    // c2pa-wasm throws a string, the addon an Error: the text is what read.ts classifies.
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/** Reads with both; asserts the same state, the same status codes, the same whole store (or error). */
async function expectSameOutcome(bytes: Uint8Array, anchors: string[] = [], label = '', mime = mimeTypes[detectImageFormat(bytes)!]): Promise<Outcome> {
  const wasm = await readWith(wasmReader, bytes, mime, anchors);
  const nat = await readWith(native!, bytes, mime, anchors);
  if ('error' in wasm) {
    expect(nat, label).toEqual(wasm);
    return wasm;
  }
  expect('store' in nat, `${label}: native threw ${'error' in nat ? nat.error : ''}`).toBe(true);
  if (!('store' in nat)) return wasm;
  expect([label, nat.store.validation_state]).toEqual([label, wasm.store.validation_state]);
  expect(nat.store.validation_results, label).toEqual(wasm.store.validation_results);
  expect(nat.store, label).toEqual(wasm.store);
  return wasm;
}

const c2paFiles = readdirSync(fixture('c2pa')).sort();
const imageFiles = readdirSync(fixture('images')).sort();

gate.describe('native c2pa-rs reader against c2pa-wasm', () => {
  gate.it('is built from the c2pa-rs version c2pa-wasm wraps (its source paths are in the .wasm)', () => {
    const wasm = readFileSync(createRequire(import.meta.url).resolve('@contentauth/c2pa-wasm/c2pa.wasm')).toString('latin1');
    const wrapped = new Set([...wasm.matchAll(/\/c2pa-(\d+\.\d+\.\d+)\/src\//g)].map((m) => m[1]));
    expect([...wrapped]).toHaveLength(1);
    // On an upgrade of @contentauth/c2pa-wasm: pin the same c2pa in native/c2pa/Cargo.toml.
    expect(native!.description).toContain(`native c2pa-rs ${[...wrapped][0]} `);
  });

  gate.it('every file in fixtures/c2pa: same validation_state, status codes and manifest store, or the same error', { timeout: 300_000 }, async () => {
    const states = new Map<string, string>();
    for (const file of c2paFiles) {
      const outcome = await expectSameOutcome(readFileSync(fixture('c2pa', file)), [], file);
      states.set(file, 'error' in outcome ? outcome.error.slice(0, 30) : String(outcome.store.validation_state));
    }
    // The comparison covers every outcome kind the service maps: Valid, Invalid, and each thrown error.
    expect(states.get('rs_firefly.png')).toBe('Valid');
    expect(states.get('ms_cards_invalid.jpg')).toBe('Invalid');
    expect(states.get('pt_adobe-20220124-A.jpg')).toMatch(/^C2pa\(JumbfNotFound/);
    expect(states.get('rs_cloud_remote_manifest.jpg')).toMatch(/^C2pa\(RemoteManifestUrl/);
    expect(states.get('rs_no_alg.jpg')).toMatch(/^C2pa\(UnknownAlgorithm/);
    expect(states.get('rs_prerelease.jpg')).toMatch(/^C2pa\(PrereleaseError/);
  });

  gate.it('every image without credentials in fixtures/images: the same error', { timeout: 300_000 }, async () => {
    for (const file of imageFiles) {
      const outcome = await expectSameOutcome(readFileSync(fixture('images', file)), [], file);
      expect([file, 'error' in outcome]).toEqual([file, true]);
    }
  });

  gate.it('garbage and truncated input: the same error, no crash', async () => {
    const jpeg = readFileSync(fixture('c2pa', 'rs_verify_photoshop2022.jpeg'));
    for (const length of [0, 2, 200, 20_000, Math.floor(jpeg.length / 2)]) {
      const outcome = await expectSameOutcome(jpeg.subarray(0, length), [], `first ${length} bytes`, 'image/jpeg');
      if (length < 20_000) expect('error' in outcome).toBe(true);
    }
    for (const mime of ['image/jpeg', 'image/png', 'image/heic', 'image/tiff']) {
      const outcome = await expectSameOutcome(new Uint8Array(1000).fill(0xff), [], `1000 bytes of 0xff as ${mime}`, mime);
      expect('error' in outcome).toBe(true);
    }
  });

  describe('the credentials the service signs', () => {
    const heic = readFileSync(fixture('images/rs_sample1.heic'));
    let ca: TestCa;
    let tsa: LocalTsa;
    let anchor: string;
    beforeAll(async () => {
      ca = makeCa('PhotoVerify native-reader test CA');
      anchor = derToPem(ca.der);
      tsa = await startLocalTsa(ca);
    });
    afterAll(() => tsa?.close());

    gate.it('JPEG and HEIC, with and without a timestamp: Valid, Trusted with the anchor, Invalid once edited', { timeout: 300_000 }, async () => {
      const outputs = {
        jpeg: await signVerifiedImage(input(jpeg, 'image/jpeg'), signerFrom(ca, validNow())),
        heic: await signVerifiedImage(input(heic, 'image/heic'), signerFrom(ca, validNow())),
        'jpeg+timestamp': await signVerifiedImage(input(jpeg, 'image/jpeg'), signerFrom(ca, validNow(), tsa.url)),
      };
      for (const [name, signed] of Object.entries(outputs)) {
        const valid = await expectSameOutcome(signed, [], `${name}, no anchors`);
        expect('store' in valid && valid.store.validation_state).toBe('Valid');
        const trusted = await expectSameOutcome(signed, [anchor], `${name}, CA as anchor`);
        expect('store' in trusted && trusted.store.validation_state).toBe('Trusted');
        const edited = Buffer.from(signed);
        const at = edited.indexOf('eu-central');
        edited.write('eu-cantral', at, 'latin1');
        const invalid = await expectSameOutcome(edited, [anchor], `${name}, edited`);
        expect('store' in invalid && invalid.store.validation_state).toBe('Invalid');
      }
    });
  });
});
