import { z } from 'zod';
import { defineEvent, type EventOf } from '../../core/es/events.js';

const color = z.string().regex(/^#[0-9a-f]{6}$/).nullable();
const tagRef = z.object({ id: z.uuid(), name: z.string() });

/**
 * An account's tag vocabulary, in the one stream `tags-<account_id>`: every name the account
 * uses, so the uniqueness of names (case-insensitive) is decided against the whole vocabulary
 * and guarded by the stream's expected revision (D-032).
 */
export const tagEvents = {
  TagCreated: defineEvent('TagCreated', z.object({ tag_id: z.uuid(), name: z.string(), color, created_at: z.iso.datetime() })),
  TagRenamed: defineEvent('TagRenamed', z.object({ tag_id: z.uuid(), from: z.string(), to: z.string(), renamed_at: z.iso.datetime() })),
  TagRecoloured: defineEvent('TagRecoloured', z.object({ tag_id: z.uuid(), from: color, to: color, recoloured_at: z.iso.datetime() })),
  /** Also detaches the tag from every verification: no per-verification event is needed (D-033). */
  TagDeleted: defineEvent('TagDeleted', z.object({ tag_id: z.uuid(), name: z.string(), deleted_at: z.iso.datetime() })),
} as const;
export type TagEvent = EventOf<typeof tagEvents>;

/**
 * The tags on one verification, in the stream `verification_tags-<verification_id>` (apart from
 * the verification's own stream, so tagging never contends with its processing). `tag_ids` is
 * the whole list after the change; `added` and `removed` name the difference, with the names
 * the tags had then, for the audit history.
 */
export const verificationTagEvents = {
  VerificationTagsChanged: defineEvent(
    'VerificationTagsChanged',
    z.object({ tag_ids: z.array(z.uuid()), added: z.array(tagRef), removed: z.array(tagRef), changed_at: z.iso.datetime() }),
  ),
} as const;
export type VerificationTagEvent = EventOf<typeof verificationTagEvents>;
