import { z } from 'zod';
import { UnprocessableError, type AppError } from '../core/errors.js';
import { route, type Reply, type RouteSpec } from '../core/http/route-spec.js';
import { addComment, deleteComment, editComment } from '../features/comments/index.js';
import { changeVerificationTags, createTag, deleteTag } from '../features/tags/index.js';
import { getVerification, verificationIdParam } from '../features/verifications/index.js';
import { COMMENTS_SECTION_ID, NEW_COMMENT_FORM } from './comments-section.js';
import type { AppContext } from './context.js';
import { formRefusal } from './form-refusal.js';
import { asSessionUser, type AppSession } from './session.js';
import { TAGS_SECTION_ID } from './tags-section.js';
import { verificationPage } from './verification-page.js';

/**
 * The verification page's tags and comments forms (issue 27, must-work 2). Each calls the use case
 * its REST route calls (tags: POST/DELETE /v1/verifications/{id}/tags…, POST /v1/tags/; comments:
 * POST/PATCH/DELETE /v1/verifications/{id}/comments…), as the signed-in user, and answers 303 back
 * to the section. A refusal of the use case (a user error: 422 for a rule, 409 a tag name taken, 403
 * another's comment, 404 a comment not there) shows the page again with its message in the section
 * and that status, nothing stored; another account's verification is the app's 404 page (the
 * page's own read), as is the service's failure its error page.
 */

const commentParams = z.strictObject({ verification_id: z.uuid(), comment_id: z.uuid() });

const common = { tag: 'webapp', auth: 'none', produces: 'text/html' } as const;
const formResponses = {
  303: { description: 'Done (or not signed in: to /app/login): back to the verification’s section' },
  400: { description: 'VALIDATION_ERROR: not a form (application/x-www-form-urlencoded), or larger than 64 KiB' },
  403: { description: 'ACCESS_DENIED: another site’s form, or without the session’s token' },
  404: { description: 'VERIFICATION_NOT_FOUND (also another account’s)' },
  422: { description: 'The id is not a UUID' },
};

/**
 * The use case's suggestion, unless it speaks to an API client (it names an endpoint): the page
 * then says the same in its own words.
 */
function plainSuggestion(error: AppError): string {
  if (error.code === 'TAG_EXISTS') return 'Choose it under “Add one of your tags”, or pick another name.';
  return error.suggestion && !error.suggestion.includes('/v1/') ? error.suggestion : '';
}

/** A textarea's line breaks as the person typed them: browsers send each as CR LF (the form encoding's), the API keeps what it is given. */
const typedText = (value: string | undefined) => (value ?? '').replace(/\r\n?/g, '\n');

export function collabRoutes(ctx: AppContext): RouteSpec[] {
  const { appPath, errorPage, formAction, seeOther } = ctx;
  const back = (verificationId: string, anchor: string) => seeOther(`${appPath}/verifications/${verificationId}#${anchor}`);
  /** The use cases' invocation: the REST door's, with the session's user as the caller. */

  /** Runs a change; a refusal shows the page again with the message in the section's form. */
  const attempt = async (session: AppSession, verificationId: string, form: Map<string, string>, where: { section: string; form: string }, change: () => Promise<Reply>): Promise<Reply> => {
    try {
      return await change();
    } catch (error) {
      // Every user error is the section's (form-refusal.ts); the verification not the caller's fails the page's own read: its 404.
      const refusal = formRefusal(ctx.deps, error);
      if (!refusal) throw error;
      const message = `${refusal.error.message} ${plainSuggestion(refusal.error)}`.trim();
      return verificationPage(ctx, session, verificationId, { status: refusal.status, refused: { ...where, message, fields: form } });
    }
  };

  const nameOf = (form: Map<string, string>) => form.get('name') ?? '';

  return [
    route({
      ...common,
      method: 'post',
      path: '/app/verifications/{verification_id}/tags',
      summary: 'Add one of the account’s tags to a verification (an HTML form)',
      description: 'Form fields: `name` (a tag name), `csrf_token`. The use case of POST /v1/verifications/{verification_id}/tags with that one name.',
      params: verificationIdParam,
      errorPage,
      responses: { ...formResponses, 422: { description: 'VALIDATION_ERROR: the name breaks the tag rules or the verification would carry more than 20 tags (the page again, saying so); or the id is not a UUID' } },
      handler: formAction(async ({ params, call }, session, form) =>
        attempt(session, params.verification_id, form, { section: TAGS_SECTION_ID, form: 'add' }, async () => {
          await changeVerificationTags(ctx.deps, asSessionUser(call, session), params.verification_id, { type: 'Add', names: [nameOf(form)] });
          return back(params.verification_id, TAGS_SECTION_ID);
        }),
      ),
    }),
    route({
      ...common,
      method: 'post',
      path: '/app/verifications/{verification_id}/tags/new',
      summary: 'Create a tag and add it to a verification (an HTML form)',
      description:
        'Form fields: `name`, `csrf_token`. The use cases of POST /v1/tags/ (a name the account already has is refused, 409) and then POST /v1/verifications/{verification_id}/tags. Should the verification refuse it (it carries 20 tags), the new tag is deleted again and the page says why.',
      params: verificationIdParam,
      errorPage,
      responses: {
        ...formResponses,
        409: { description: 'TAG_EXISTS: the account has a tag of that name (the page again, saying so)' },
        422: { description: 'VALIDATION_ERROR: the name breaks the tag rules, the account has 1000 tags, or the verification carries 20 (the page again, saying so); or the id is not a UUID' },
      },
      handler: formAction(async ({ params, call }, session, form) =>
        attempt(session, params.verification_id, form, { section: TAGS_SECTION_ID, form: 'create' }, async () => {
          const asCaller = asSessionUser(call, session);
          // Another account's verification is its 404 before anything is created (the API's check, through its use case).
          await getVerification(ctx.deps, session.principal, params.verification_id);
          const created = await createTag(ctx.deps, asCaller, { name: nameOf(form) });
          try {
            await changeVerificationTags(ctx.deps, asCaller, params.verification_id, { type: 'Add', names: [created.name] });
          } catch (error) {
            // "Create and add" is one act to the person: a tag the verification refused is not left behind in the vocabulary.
            await deleteTag(ctx.deps, asCaller, created.id);
            throw error;
          }
          return back(params.verification_id, TAGS_SECTION_ID);
        }),
      ),
    }),
    route({
      ...common,
      method: 'post',
      path: '/app/verifications/{verification_id}/tags/remove',
      summary: 'Remove a tag from a verification (an HTML form)',
      description: 'Form fields: `tag_id`, `csrf_token`. The use case of DELETE /v1/verifications/{verification_id}/tags/{tag_id}: the tag stays in the account’s vocabulary.',
      params: verificationIdParam,
      errorPage,
      responses: { ...formResponses, 404: { description: 'VERIFICATION_NOT_FOUND (also another account’s); TAG_NOT_FOUND: no such tag on it' }, 422: { description: 'The id is not a UUID; `tag_id` missing or not a UUID (the page again, saying so)' } },
      handler: formAction(async ({ params, call }, session, form) =>
        attempt(session, params.verification_id, form, { section: TAGS_SECTION_ID, form: 'remove' }, async () => {
          const tagId = form.get('tag_id') ?? '';
          // The REST route's path parameter is a UUID by its schema; a form field gets the same check here.
          if (!z.uuid().safeParse(tagId).success) throw new UnprocessableError('Choose a tag to remove.', { suggestion: 'Use the remove button beside the tag.' });
          await changeVerificationTags(ctx.deps, asSessionUser(call, session), params.verification_id, { type: 'Detach', tag_id: tagId });
          return back(params.verification_id, TAGS_SECTION_ID);
        }),
      ),
    }),
    route({
      ...common,
      method: 'post',
      path: '/app/verifications/{verification_id}/comments',
      summary: 'Comment on a verification (an HTML form)',
      description: 'Form fields: `body`, `csrf_token`. The use case of POST /v1/verifications/{verification_id}/comments: the author is the signed-in user.',
      params: verificationIdParam,
      errorPage,
      responses: { ...formResponses, 422: { description: 'VALIDATION_ERROR: an empty or oversized body, control characters, or the verification has 500 comments (the page again, saying so); or the id is not a UUID' } },
      handler: formAction(async ({ params, call }, session, form) =>
        attempt(session, params.verification_id, form, { section: COMMENTS_SECTION_ID, form: NEW_COMMENT_FORM }, async () => {
          const added = await addComment(ctx.deps, asSessionUser(call, session), params.verification_id, typedText(form.get('body')));
          return back(params.verification_id, `comment-${added.id}`);
        }),
      ),
    }),
    route({
      ...common,
      method: 'post',
      path: '/app/verifications/{verification_id}/comments/{comment_id}/edit',
      summary: 'Edit your comment (an HTML form)',
      description: 'Form fields: `body`, `csrf_token`. The use case of PATCH /v1/verifications/{verification_id}/comments/{comment_id}: its author only.',
      params: commentParams,
      errorPage,
      responses: {
        ...formResponses,
        403: { description: 'ACCESS_DENIED: not the comment’s author (the page again, saying so), another site’s form, or without the session’s token' },
        404: { description: 'VERIFICATION_NOT_FOUND (also another account’s); COMMENT_NOT_FOUND (the page again, saying so)' },
        422: { description: 'VALIDATION_ERROR: an empty or oversized body, control characters (the page again, saying so); or an id is not a UUID' },
      },
      handler: formAction(async ({ params, call }, session, form) =>
        attempt(session, params.verification_id, form, { section: COMMENTS_SECTION_ID, form: params.comment_id }, async () => {
          await editComment(ctx.deps, asSessionUser(call, session), params.verification_id, params.comment_id, typedText(form.get('body')));
          return back(params.verification_id, `comment-${params.comment_id}`);
        }),
      ),
    }),
    route({
      ...common,
      method: 'post',
      path: '/app/verifications/{verification_id}/comments/{comment_id}/delete',
      summary: 'Delete a comment: your own, or any as an admin (an HTML form)',
      description: 'Form field: `csrf_token`. The use case of DELETE /v1/verifications/{verification_id}/comments/{comment_id}.',
      params: commentParams,
      errorPage,
      responses: {
        ...formResponses,
        403: { description: 'ACCESS_DENIED: neither the author nor an admin, another site’s form, or without the session’s token' },
        404: { description: 'VERIFICATION_NOT_FOUND (also another account’s); COMMENT_NOT_FOUND' },
      },
      handler: formAction(async ({ params, call }, session) => {
        await deleteComment(ctx.deps, asSessionUser(call, session), params.verification_id, params.comment_id);
        return back(params.verification_id, COMMENTS_SECTION_ID);
      }),
    }),
  ];
}
