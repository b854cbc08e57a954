import type { Decider } from '../../core/es/decider.js';
import { AccessDeniedError, NotFoundError, UnprocessableError } from '../../core/errors.js';
import { assertNever } from '../../core/es/events.js';
import type { UserRole } from '../../core/principal.js';
import { streamName } from '../../core/es/streams.js';
import { multiLineTextProblem } from '../../core/text/text.js';
import { verificationNotFound } from '../verifications/index.js';
import { commentEvents, type CommentEvent } from './events.js';

export const commentsStream = (verificationId: string) => streamName('comments', verificationId);

/** Longest comment body, in characters (UTF-16 code units), after trimming (D-037). */
export const MAX_COMMENT_LENGTH = 5000;
/** Comments one verification may hold at a time; deleting one frees its place (D-037). */
export const MAX_COMMENTS_PER_VERIFICATION = 500;

/**
 * What the verifications read model says of the verification when the command is given: its
 * account, or null when it does not exist (or was deleted). The decider itself stays pure.
 */
export type VerificationFacts = { account_id: string } | null;

/** The calling user as the request authenticated them (an API key acts as the user who created it). */
export interface Commenter {
  account_id: string;
  user_id: string;
  role: UserRole;
}

interface CommentCommandBase {
  caller: Commenter;
  verification: VerificationFacts;
  now: Date;
}

export type CommentCommand =
  | (CommentCommandBase & { type: 'AddComment'; comment_id: string; author_name: string; body: string })
  | (CommentCommandBase & { type: 'EditComment'; comment_id: string; body: string })
  | (CommentCommandBase & { type: 'DeleteComment'; comment_id: string });

export interface Comment {
  id: string;
  authorUserId: string;
  authorName: string;
  body: string;
  createdAt: string;
  updatedAt: string;
  editedAt: string | null;
}

/** The live comments, oldest first (a Map keeps insertion order). */
export interface CommentsState {
  comments: Map<string, Comment>;
}

export const commentNotFound = () =>
  new NotFoundError('COMMENT_NOT_FOUND', 'Comment not found on this verification.', {
    suggestion: 'List its comments with GET /v1/verifications/{verification_id}/comments.',
  });

/**
 * A body as it is stored: surrounding white space removed. The spec's comment rules (empty,
 * oversized) and ours (multiLineTextProblem: no control characters but tab and line breaks, no bidi
 * formatting or invisible characters) are 422 VALIDATION_ERROR
 * in the error envelope, like the tag rules; the request schema only checks the body is a
 * storable string (docs/errors.md, "Two 422 shapes").
 */
export function checkCommentBody(raw: string): string {
  const body = raw.trim();
  if (body.length === 0) throw new UnprocessableError('The comment is empty.', { suggestion: 'Write some text (white space alone does not count).' });
  if (body.length > MAX_COMMENT_LENGTH) {
    throw new UnprocessableError(`A comment has at most ${MAX_COMMENT_LENGTH} characters; this one has ${body.length}.`, {
      suggestion: 'Shorten it, or split it into several comments.',
      details: { max_length: MAX_COMMENT_LENGTH, length: body.length },
    });
  }
  // The multi-line text rule (core/text/text.ts), the one a request's instructions keep too.
  const problem = multiLineTextProblem(body);
  if (problem) throw new UnprocessableError(problem, { suggestion: 'Remove them and send the text again.' });
  return body;
}

/** Comments are the owning account's only: another account's verification looks like a missing one. */
export function checkAccess(caller: Commenter, verification: VerificationFacts): void {
  if (!verification || verification.account_id !== caller.account_id) throw verificationNotFound();
}

export const commentsDecider: Decider<CommentsState, CommentCommand, typeof commentEvents> = {
  catalogue: commentEvents,
  initialState: () => ({ comments: new Map() }),
  evolve(state, event) {
    const comments = new Map(state.comments);
    switch (event.type) {
      case 'CommentAdded': {
        const d = event.data;
        comments.set(d.comment_id, { id: d.comment_id, authorUserId: d.author_user_id, authorName: d.author_name, body: d.body, createdAt: d.added_at, updatedAt: d.added_at, editedAt: null });
        return { comments };
      }
      case 'CommentEdited': {
        const comment = comments.get(event.data.comment_id);
        if (comment) comments.set(comment.id, { ...comment, body: event.data.body, updatedAt: event.data.edited_at, editedAt: event.data.edited_at });
        return { comments };
      }
      case 'CommentDeleted':
        comments.delete(event.data.comment_id);
        return { comments };
      default:
        return assertNever(event);
    }
  },
  decide(command, state): CommentEvent[] {
    checkAccess(command.caller, command.verification);
    const at = command.now.toISOString();
    switch (command.type) {
      case 'AddComment': {
        const body = checkCommentBody(command.body);
        if (state.comments.size >= MAX_COMMENTS_PER_VERIFICATION) {
          throw new UnprocessableError(`This verification has the maximum of ${MAX_COMMENTS_PER_VERIFICATION} comments.`, {
            suggestion: 'Delete one to add another (DELETE /v1/verifications/{verification_id}/comments/{comment_id}).',
            details: { limit: MAX_COMMENTS_PER_VERIFICATION },
          });
        }
        return [{ type: 'CommentAdded', data: { comment_id: command.comment_id, author_user_id: command.caller.user_id, author_name: command.author_name, body, added_at: at } }];
      }
      case 'EditComment': {
        const body = checkCommentBody(command.body);
        const comment = state.comments.get(command.comment_id);
        if (!comment) throw commentNotFound();
        if (comment.authorUserId !== command.caller.user_id) throw new AccessDeniedError('Only the author of a comment can edit it.');
        if (comment.body === body) return [];
        return [{ type: 'CommentEdited', data: { comment_id: comment.id, body, edited_at: at } }];
      }
      case 'DeleteComment': {
        const comment = state.comments.get(command.comment_id);
        if (!comment) throw commentNotFound();
        if (comment.authorUserId !== command.caller.user_id && command.caller.role !== 'admin') {
          throw new AccessDeniedError('Only the author of a comment or an admin of the account can delete it.');
        }
        return [{ type: 'CommentDeleted', data: { comment_id: comment.id, deleted_at: at } }];
      }
      default:
        return assertNever(command);
    }
  },
};
