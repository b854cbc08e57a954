import { z } from 'zod';
import { defineEvent, type EventOf } from '../../core/es/events.js';
import { streamName } from '../../core/es/streams.js';

/**
 * One verification request, in the stream `request-<request_id>`: its creation, changes, closing
 * or deletion, each submission counted against `max_submissions` (decided on this stream with
 * optimistic concurrency, so concurrent uploads never pass the cap), and the expiry the durable
 * timer records when `expires_at` passes. The events belong to the requester's account.
 */
export const requestStream = (requestId: string) => streamName('request', requestId);

export const requestModes = ['existing_original', 'capture'] as const;
export type RequestMode = (typeof requestModes)[number];

/** The fields an owner sets at creation and may change while the request is open. */
const settings = {
  subject: z.string(),
  instructions: z.string(),
  mode: z.enum(requestModes),
  expires_at: z.iso.datetime(),
  max_submissions: z.number().int().positive(),
  share_with_provider: z.boolean(),
};

export const requestEvents = {
  RequestCreated: defineEvent(
    'RequestCreated',
    z.object({
      ...settings,
      /** The provider's credential (shown to the owner, so kept): never in the audit history. */
      token: z.string(),
      /** What a provider's token is looked up and compared by (constant time). */
      token_sha256: z.string().regex(/^[0-9a-f]{64}$/),
      created_at: z.iso.datetime(),
    }),
    { redact: ['token', 'token_sha256'] },
  ),
  /** The fields a PATCH changed, with their new values. */
  RequestUpdated: defineEvent('RequestUpdated', z.object({ changes: z.object(settings).partial(), updated_at: z.iso.datetime() })),
  /** Terminal: `PATCH {"status": "closed"}`. */
  RequestClosed: defineEvent('RequestClosed', z.object({ closed_at: z.iso.datetime() })),
  RequestDeleted: defineEvent('RequestDeleted', z.object({ deleted_at: z.iso.datetime() })),
  /**
   * A provider's upload, counted before its files are received (so the cap holds): the
   * verification it creates has this id. `submission_count` includes it.
   */
  RequestSubmissionReceived: defineEvent(
    'RequestSubmissionReceived',
    z.object({ verification_id: z.uuid(), submission_count: z.number().int().positive(), received_at: z.iso.datetime() }),
  ),
  /** A counted upload whose verification was not created (bad files, quota): its place goes back. */
  RequestSubmissionWithdrawn: defineEvent(
    'RequestSubmissionWithdrawn',
    z.object({ verification_id: z.uuid(), submission_count: z.number().int().nonnegative(), reason: z.string(), withdrawn_at: z.iso.datetime() }),
  ),
  /** `expires_at` passed while the request was open: recorded by the expiry workflow's timer. */
  RequestExpired: defineEvent('RequestExpired', z.object({ expires_at: z.iso.datetime(), expired_at: z.iso.datetime() })),
} as const;
export type RequestEvent = EventOf<typeof requestEvents>;
