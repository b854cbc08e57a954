import type { Knex } from 'knex';
import type { StoredEvent } from '../../src/core/es/event-store.js';
import { assertNever, parseEvent } from '../../src/core/es/events.js';
import { insertOnce, type Projector, unapplied } from '../../src/core/es/projector.js';
import { streamInstance } from '../../src/core/es/streams.js';
import { verificationEvents } from '../../src/features/verifications/events.js';
import { commentEvents } from '../../src/features/comments/events.js';

/**
 * comments: one row per live comment. `added_position` (the position of its CommentAdded)
 * orders comments added in the same millisecond. A deleted comment's row goes; deleting the
 * verification removes its comments. Rows remember the position they reflect; changes and
 * deletions only touch older rows.
 */
export const commentsProjector: Projector = {
  name: 'comments',
  version: 1,
  tables: ['comments'],
  async migrate(knex) {
    await knex.raw(`
      create table if not exists comments (
        id uuid primary key,
        verification_id uuid not null,
        author_user_id uuid not null,
        author_name text not null,
        body text not null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        edited_at timestamptz,
        added_position numeric(20, 0) not null,
        last_position numeric(20, 0) not null
      )`);
    // Listing (oldest first) and counting per verification.
    await knex.raw('create index if not exists comments_verification on comments (verification_id, created_at, added_position)');
  },
  async apply(trx, stored) {
    if (stored.stream.startsWith('comments-')) return applyComment(trx, stored);
    if (stored.type === verificationEvents.VerificationDeleted.type) {
      await trx('comments').where({ verification_id: streamInstance('verification', stored.stream) }).delete();
    }
  },
};

async function applyComment(trx: Knex.Transaction, stored: StoredEvent): Promise<void> {
  const event = parseEvent(commentEvents, stored);
  if (!event) return;
  const position = stored.position.toString();
  const older = (id: string) => unapplied(trx, 'comments', { id }, position);
  switch (event.type) {
    case 'CommentAdded': {
      const d = event.data;
      await insertOnce(trx, 'comments', {
        id: d.comment_id,
        verification_id: streamInstance('comments', stored.stream),
        author_user_id: d.author_user_id,
        author_name: d.author_name,
        body: d.body,
        created_at: d.added_at,
        updated_at: d.added_at,
        edited_at: null,
        added_position: position,
        last_position: position,
      });
      return;
    }
    case 'CommentEdited':
      await older(event.data.comment_id).update({ body: event.data.body, updated_at: event.data.edited_at, edited_at: event.data.edited_at, last_position: position });
      return;
    case 'CommentDeleted':
      await older(event.data.comment_id).delete();
      return;
    default:
      assertNever(event);
  }
}
