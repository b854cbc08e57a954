/**
 * COSE_Sign1 for the C2PA claim signature. c2pa-wasm hands the claim bytes to our callback and
 * expects back a complete tagged COSE_Sign1 padded to exactly `reserveSize` bytes (any other
 * size reads back Invalid): protected {alg ES256, x5chain}, unprotected {sigTst2?, pad},
 * detached (nil) payload, IEEE P1363 signature over the Sig_structure.
 */
import { sign, type KeyObject } from 'node:crypto';
import { CborMap, CborTagged, encodeCbor, type CborValue } from './cbor.js';

const COSE_ALG = 1;
const COSE_X5CHAIN = 33;
const ES256 = -7;
const COSE_SIGN1_TAG = 18;

export interface CoseKeys {
  privateKey: KeyObject;
  /** End-entity certificate first, then its issuers (DER). */
  chain: Uint8Array[];
}

/** Returns an RFC 3161 TimeStampToken (DER) over the given bytes. */
export type Timestamper = (data: Uint8Array) => Promise<Uint8Array>;

const headLength = (n: number): number => (n < 24 ? 1 : n < 0x100 ? 2 : n < 0x10000 ? 3 : 5);
/** Encoded size of a text label plus a byte string of n bytes. */
const padEntrySize = (label: string, n: number): number => 1 + label.length + headLength(n) + n;

/** Byte-string sizes for "pad" (and "pad2" when one alone cannot hit the size) adding `extra` bytes. */
function padSizes(extra: number): { pad: number; pad2?: number } {
  const single = (budget: number): number | undefined => {
    for (let n = Math.max(0, budget - 10); n <= budget; n++) if (padEntrySize('pad', n) === budget) return n;
    return undefined;
  };
  const one = single(extra);
  if (one !== undefined) return { pad: one };
  for (let n2 = 0; n2 < 32; n2++) {
    const rest = single(extra - padEntrySize('pad2', n2));
    if (rest !== undefined) return { pad: rest, pad2: n2 };
  }
  throw new RangeError(`COSE: cannot pad by ${extra} bytes`);
}

export async function buildCoseSign1(
  claim: Uint8Array,
  keys: CoseKeys,
  reserveSize: number,
  timestamper?: Timestamper,
): Promise<Uint8Array> {
  const protectedBytes = encodeCbor(new CborMap([[COSE_ALG, ES256], [COSE_X5CHAIN, keys.chain]]));
  const empty = new Uint8Array(0);
  const toBeSigned = encodeCbor(['Signature1', protectedBytes, empty, claim]);
  const signature = new Uint8Array(sign('sha256', toBeSigned, { key: keys.privateKey, dsaEncoding: 'ieee-p1363' }));

  const unprotected: Array<[string, CborValue]> = [];
  if (timestamper) {
    // C2PA v2 timestamps (sigTst2): the TSA countersigns the CBOR-encoded signature.
    const counterSigned = encodeCbor(['CounterSignature', protectedBytes, empty, encodeCbor(signature)]);
    const token = await timestamper(counterSigned);
    unprotected.push(['sigTst2', new CborMap([['tstTokens', [new CborMap([['val', token]])]]])]);
  }
  const assemble = (entries: Array<[string, CborValue]>): Uint8Array =>
    encodeCbor(new CborTagged(COSE_SIGN1_TAG, [protectedBytes, new CborMap(entries), null, signature]));

  const unpadded = assemble(unprotected).length;
  if (unpadded > reserveSize) {
    throw new RangeError(`COSE: signature needs ${unpadded} bytes but only ${reserveSize} are reserved`);
  }
  const sizes = padSizes(reserveSize - unpadded);
  const entries: Array<[string, CborValue]> = [...unprotected, ['pad', new Uint8Array(sizes.pad)]];
  if (sizes.pad2 !== undefined) entries.push(['pad2', new Uint8Array(sizes.pad2)]);
  const result = assemble(entries);
  if (result.length !== reserveSize) throw new RangeError(`COSE: padded to ${result.length}, expected ${reserveSize}`);
  return result;
}
