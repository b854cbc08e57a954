import { sign } from 'node:crypto';
import { canonicalJson } from '../../core/canonical-json.js';
import { merkleRoot, recordHash, type AnchorRecord } from '../../core/merkle.js';
import type { SignerConfig } from '../../provenance/signer-config.js';
import { derToPem } from '../../provenance/x509.js';
import type { SealedAnchorBatch } from '../../../workflows/anchors/workflow.js';

/** The bytes an anchor's signature and timestamp are over: the signed tree head's canonical JSON. */
export const signedTreeHead = (head: { batch_id: string; root: string; tree_size: number; sealed_at: string }): string =>
  canonicalJson({ batch_id: head.batch_id, root: head.root, tree_size: head.tree_size, sealed_at: head.sealed_at });

/** The published certificate chain: the signer's end-entity certificate first, as PEM. */
export const certificateChainPem = (signer: SignerConfig): string[] => signer.chain.map(derToPem);

/**
 * Seals a batch: the Merkle root (src/core/merkle.ts) over the records' hashes in the given order,
 * and the signed tree head signed ES256 (ECDSA P-256 with SHA-256, IEEE P1363 r||s, base64) with
 * the service's signing key (the C2PA signer: C2PA_SIGNING_KEY/CHAIN or the development CA).
 */
export function sealBatch(batchId: string, records: readonly AnchorRecord[], sealedAt: Date, signer: SignerConfig): SealedAnchorBatch {
  const details = signer.privateKey.asymmetricKeyDetails;
  if (signer.privateKey.asymmetricKeyType !== 'ec' || details?.namedCurve !== 'prime256v1') {
    // ES256 is what the verifier checks: a key of another kind would seal anchors nobody can check.
    throw new Error('Anchors are signed ES256: C2PA_SIGNING_KEY must be an EC P-256 key.');
  }
  const leaves = records.map((record) => ({ record: { ...record }, record_hash: recordHash(record) }));
  const root = merkleRoot(leaves.map((leaf) => leaf.record_hash));
  const signed = signedTreeHead({ batch_id: batchId, root, tree_size: leaves.length, sealed_at: sealedAt.toISOString() });
  const value = sign('sha256', Buffer.from(signed, 'utf8'), { key: signer.privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64');
  return {
    batch_id: batchId,
    sealed_at: sealedAt.toISOString(),
    root,
    tree_size: leaves.length,
    records: leaves,
    signature: { algorithm: 'ES256', value, signed, certificate_chain: certificateChainPem(signer) },
  };
}
