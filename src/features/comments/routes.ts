import { z } from 'zod';
import type { AppDeps } from '../../core/deps.js';
import { route, type RouteSpec } from '../../core/route-spec.js';
import { MAX_COMMENT_LENGTH, MAX_COMMENTS_PER_VERIFICATION } from './decider.js';
import { addComment, deleteComment, editComment, listComments } from './use-cases.js';
import { commentSchema } from './view.js';

const verificationParams = z.strictObject({ verification_id: z.uuid() });
const commentParams = z.strictObject({ verification_id: z.uuid(), comment_id: z.uuid() });

// Tab and line breaks are text; other control characters are not (and PostgreSQL cannot store NUL).
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

const commentBody = z
  .strictObject({
    body: z
      .string()
      .trim()
      .min(1, 'The comment is empty.')
      .max(MAX_COMMENT_LENGTH, `A comment has at most ${MAX_COMMENT_LENGTH} characters.`)
      .refine((text) => !CONTROL.test(text), 'Control characters other than tab and line breaks are not allowed.')
      .describe(`1 to ${MAX_COMMENT_LENGTH} characters after trimming surrounding white space.`),
  })
  .openapi('CommentBody');

const accessErrors = {
  403: { description: 'ACCESS_DENIED: a read-scoped API key' },
  404: { description: 'VERIFICATION_NOT_FOUND (also when not your account’s)' },
};

/** Comments on a verification: internal to the owning account, never on a shared report. */
export function commentRoutes(deps: AppDeps): RouteSpec[] {
  const path = '/v1/verifications/{verification_id}/comments';
  return [
    route({
      method: 'get',
      path,
      tag: 'comments',
      summary: "List a verification's comments, oldest first",
      description: 'Comments are internal: only users of the owning account see them (never a shared report).',
      auth: 'any',
      params: verificationParams,
      responses: {
        200: { description: 'Comments', schema: z.object({ items: z.array(commentSchema), total: z.number().int() }).openapi('CommentList') },
        404: accessErrors[404],
      },
      handler: async ({ params, principal }) => ({ status: 200, headers: { 'Cache-Control': 'no-store' }, body: await listComments(deps, principal, params.verification_id) }),
    }),
    route({
      method: 'post',
      path,
      tag: 'comments',
      summary: 'Comment on a verification',
      description: `The author is the calling user (with an API key, the user who created the key). At most ${MAX_COMMENTS_PER_VERIFICATION} comments per verification; deleting one frees its place.`,
      auth: 'any',
      params: verificationParams,
      body: commentBody,
      responses: {
        201: { description: 'Comment added', schema: commentSchema },
        ...accessErrors,
        422: { description: `Empty or oversized body, or the verification already has ${MAX_COMMENTS_PER_VERIFICATION} comments (type comment_limit_reached)` },
      },
      handler: async ({ params, body, call }) => ({ status: 201, body: await addComment(deps, call, params.verification_id, body.body) }),
    }),
    route({
      method: 'patch',
      path: `${path}/{comment_id}`,
      tag: 'comments',
      summary: "Edit your comment's body; edited_at records when",
      auth: 'any',
      params: commentParams,
      body: commentBody,
      responses: {
        200: { description: 'Comment as edited', schema: commentSchema },
        403: { description: 'ACCESS_DENIED: not the author (only the author edits), or a read-scoped API key' },
        404: { description: 'VERIFICATION_NOT_FOUND (also when not your account’s); COMMENT_NOT_FOUND' },
        422: { description: 'Empty or oversized body' },
      },
      handler: async ({ params, body, call }) => ({ status: 200, body: await editComment(deps, call, params.verification_id, params.comment_id, body.body) }),
    }),
    route({
      method: 'delete',
      path: `${path}/{comment_id}`,
      tag: 'comments',
      summary: 'Delete a comment (its author, or an admin of the account)',
      auth: 'any',
      params: commentParams,
      responses: {
        204: { description: 'Deleted' },
        403: { description: 'ACCESS_DENIED: neither the author nor an account admin, or a read-scoped API key' },
        404: { description: 'VERIFICATION_NOT_FOUND (also when not your account’s); COMMENT_NOT_FOUND' },
      },
      handler: async ({ params, call }) => {
        await deleteComment(deps, call, params.verification_id, params.comment_id);
        return { status: 204 };
      },
    }),
  ];
}
