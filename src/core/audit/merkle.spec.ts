import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { inclusionProof, merkleRoot, recordHash, verifyInclusion } from './merkle.js';

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest();
const leafOf = (i: number) => createHash('sha256').update(`record ${i}`).digest('hex');
const leaves = (n: number) => Array.from({ length: n }, (_, i) => leafOf(i));
const flip = (hex: string) => (hex[0] === '0' ? '1' : '0') + hex.slice(1);

/** RFC 6962 2.1 written out independently: MTH(D[n]) over raw leaf bytes. */
function referenceRoot(items: Buffer[]): Buffer {
  if (items.length === 1) return sha(Buffer.concat([Buffer.of(0), items[0]!]));
  let k = 1;
  while (k << 1 < items.length) k <<= 1;
  return sha(Buffer.concat([Buffer.of(1), referenceRoot(items.slice(0, k)), referenceRoot(items.slice(k))]));
}

describe('merkle (RFC 6962)', () => {
  it('a one-leaf tree is the leaf hash with the 0x00 prefix', () => {
    const leaf = leafOf(0);
    expect(merkleRoot([leaf])).toBe(sha(Buffer.concat([Buffer.of(0), Buffer.from(leaf, 'hex')])).toString('hex'));
    expect(inclusionProof([leaf], 0)).toEqual([]);
  });

  it('three leaves: the odd right node is promoted, not duplicated', () => {
    const [a, b, c] = leaves(3).map((h) => sha(Buffer.concat([Buffer.of(0), Buffer.from(h, 'hex')])));
    const ab = sha(Buffer.concat([Buffer.of(1), a!, b!]));
    expect(merkleRoot(leaves(3))).toBe(sha(Buffer.concat([Buffer.of(1), ab, c!])).toString('hex'));
  });

  for (let size = 1; size <= 17; size += 1) {
    it(`a tree of ${size}: the root matches the reference and every leaf's proof verifies; any change fails`, () => {
      const items = leaves(size);
      const root = merkleRoot(items);
      expect(root).toBe(referenceRoot(items.map((h) => Buffer.from(h, 'hex'))).toString('hex'));
      for (let index = 0; index < size; index += 1) {
        const proof = inclusionProof(items, index);
        expect(verifyInclusion(items[index]!, index, size, proof, root)).toBe(true);
        // a wrong leaf or root
        expect(verifyInclusion(flip(items[index]!), index, size, proof, root)).toBe(false);
        expect(verifyInclusion(items[index]!, index, size, proof, flip(root))).toBe(false);
        // every other index of the same tree, and indexes outside it
        for (let other = 0; other < size; other += 1) {
          if (other !== index) expect(verifyInclusion(items[index]!, other, size, proof, root)).toBe(false);
        }
        expect(verifyInclusion(items[index]!, size, size, proof, root)).toBe(false);
        expect(verifyInclusion(items[index]!, -1, size, proof, root)).toBe(false);
        // a wrong size whose path for this index has another shape (a size with the same path
        // shape cannot be told from the proof alone: the size is bound by the signed tree head)
        for (let other = 1; other <= size + 2; other += 1) {
          if (other === size || index >= other) continue;
          if (inclusionProof(leaves(other), index).length !== proof.length) {
            expect(verifyInclusion(items[index]!, index, other, proof, root)).toBe(false);
          }
        }
        // each wrong sibling, a missing one and an extra one
        proof.forEach((_, at) => {
          const tampered = proof.map((node, j) => (j === at ? flip(node) : node));
          expect(verifyInclusion(items[index]!, index, size, tampered, root)).toBe(false);
        });
        if (proof.length > 0) expect(verifyInclusion(items[index]!, index, size, proof.slice(1), root)).toBe(false);
        expect(verifyInclusion(items[index]!, index, size, [...proof, leafOf(99)], root)).toBe(false);
      }
    });
  }

  it('malformed input is false, not an exception', () => {
    const items = leaves(4);
    const root = merkleRoot(items);
    expect(verifyInclusion('zz', 0, 4, inclusionProof(items, 0), root)).toBe(false);
    expect(verifyInclusion(items[0]!, -1, 4, [], root)).toBe(false);
    expect(verifyInclusion(items[0]!, 0, 4, ['not hex'], root)).toBe(false);
    expect(() => merkleRoot([])).toThrow();
    expect(() => inclusionProof(items, 4)).toThrow();
  });

  it('recordHash is the SHA-256 of the record canonical JSON (keys sorted, no spaces)', () => {
    const record = {
      verification_id: 'v1',
      stream: 'verification-v1',
      revision: 3,
      event_hash: 'a'.repeat(64),
      image_sha256: 'b'.repeat(64),
      raw_sha256: null,
    };
    const expected = createHash('sha256')
      .update(
        `{"event_hash":"${'a'.repeat(64)}","image_sha256":"${'b'.repeat(64)}","raw_sha256":null,"revision":3,"stream":"verification-v1","verification_id":"v1"}`,
      )
      .digest('hex');
    expect(recordHash(record)).toBe(expected);
    expect(recordHash({ ...record, revision: 4 })).not.toBe(expected);
  });
});
