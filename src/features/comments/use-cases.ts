import crypto from 'node:crypto';
import { commandContext, execute } from '../../core/es/commands.js';
import { foldStream } from '../../core/es/decider.js';
import type { AppDeps } from '../../core/module/deps.js';
import { AccessDeniedError } from '../../core/errors.js';
import { callerOf, type Call, type Principal } from '../../core/principal.js';
import { findUser } from '../accounts/index.js';
import { findVerification } from '../verifications/index.js';
import { checkAccess, commentNotFound, commentsDecider, commentsStream, type Commenter, type VerificationFacts } from './decider.js';
import { commentsOf } from '../../../projections/comments/index.js';
import { fromState, toComment, type CommentView } from './view.js';

/** The calling user: with an API key, the user who created it (spec 4.1: "an API key carries its owner"). */
const commenter = (principal: Principal): Commenter => ({ account_id: principal.accountId, user_id: principal.userId, role: principal.role });

async function factsOf(deps: AppDeps, verificationId: string): Promise<VerificationFacts> {
  const row = await findVerification(deps.knex, verificationId);
  return row ? { account_id: row.account_id } : null;
}

/** The comment as the stream holds it after the command (not the read model, which may lag). */
async function current(deps: AppDeps, verificationId: string, commentId: string): Promise<CommentView> {
  const { state } = await foldStream(deps.store, commentsStream(verificationId), commentsDecider);
  const comment = state.comments.get(commentId);
  // Deleted by a concurrent request between the command and this read.
  if (!comment) throw commentNotFound();
  return fromState(verificationId, comment);
}

/** A verification's comments, oldest first; the owning account's users only. */
export async function listComments(deps: AppDeps, principal: Principal, verificationId: string): Promise<{ items: CommentView[]; total: number }> {
  checkAccess(commenter(principal), await factsOf(deps, verificationId));
  const rows = await commentsOf(deps.knex, verificationId);
  return { items: rows.map(toComment), total: rows.length };
}

/** Adds a comment by the calling user, who is its author. */
export async function addComment(deps: AppDeps, call: Call, verificationId: string, body: string): Promise<CommentView> {
  const principal = callerOf(call);
  const verification = await factsOf(deps, verificationId);
  checkAccess(commenter(principal), verification);
  const author = await findUser(deps.knex, principal.userId);
  // Authentication has just read this user; only a removal in between makes it vanish.
  if (!author) throw new AccessDeniedError('Your user no longer belongs to this account.');
  const commentId = crypto.randomUUID();
  const context = commandContext(deps, call);
  await execute(deps, call, commentsStream(verificationId), commentsDecider, {
    type: 'AddComment',
    caller: commenter(principal),
    verification,
    comment_id: commentId,
    author_name: author.name,
    body,
    now: context.now,
  }, context);
  return current(deps, verificationId, commentId);
}

/** Changes a comment's body (its author only); `edited_at` records when. The same body changes nothing. */
export async function editComment(deps: AppDeps, call: Call, verificationId: string, commentId: string, body: string): Promise<CommentView> {
  const principal = callerOf(call);
  const context = commandContext(deps, call);
  await execute(deps, call, commentsStream(verificationId), commentsDecider, {
    type: 'EditComment',
    caller: commenter(principal),
    verification: await factsOf(deps, verificationId),
    comment_id: commentId,
    body,
    now: context.now,
  }, context);
  return current(deps, verificationId, commentId);
}

/** Deletes a comment (its author, or an admin of the account). */
export async function deleteComment(deps: AppDeps, call: Call, verificationId: string, commentId: string): Promise<void> {
  const principal = callerOf(call);
  const context = commandContext(deps, call);
  await execute(deps, call, commentsStream(verificationId), commentsDecider, {
    type: 'DeleteComment',
    caller: commenter(principal),
    verification: await factsOf(deps, verificationId),
    comment_id: commentId,
    now: context.now,
  }, context);
}
