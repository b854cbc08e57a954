import crypto from 'node:crypto';
import { commandContext, execute } from '../../core/es/commands.js';
import { foldStream } from '../../core/es/decider.js';
import type { AppDeps } from '../../core/module/deps.js';
import { AccessDeniedError } from '../../core/errors.js';
import { callerOf, type Call, type Principal } from '../../core/principal.js';
import { findUser } from '../accounts/index.js';
import { findVerification } from '../verifications/index.js';
import { checkAccess, commentNotFound, commentsDecider, commentsStream, type CommentCommand, type Commenter, type VerificationFacts } from './decider.js';
import { commentsOf } from '../../../projections/comments/index.js';
import { fromState, toComment, type CommentView } from './view.js';

/** The calling user: with an API key, the user who created it (spec 4.1: "an API key carries its owner"). */
const commenter = (principal: Principal): Commenter => ({ account_id: principal.accountId, user_id: principal.userId, role: principal.role });

async function factsOf(deps: AppDeps, verificationId: string): Promise<VerificationFacts> {
  const row = await findVerification(deps.knex, verificationId);
  return row ? { account_id: row.account_id } : null;
}

/**
 * Decides one command on a verification's comments: the calling user's, on the verification's
 * facts as read, at the call's time.
 */
async function decideOnComments(
  deps: AppDeps,
  call: Call,
  verificationId: string,
  verification: VerificationFacts,
  command: (given: { caller: Commenter; verification: VerificationFacts; now: Date }) => CommentCommand,
): Promise<void> {
  const context = commandContext(deps, call);
  await execute(deps, call, commentsStream(verificationId), commentsDecider, command({ caller: commenter(callerOf(call)), verification, now: context.now }), context);
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
  await decideOnComments(deps, call, verificationId, verification, (given) => ({ type: 'AddComment', ...given, comment_id: commentId, author_name: author.name, body }));
  return current(deps, verificationId, commentId);
}

/** Changes a comment's body (its author only); `edited_at` records when. The same body changes nothing. */
export async function editComment(deps: AppDeps, call: Call, verificationId: string, commentId: string, body: string): Promise<CommentView> {
  await decideOnComments(deps, call, verificationId, await factsOf(deps, verificationId), (given) => ({ type: 'EditComment', ...given, comment_id: commentId, body }));
  return current(deps, verificationId, commentId);
}

/** Deletes a comment (its author, or an admin of the account). */
export async function deleteComment(deps: AppDeps, call: Call, verificationId: string, commentId: string): Promise<void> {
  await decideOnComments(deps, call, verificationId, await factsOf(deps, verificationId), (given) => ({ type: 'DeleteComment', ...given, comment_id: commentId }));
}
