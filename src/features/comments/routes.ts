import { z } from 'zod';
import type { AppDeps } from '../../core/module/deps.js';
import { storableString } from '../../core/text/text-schemas.js';
import { route, type RouteSpec } from '../../core/http/route-spec.js';
import { verificationIdParam } from '../verifications/index.js';
import { MAX_COMMENT_LENGTH, MAX_COMMENTS_PER_VERIFICATION } from './decider.js';
import { addComment, deleteComment, editComment, listComments } from './use-cases.js';
import { commentSchema } from './view.js';

const commentParams = z.strictObject({ verification_id: z.uuid(), comment_id: z.uuid() });

// The comment rules (empty, oversized, control characters) are the domain's, answered in the
// error envelope with VALIDATION_ERROR (decider.ts checkCommentBody); the schema checks the shape
// and that the text can be stored at all (the 422 list form).
const commentBody = z
  .strictObject({
    body: storableString().describe(`1 to ${MAX_COMMENT_LENGTH} characters after trimming surrounding white space; tab and line breaks are the only control characters allowed; no bidirectional formatting or invisible (U+200B, U+FEFF) characters.`),
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
      params: verificationIdParam,
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
      params: verificationIdParam,
      body: commentBody,
      responses: {
        201: { description: 'Comment added', schema: commentSchema },
        ...accessErrors,
        422: { description: `VALIDATION_ERROR (error envelope): an empty or oversized body, control characters, or the verification already has ${MAX_COMMENTS_PER_VERIFICATION} comments; a body of the wrong shape (missing, not a string, unknown fields, text that cannot be stored): the list form` },
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
        422: { description: 'VALIDATION_ERROR (error envelope): an empty or oversized body, control characters; a body of the wrong shape (missing, not a string, unknown fields, text that cannot be stored): the list form' },
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
