import { z } from 'zod';
import { defineEvent, type EventOf } from '../../core/es/events.js';
import { streamName } from '../../core/es/streams.js';
import { psdExportStream } from '../psd-export/events.js';
import { verificationStream } from '../verifications/events.js';

/**
 * One anchor batch, in the stream `anchor-<batch_id>`: its sealing (the Merkle root over its
 * records, signed) and then the outcome of its RFC 3161 timestamp, when a timestamp authority is
 * configured. Batch ids are consecutive integers from 1 (docs/audit.md, "Anchors"): batch n is
 * sealed only once batch n - 1 is, so no completed verification is in two batches. The events
 * belong to no account (the service's own record).
 */
export const anchorStream = (batchId: string) => streamName('anchor', batchId);

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);

const sealedHead = z.object({ stream: z.string(), revision: z.number().int().nonnegative(), event_hash: z.string() });

/** What a verification is anchored as (src/core/audit/merkle.ts AnchorRecord): the second format (issue 35) or the first. */
export const anchorRecordSchema = z.union([
  z.object({ verification_id: z.uuid(), streams: z.array(sealedHead).min(1), image_sha256: z.string(), raw_sha256: z.string().nullable() }),
  sealedHead.extend({ verification_id: z.uuid(), image_sha256: z.string(), raw_sha256: z.string().nullable() }),
]);

/**
 * The streams of a verification that its audit bundle carries and its anchor records seal: the
 * one list both read (src/features/auditor/bundle.ts, projections/anchors).
 */
export const sealedStreamsOf = (verificationId: string): string[] => [verificationStream(verificationId), psdExportStream(verificationId)].sort();

export const anchorEvents = {
  /**
   * The batch's records in leaf order, the Merkle root over their record hashes and the signature
   * of the signed tree head (`signed`: the canonical JSON of { batch_id, root, tree_size, sealed_at }).
   */
  AnchorBatchSealed: defineEvent(
    'AnchorBatchSealed',
    z.object({
      batch_id: z.string(),
      sealed_at: z.iso.datetime(),
      root: hex64,
      tree_size: z.number().int().positive(),
      records: z.array(z.object({ record: anchorRecordSchema, record_hash: hex64 })),
      signature: z.object({ algorithm: z.literal('ES256'), value: z.string(), signed: z.string(), certificate_chain: z.array(z.string()) }),
    }),
  ),
  /** The authority's TimeStampToken (base64 DER) over SHA-256 of the signed bytes. */
  AnchorBatchTimestamped: defineEvent('AnchorBatchTimestamped', z.object({ authority: z.string(), token: z.string(), timestamped_at: z.iso.datetime() })),
  /** The authority did not grant a token after every attempt: the batch stays sealed and signed, without a timestamp. */
  AnchorTimestampFailed: defineEvent('AnchorTimestampFailed', z.object({ authority: z.string(), reason: z.string(), failed_at: z.iso.datetime() })),
} as const;
export type AnchorEvent = EventOf<typeof anchorEvents>;
