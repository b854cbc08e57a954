import type { Knex } from 'knex';

/** A row of the comments read model (projection.ts owns the table). */
export interface CommentRow {
  id: string;
  verification_id: string;
  author_user_id: string;
  author_name: string;
  body: string;
  created_at: Date | string;
  updated_at: Date | string;
  edited_at: Date | string | null;
  added_position: string;
  last_position: string;
}

export const commentsTable = (knex: Knex) => knex<CommentRow>('comments');

/** A verification's comments, oldest first. */
export const commentsOf = (knex: Knex, verificationId: string): Promise<CommentRow[]> =>
  commentsTable(knex).where({ verification_id: verificationId }).orderBy([{ column: 'created_at' }, { column: 'added_position' }]);

/** The comment count of the verification whose id is in `idColumn`, as a correlated subquery. */
export const commentCountColumn = (knex: Knex, idColumn: string): Knex.Raw => knex.raw('select count(*)::int from comments c where c.verification_id = ??', [idColumn]);
