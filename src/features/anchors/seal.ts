import { merkleRoot, recordHash, type AnchorRecord } from '../../core/audit/merkle.js';
import { signEs256 } from '../../provenance/es256.js';
import type { SignerConfig } from '../../provenance/signer-config.js';
import type { SealedAnchorBatch } from '../../../workflows/anchors/workflow.js';

/**
 * Seals a batch: the Merkle root (src/core/audit/merkle.ts) over the records' hashes in the given order,
 * and the signed tree head signed ES256 (ECDSA P-256 with SHA-256, IEEE P1363 r||s, base64) with
 * the service's signing key (the C2PA signer: C2PA_SIGNING_KEY/CHAIN or the development CA).
 */
export function sealBatch(batchId: string, records: readonly AnchorRecord[], sealedAt: Date, signer: SignerConfig): SealedAnchorBatch {
  const leaves = records.map((record) => ({ record: { ...record }, record_hash: recordHash(record) }));
  const root = merkleRoot(leaves.map((leaf) => leaf.record_hash));
  // The signed tree head; its canonical JSON (signature.signed) is also what a timestamp is over.
  const signature = signEs256({ batch_id: batchId, root, tree_size: leaves.length, sealed_at: sealedAt.toISOString() }, signer, 'Anchors');
  return {
    batch_id: batchId,
    sealed_at: sealedAt.toISOString(),
    root,
    tree_size: leaves.length,
    records: leaves,
    signature,
  };
}
