import { z } from 'zod';
import { UnprocessableError } from '../core/errors.js';
import { route, type RouteSpec } from '../core/http/route-spec.js';
import { getMonthlyUsage } from '../features/usage/index.js';
import { createVerification, UPLOAD_PARTS } from '../features/verifications/index.js';
import type { AppContext } from './context.js';
import { formRefusal, refusalMessage } from './form-refusal.js';
import { asSessionUser, assertCsrfToken, assertSameOrigin, CSRF_FIELD, type AppSession } from './session.js';
import { inPageWords, renderUploadPage, UPLOAD_LABELS, type QuotaView } from './upload-page.js';

/**
 * The upload page (issue 27, must-work 2; docs/webapp.md "Upload"). GET shows the quota left this
 * month (the usage use case of GET /v1/accounts/{id}/usage) and the form; POST is the
 * verifications feature's `createVerification`, the use case of POST /v1/verifications/, with the
 * same multipart parts and the same size limit (the route's `upload`), plus the form's CSRF token
 * as one more text field. The Origin check runs before the body is read; the token is checked
 * once the body is parsed, before the use case sees the files (a refused form's staged files are
 * discarded: nothing is stored).
 */

/**
 * The upload's refusal in words, and its status (as the error middleware maps it), or null for the
 * error page: every user error is the form again (form-refusal.ts): the file checks, the size
 * limit, a malformed form, the quota, an attestation id it cannot use. The words are the API's,
 * with its part names said as the page's labels (upload-page.ts inPageWords).
 */
function uploadRefusal(deps: AppContext['deps'], error: unknown): { status: number; message: string; suggestion?: string } | null {
  const refusal = formRefusal(deps, error);
  if (!refusal) return null;
  const { error: refused, status } = refusal;
  if (refused instanceof UnprocessableError && refused.issues) {
    // The shape of the form (a missing photo, a field the form does not have): said for a person.
    const missingPhoto = refused.issues.some((i) => i.loc.at(-1) === 'image' && i.type === 'missing');
    return { status, message: missingPhoto ? 'Choose the photo to verify (the RAW file is optional).' : `The form was not complete: ${refusalMessage(refused, UPLOAD_LABELS)}` };
  }
  return { status, message: inPageWords(refused.message), ...(refused.suggestion ? { suggestion: inPageWords(refused.suggestion) } : {}) };
}

export function uploadRoutes(ctx: AppContext): RouteSpec[] {
  const { deps, appPath, publicOrigin, serviceName, page, errorPage, viewerOf, signedIn } = ctx;
  const maxBytes = deps.config.MAX_UPLOAD_BYTES;

  const uploadPage = async (session: AppSession, status: number, error?: { message: string; suggestion?: string }, attestationId?: string) => {
    const [viewer, quota] = await Promise.all([viewerOf(session), getMonthlyUsage(deps, session.principal, session.principal.accountId)]);
    return page(
      status,
      (nonce) => renderUploadPage({ serviceName, nonce, appPath, viewer, quota: quota as QuotaView, maxUploadBytes: maxBytes, ...(error ? { error } : {}), ...(attestationId ? { attestationId } : {}) }),
      { script: true },
    );
  };

  return [
    route({
      method: 'get',
      path: '/app/upload',
      tag: 'webapp',
      summary: 'The web app’s upload page (HTML)',
      description:
        'The quota left this month (what GET /v1/accounts/{account_id}/usage answers, in words: pairs included and used, what one more would cost, whether the budget cap stops it) and the form for a photo and its optional camera RAW. Works without JavaScript; with it, drag and drop and a progress bar.',
      auth: 'none',
      produces: 'text/html',
      errorPage,
      responses: { 200: { description: 'The upload page', schema: z.string() }, 303: { description: 'Not signed in: to /app/login' } },
      handler: signedIn(async (_input, session) => uploadPage(session, 200)),
    }),
    route({
      method: 'post',
      path: '/app/upload',
      tag: 'webapp',
      summary: 'Upload a photo (and its RAW) through the web app (an HTML form)',
      description:
        'Multipart form: `csrf_token` (the session’s), `image`, optional `raw`, optional `attestation_id`: the parts, checks and size limit of POST /v1/verifications/ (the same use case). Answers 303 to the verification’s page (/app/verifications/{id}). A refused file (wrong format, too large, the quota used) is the upload page again with the reason, and its status; nothing is stored.',
      auth: 'none',
      multipart: z.object({
        csrf_token: z.string(),
        image: z.string().openapi({ type: 'string', format: 'binary' }),
        raw: z.string().optional().openapi({ type: 'string', format: 'binary' }),
        attestation_id: z.string().optional(),
      }),
      produces: 'text/html',
      errorPage,
      responses: {
        303: { description: 'Received: to the verification’s page; not signed in: to /app/login' },
        400: { description: 'A file of the wrong format, empty or truncated, or an attestation id the use case cannot use (the form again, saying so)' },
        402: { description: 'QUOTA_EXCEEDED: the month’s pairs and budget are used (the form again, saying so)' },
        403: { description: 'ACCESS_DENIED: another site’s form, or without the session’s token' },
        413: { description: 'A file larger than MAX_UPLOAD_BYTES (the form again, saying so)' },
        422: { description: 'A malformed form: not multipart, no photo, an unknown field' },
      },
      handler: signedIn(async ({ header, upload, call }, session) => {
        // Before a byte of the body is read: a browser's cross-site post goes no further.
        assertSameOrigin(header, publicOrigin);
        // The token refused is the request's refusal, not the form's: the error page, as for every other form.
        let notAccepted: unknown;
        // A refused form keeps the attestation id typed (a browser cannot keep the files).
        let attestationId: string | undefined;
        try {
          const created = await createVerification(deps, asSessionUser(call, session), {
            receive: async () => {
              const parsed = await upload({ fileFields: UPLOAD_PARTS.fileFields, textFields: [...UPLOAD_PARTS.textFields, CSRF_FIELD], maxBytes });
              const { [CSRF_FIELD]: token, ...fields } = parsed.fields;
              try {
                assertCsrfToken(token, session.csrfToken);
              } catch (error) {
                await Promise.all([...parsed.files.values()].map((f) => f.staged.discard()));
                notAccepted = error;
                throw error;
              }
              // A browser sends a field left empty as "": on a form that is the field not filled.
              const filled = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== ''));
              attestationId = filled.attestation_id;
              return { files: parsed.files, fields: filled };
            },
          });
          return ctx.seeOther(`${appPath}/verifications/${created.id}`);
        } catch (error) {
          const refusal = error === notAccepted ? null : uploadRefusal(deps, error);
          if (!refusal) throw error;
          return uploadPage(session, refusal.status, refusal, attestationId);
        }
      }),
    }),
  ];
}
