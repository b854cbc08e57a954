import { z } from 'zod';
import { defineEvent, type EventOf } from '../../core/es/events.js';

/**
 * The comments of one verification, in the stream `comments-<verification_id>` (apart from the
 * verification's own stream, so a discussion never contends with processing). The author's
 * name is recorded with the comment: it stays readable after the author leaves the account.
 */
export const commentEvents = {
  CommentAdded: defineEvent(
    'CommentAdded',
    z.object({
      comment_id: z.uuid(),
      author_user_id: z.uuid(),
      author_name: z.string(),
      body: z.string(),
      added_at: z.iso.datetime(),
    }),
  ),
  CommentEdited: defineEvent('CommentEdited', z.object({ comment_id: z.uuid(), body: z.string(), edited_at: z.iso.datetime() })),
  CommentDeleted: defineEvent('CommentDeleted', z.object({ comment_id: z.uuid(), deleted_at: z.iso.datetime() })),
} as const;
export type CommentEvent = EventOf<typeof commentEvents>;
