import { z } from 'zod';
import { defineEvent, type EventOf } from '../../core/es/events.js';

export const accessTypes = ['anyone_with_link', 'restricted'] as const;
export type AccessType = (typeof accessTypes)[number];

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);
/** A per-share or per-invitation random value; the link token is an HMAC of it (tokens.ts). */
const nonce = z.string().regex(/^[A-Za-z0-9_-]{22,64}$/);

/**
 * One share per verification, in the stream `share-<verification_id>`: enabled, access changed,
 * invitations, disabled. Token material (the nonce the link is derived from, the hash the link
 * is found by) is in the events so the read models can be rebuilt, and redacted in the audit history.
 */
export const shareEvents = {
  ShareEnabled: defineEvent(
    'ShareEnabled',
    z.object({
      access_type: z.enum(accessTypes),
      nonce,
      token_sha256: sha256Hex,
      enabled_at: z.iso.datetime(),
    }),
    { redact: ['nonce', 'token_sha256'] },
  ),
  ShareAccessChanged: defineEvent(
    'ShareAccessChanged',
    z.object({ from: z.enum(accessTypes), to: z.enum(accessTypes), changed_at: z.iso.datetime() }),
  ),
  ShareDisabled: defineEvent(
    'ShareDisabled',
    z.object({
      /** The invitations removed with the share, so the history says who lost access. */
      revoked_emails: z.array(z.string()),
      disabled_at: z.iso.datetime(),
    }),
  ),
  ShareInvited: defineEvent(
    'ShareInvited',
    z.object({
      email: z.string(),
      nonce,
      token_sha256: sha256Hex,
      invited_at: z.iso.datetime(),
    }),
    { redact: ['nonce', 'token_sha256'] },
  ),
  ShareInviteRevoked: defineEvent('ShareInviteRevoked', z.object({ email: z.string(), revoked_at: z.iso.datetime() })),
} as const;
export type ShareEvent = EventOf<typeof shareEvents>;

/**
 * Views of a shared report, in the stream `shareviews-<verification_id>` (apart from the share,
 * so views never contend with the owner's changes). `visitor` is a keyed hash of the visitor key:
 * it counts distinct visitors without keeping anything that identifies them; redacted in the audit.
 */
export const shareViewEvents = {
  ShareViewed: defineEvent(
    'ShareViewed',
    z.object({
      visitor: z.string().regex(/^[0-9a-f]{32}$/),
      /** UTC day the view is counted on. */
      day: z.iso.date(),
      /** How the viewer had access. */
      access: z.enum(['link', 'invitation']),
      viewed_at: z.iso.datetime(),
    }),
    { redact: ['visitor'] },
  ),
} as const;
export type ShareViewEvent = EventOf<typeof shareViewEvents>;
