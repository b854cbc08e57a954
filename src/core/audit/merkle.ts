/**
 * The Merkle tree anchors are sealed with, as RFC 6962 section 2.1 (Certificate Transparency)
 * defines it, so anyone can re-derive a root or check a proof with nothing but SHA-256:
 * - a leaf's hash is `SHA-256(0x00 || leaf bytes)`, an inner node's `SHA-256(0x01 || left || right)`;
 * - a tree of n > 1 leaves splits at k, the largest power of two below n: left = the first k
 *   leaves, right = the rest (so an odd node is promoted unchanged, never duplicated);
 * - the leaves are the batch's record hashes as given (64 lowercase hex characters), taken as
 *   their 32 raw bytes.
 * `recordHash` is the leaf a verification contributes: `sha256hex(canonicalJson(record))` over
 * `{ verification_id, streams: [{ stream, revision, event_hash }], image_sha256, raw_sha256 }`
 * (issue 35), or the first format's `{ verification_id, stream, revision, event_hash, image_sha256, raw_sha256 }`.
 * Everything is hex in and hex out; Node's `node:crypto` suffices here (the browser verifier
 * re-derives the same with WebCrypto in src/core/audit/audit-verify.ts).
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';

/** What a verification is anchored as, either format: the verifier's types (audit-verify.ts), the one definition. */
export type { BundleAnchorRecord as AnchorRecord, SealedHead } from './audit-verify.js';
export { sealedHeadsOf as sealedHeads } from './audit-verify.js';
import type { BundleAnchorRecord as AnchorRecord } from './audit-verify.js';

const HEX_DIGEST = /^[0-9a-f]{64}$/;

function sha256(...parts: Uint8Array[]): Buffer {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest();
}

function digestBytes(hex: string): Buffer {
  if (!HEX_DIGEST.test(hex)) throw new Error(`not a SHA-256 hex digest: ${JSON.stringify(hex)}`);
  return Buffer.from(hex, 'hex');
}

const LEAF_PREFIX = Uint8Array.of(0);
const NODE_PREFIX = Uint8Array.of(1);

function leafHash(leaf: Buffer): Buffer {
  return sha256(LEAF_PREFIX, leaf);
}

function nodeHash(left: Buffer, right: Buffer): Buffer {
  return sha256(NODE_PREFIX, left, right);
}

/** The largest power of two strictly below n (n > 1): where RFC 6962 splits a tree of n leaves. */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

function subtreeRoot(leaves: readonly Buffer[]): Buffer {
  if (leaves.length === 1) return leafHash(leaves[0]!);
  const k = splitPoint(leaves.length);
  return nodeHash(subtreeRoot(leaves.slice(0, k)), subtreeRoot(leaves.slice(k)));
}

/** The Merkle tree hash of the record hashes, in order. A batch is never empty. */
export function merkleRoot(leaves: readonly string[]): string {
  if (leaves.length === 0) throw new Error('a Merkle tree needs at least one leaf');
  return subtreeRoot(leaves.map(digestBytes)).toString('hex');
}

/**
 * The audit path of leaf `index` (RFC 6962 2.1.1), bottom-up: the sibling hashes a verifier
 * combines with the leaf to reach the root. A tree of one leaf has an empty path.
 */
export function inclusionProof(leaves: readonly string[], index: number): string[] {
  if (!Number.isInteger(index) || index < 0 || index >= leaves.length) {
    throw new Error(`leaf index ${index} is outside a tree of ${leaves.length}`);
  }
  const path: Buffer[] = [];
  const walk = (nodes: readonly Buffer[], m: number): void => {
    if (nodes.length === 1) return;
    const k = splitPoint(nodes.length);
    if (m < k) {
      walk(nodes.slice(0, k), m);
      path.push(subtreeRoot(nodes.slice(k)));
    } else {
      walk(nodes.slice(k), m - k);
      path.push(subtreeRoot(nodes.slice(0, k)));
    }
  };
  walk(leaves.map(digestBytes), index);
  return path.map((node) => node.toString('hex'));
}

/**
 * Whether `proof` shows the record hash `leaf` at `index` in a tree of `treeSize` leaves whose
 * root is `root` (RFC 9162 2.1.3.2, the same tree as RFC 6962). Never throws on a malformed
 * input: anything that does not check out is simply false.
 */
export function verifyInclusion(
  leaf: string,
  index: number,
  treeSize: number,
  proof: readonly string[],
  root: string,
): boolean {
  if (!Number.isInteger(index) || !Number.isInteger(treeSize) || index < 0 || index >= treeSize) return false;
  if (!HEX_DIGEST.test(leaf) || !HEX_DIGEST.test(root) || !proof.every((node) => HEX_DIGEST.test(node))) return false;
  let fn = index;
  let sn = treeSize - 1;
  let r = leafHash(digestBytes(leaf));
  for (const node of proof) {
    if (sn === 0) return false;
    const sibling = digestBytes(node);
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(sibling, r);
      // A right-most node without a sibling at this level is promoted: skip levels until it has one.
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = nodeHash(r, sibling);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && r.toString('hex') === root;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The leaf a verification contributes to its batch's tree (docs/audit.md "Anchors": both formats). */
export function recordHash(record: AnchorRecord): string {
  if ('streams' in record) {
    return sha256Hex(
      canonicalJson({
        verification_id: record.verification_id,
        streams: record.streams.map((h) => ({ stream: h.stream, revision: h.revision, event_hash: h.event_hash })),
        image_sha256: record.image_sha256,
        raw_sha256: record.raw_sha256,
      }),
    );
  }
  return sha256Hex(
    canonicalJson({
      verification_id: record.verification_id,
      stream: record.stream,
      revision: record.revision,
      event_hash: record.event_hash,
      image_sha256: record.image_sha256,
      raw_sha256: record.raw_sha256,
    }),
  );
}
