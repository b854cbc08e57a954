import { z } from 'zod';
import { isoDate } from '../../core/http/schemas.js';
import type { Comment } from './decider.js';
import type { CommentRow } from '../../../projections/comments/index.js';

/** The spec's Comment (2.5). */
export const commentSchema = z
  .object({
    id: z.uuid(),
    verification_id: z.uuid(),
    author_user_id: z.string().describe('The user who wrote it; with an API key, the user who created the key.'),
    author_name: z.string().describe("The author's name when the comment was written (kept after the author leaves the account)."),
    body: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
    edited_at: z.string().nullable().describe('When the body was last edited; null if never.'),
  })
  .openapi('Comment');

export type CommentView = z.infer<typeof commentSchema>;

export const toComment = (row: CommentRow): CommentView => ({
  id: row.id,
  verification_id: row.verification_id,
  author_user_id: row.author_user_id,
  author_name: row.author_name,
  body: row.body,
  created_at: isoDate(row.created_at)!,
  updated_at: isoDate(row.updated_at)!,
  edited_at: isoDate(row.edited_at),
});

/** A comment as its stream says right after a command (the read model may lag behind). */
export const fromState = (verificationId: string, c: Comment): CommentView => ({
  id: c.id,
  verification_id: verificationId,
  author_user_id: c.authorUserId,
  author_name: c.authorName,
  body: c.body,
  created_at: c.createdAt,
  updated_at: c.updatedAt,
  edited_at: c.editedAt,
});
