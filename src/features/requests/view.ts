import { z } from 'zod';
import { isoDate } from '../../core/http/schemas.js';
import { isExpired } from './decider.js';
import { requestModes } from './events.js';
import type { RequestRow } from '../../../projections/requests/index.js';

/** Where a request's provider page is served: `<PUBLIC_BASE_URL>/r/<token>` (the `url` handed to the provider). */
export const PROVIDER_PAGE_PREFIX = '/r/';

export const providerPageUrl = (publicBaseUrl: string, token: string) => `${publicBaseUrl}${PROVIDER_PAGE_PREFIX}${encodeURIComponent(token)}`;

/** The spec's Verification request (2.7). */
export const requestSchema = z
  .object({
    id: z.uuid(),
    subject: z.string(),
    instructions: z.string(),
    mode: z.enum(requestModes).describe('capture: the provider must upload with a capture attestation (POST /capture/challenge, /capture/attestation).'),
    status: z.enum(['open', 'closed', 'expired']).describe('closed: closed by its owner (terminal); expired: open, but expires_at has passed (derived when read).'),
    expires_at: z.string(),
    closed_at: z.string().nullable().describe('When it was closed; null while not closed.'),
    max_submissions: z.number().int(),
    submission_count: z.number().int(),
    share_with_provider: z.boolean().describe("Whether the provider sees the verification's report page after submitting (else a short result)."),
    token: z.string().describe("The provider's credential (256 random bits): whoever has it can submit. Part of url."),
    url: z.string().describe('The link to hand to the provider: its upload page.'),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('VerificationRequest');

export type RequestView = z.infer<typeof requestSchema>;

/** The status a reader sees: closed as recorded, else open or expired by the clock (spec 3.3). */
export const statusAt = (row: Pick<RequestRow, 'status' | 'expires_at'>, now: Date): RequestView['status'] =>
  row.status === 'closed' ? 'closed' : isExpired({ expires_at: isoDate(row.expires_at)! }, now) ? 'expired' : 'open';

export function toRequestView(row: RequestRow, publicBaseUrl: string, now: Date): RequestView {
  return {
    id: row.id,
    subject: row.subject,
    instructions: row.instructions,
    mode: row.mode,
    status: statusAt(row, now),
    expires_at: isoDate(row.expires_at)!,
    closed_at: isoDate(row.closed_at),
    max_submissions: row.max_submissions,
    submission_count: row.submission_count,
    share_with_provider: row.share_with_provider,
    token: row.token,
    url: providerPageUrl(publicBaseUrl, row.token),
    created_at: isoDate(row.created_at)!,
    updated_at: isoDate(row.updated_at)!,
  };
}
