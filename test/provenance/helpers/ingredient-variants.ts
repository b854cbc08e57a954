/**
 * Variants of the shared fixture pt_adobe-20220124-CAICAI.jpg whose failures sit only in the
 * ingredient's manifest (the active manifest stays intact), derived in memory, never written
 * into the repository:
 *
 * - `assertion`: one letter of the ingredient manifest's CreativeWork assertion changed
 *   ("Adobe make_test" -> "adobe make_test"): the ingredient's claim no longer matches it
 *   (assertion.hashedURI.mismatch in the ingredient's delta);
 * - `signature`: one byte of the ingredient manifest's signature flipped (claimSignature.mismatch);
 * - `both`: the two together, as in the file reported in issue 10.
 *
 * Offsets are found in the file, not hard-coded: the ingredient manifest's superbox lies before
 * the active one in the store, and the signature's CBOR box must sit inside one APP11 segment.
 */
import { readFileSync } from 'node:fs';
import { c2paWasm } from '../../../src/provenance/c2pa-runtime.js';
import { fixture } from './paths.js';

export type IngredientVariant = 'assertion' | 'signature' | 'both';

export const ingredientVariantSource = 'c2pa/pt_adobe-20220124-CAICAI.jpg';

interface Layout {
  bytes: Buffer;
  assertionByte: number;
  signatureByte: number;
}

let layout: Layout | undefined;

/** JPEG APP11 segments as [start, end) ranges of the file. */
function app11Segments(bytes: Buffer): Array<[number, number]> {
  const segments: Array<[number, number]> = [];
  for (let i = 2; i + 4 <= bytes.length && bytes[i] === 0xff; ) {
    const marker = bytes[i + 1];
    const length = bytes.readUInt16BE(i + 2);
    if (marker === 0xeb) segments.push([i, i + 2 + length]);
    if (marker === 0xda) break;
    i += 2 + length;
  }
  return segments;
}

async function findLayout(): Promise<Layout> {
  const bytes = readFileSync(fixture(ingredientVariantSource));
  const { WasmReader } = c2paWasm();
  const reader = await WasmReader.fromBytes('image/jpeg', bytes, JSON.stringify({ verify: { remote_manifest_fetch: false, ocsp_fetch: false } }));
  const store = JSON.parse(reader.json()) as { active_manifest: string; manifests: Record<string, { ingredients?: Array<{ active_manifest?: string }> }> };
  reader.free();
  const ingredientLabel = store.manifests[store.active_manifest]?.ingredients?.find((i) => i.active_manifest)?.active_manifest;
  if (!ingredientLabel) throw new Error('the fixture no longer has an ingredient with a manifest');
  const ingredientStart = bytes.indexOf(Buffer.from(ingredientLabel, 'latin1'));
  const activeStart = bytes.indexOf(Buffer.from(store.active_manifest, 'latin1'));
  if (ingredientStart < 0 || activeStart < ingredientStart) throw new Error('expected the ingredient manifest before the active one');

  const assertionByte = bytes.indexOf(Buffer.from('Adobe make_test', 'latin1'), ingredientStart);
  if (assertionByte < 0 || assertionByte > activeStart) throw new Error('no CreativeWork author in the ingredient manifest');

  // The signature box: the JUMD label "c2pa.signature\0" followed by a 'cbor' content box.
  const label = Buffer.from('c2pa.signature\0', 'latin1');
  let signatureByte = -1;
  for (let at = bytes.indexOf(label, ingredientStart); at >= 0 && at < activeStart; at = bytes.indexOf(label, at + 1)) {
    const box = at + label.length;
    if (bytes.toString('latin1', box + 4, box + 8) !== 'cbor') continue;
    const end = box + bytes.readUInt32BE(box);
    const segment = app11Segments(bytes).find(([start, stop]) => start <= box && end <= stop);
    if (!segment) throw new Error('the signature box spans two APP11 segments');
    signatureByte = end - 10; // inside the ECDSA signature, the last item of the COSE_Sign1
    break;
  }
  if (signatureByte < 0) throw new Error('no signature box in the ingredient manifest');
  return { bytes, assertionByte, signatureByte };
}

export async function ingredientVariant(kind: IngredientVariant): Promise<Buffer> {
  layout ??= await findLayout();
  const copy = Buffer.from(layout.bytes);
  if (kind !== 'signature') copy[layout.assertionByte] = 'a'.charCodeAt(0);
  if (kind !== 'assertion') copy[layout.signatureByte] = (copy[layout.signatureByte] ?? 0) ^ 0x01;
  return copy;
}
