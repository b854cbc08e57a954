import { z } from 'zod';
import { defineEvent, type EventOf } from '../../core/es/events.js';
import { streamName } from '../../core/es/streams.js';

/**
 * The signed PDF reports issued of one verification, in the stream `pdfreport-<verification_id>`
 * (apart from the verification's own, so a download never contends with processing). Each PDF
 * is signed when it is asked for (its signing time is its own), so each one issued is a fact:
 * its digest lets anyone holding a copy show it is one the service issued.
 */
export const pdfReportStream = (verificationId: string) => streamName('pdfreport', verificationId);

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);

export const pdfReportEvents = {
  PdfReportIssued: defineEvent(
    'PdfReportIssued',
    z.object({
      /** SHA-256 of the signed PDF, as it was sent. */
      sha256,
      file_size_bytes: z.number().int().positive(),
      /** SHA-256 of the canonical JSON of the audit bundle the PDF names (the owner's, or the share link's). */
      audit_bundle_sha256: sha256,
      /** Who it was issued to: the verification's own account, or a reader of its share link. */
      audience: z.enum(['owner', 'share_link']),
      issued_at: z.iso.datetime(),
    }),
  ),
} as const;
export type PdfReportEvent = EventOf<typeof pdfReportEvents>;
