import { z } from 'zod';
import { UnprocessableError, type AppError } from '../core/errors.js';
import type { Call } from '../core/principal.js';
import { redirect, route, type RouteSpec } from '../core/http/route-spec.js';
import { downloadPsdExport, requestPsdExport } from '../features/psd-export/index.js';
import { accessTypes } from '../features/sharing/events.js';
import { inviteToShare, revokeInvite, shareVerification, unshareVerification } from '../features/sharing/index.js';
import { deleteVerification, fileUrl, verificationIdParam } from '../features/verifications/index.js';
import type { AppContext } from './context.js';
import { CONFIRM_FIELD, CONFIRM_VALUE, DELETE_SECTION_ID } from './delete-section.js';
import { FILES_SECTION_ID } from './files-section.js';
import { formRefusal } from './form-refusal.js';
import { asSessionUser, type AppSession } from './session.js';
import { SHARING_SECTION_ID, STOP_CONFIRM_FIELD, STOP_CONFIRM_VALUE, type SharingNotice } from './sharing-section.js';
import { verificationPage } from './verification-page.js';

/**
 * The routes behind the verification page's sharing, files and delete sections (issue 27,
 * must-work 2). Each calls the use case its REST route calls (…/share, …/share/invites,
 * …/image, …/renditions/signed/original, …/psd-export, DELETE …/{id}); the session cookie is
 * for /app only and the API takes header credentials, so the browser cannot use those routes.
 * A form the use case refuses shows the verification's page again with the message in the
 * section (role="alert"), with the refusal's status; nothing is stored.
 */

/** An address as the API's POST …/share/invites reads it (its body schema: `z.email().max(254)`). */
const emailField = z.email().max(254);
const accessTypeField = z.enum(accessTypes);

/** The use case's words for a person: the message, and its suggestion unless it is about the REST API. */
function plainWords(error: AppError): string {
  const aboutTheApi = !error.suggestion || /\/v1\/|\b(GET|POST|PUT|PATCH|DELETE) /.test(error.suggestion);
  return aboutTheApi ? error.message : `${error.message} ${error.suggestion}`;
}

export function shareRoutes(ctx: AppContext): RouteSpec[] {
  const { deps, appPath, errorPage, signedIn, formAction, seeOther } = ctx;
  const pagePath = (id: string) => `${appPath}/verifications/${id}`;
  /** The session's principal as the use case's caller (the app's routes are public to the REST door). */

  /** The verification's page again, the section saying why its form was refused. */
  const refusedPage = (session: AppSession, id: string, status: number, section: string, form: string | undefined, message: string, fields: Map<string, string>) =>
    verificationPage(ctx, session, id, { status, refused: { section, ...(form ? { form } : {}), message, fields } });

  /**
   * A section's form: runs `act`; a refusal the section can show is the page again with it, any
   * other error goes to the error page; success redirects (Post/Redirect/Get).
   */
  const sectionForm = (section: string, form: string | undefined, act: (call: Call, session: AppSession, id: string, fields: Map<string, string>) => Promise<string>) =>
    formAction<undefined, undefined, { verification_id: string }>(async ({ params, call }, session, fields) => {
      try {
        return seeOther(await act(asSessionUser(call, session), session, params.verification_id, fields));
      } catch (error) {
        // Every user error is the section's (form-refusal.ts); the verification not the caller's fails the page's own read: its 404.
        const refusal = formRefusal(deps, error);
        if (!refusal) throw error;
        return refusedPage(session, params.verification_id, refusal.status, section, form, plainWords(refusal.error), fields);
      }
    });

  const back = (id: string, section: string, notice: string) => `${pagePath(id)}?notice=${notice}#${section}`;
  const sharingNotice = (id: string, notice: SharingNotice) => back(id, SHARING_SECTION_ID, notice);

  const formErrors = {
    303: { description: 'Done: back to the verification’s page, which says so (or not signed in: to /app/login)' },
    400: { description: 'VALIDATION_ERROR: not a form (application/x-www-form-urlencoded), or larger than 64 KiB; or a refusal of the use case, shown in the page' },
    403: { description: 'ACCESS_DENIED: another site’s form, or without the session’s token' },
    404: { description: 'VERIFICATION_NOT_FOUND (also another account’s)' },
    422: { description: 'The id is not a UUID, or a field the form needs is missing or malformed: the page again, saying so' },
  };
  const common = { tag: 'webapp', auth: 'none' as const, params: verificationIdParam, produces: 'text/html', errorPage };

  return [
    route({
      ...common,
      method: 'post',
      path: '/app/verifications/{verification_id}/share',
      summary: 'Share a verification as a link or restricted, or change how (an HTML form)',
      description: 'Form fields: `access_type` (`anyone_with_link` or `restricted`), `csrf_token`. The use case of POST /v1/verifications/{verification_id}/share (the URL is kept when the access type changes; invited addresses are told).',
      responses: { ...formErrors },
      handler: sectionForm(SHARING_SECTION_ID, 'share', async (call, _session, id, fields) => {
        const accessType = accessTypeField.safeParse(fields.get('access_type'));
        if (!accessType.success) throw new UnprocessableError('Choose who can open the report: anyone with the link, or only invited e-mail addresses.');
        await shareVerification(deps, call, id, accessType.data);
        return sharingNotice(id, 'share-saved');
      }),
    }),
    route({
      ...common,
      method: 'post',
      path: '/app/verifications/{verification_id}/share/stop',
      summary: 'Stop sharing a verification: the link stops working, every invitation is removed (an HTML form)',
      description: `Form fields: \`${STOP_CONFIRM_FIELD}\` = \`${STOP_CONFIRM_VALUE}\` (the ticked confirmation: a link stopped cannot be brought back), \`csrf_token\`. The use case of DELETE /v1/verifications/{verification_id}/share.`,
      responses: {
        ...formErrors,
        404: { description: 'VERIFICATION_NOT_FOUND (also another account’s); NOT_SHARED: the page again, saying so' },
        422: { description: 'The confirmation is not ticked: the page again, saying so, still shared' },
      },
      handler: sectionForm(SHARING_SECTION_ID, 'stop', async (call, _session, id, fields) => {
        if (fields.get(STOP_CONFIRM_FIELD) !== STOP_CONFIRM_VALUE) throw new UnprocessableError('Tick the box to confirm: a link that stops working cannot be brought back.');
        await unshareVerification(deps, call, id);
        return sharingNotice(id, 'share-stopped');
      }),
    }),
    route({
      ...common,
      method: 'post',
      path: '/app/verifications/{verification_id}/share/invites',
      summary: 'Invite an e-mail address to a restricted share (an HTML form)',
      description: 'Form fields: `email`, `csrf_token`. The use case of POST /v1/verifications/{verification_id}/share/invites: the address receives an e-mail with its own link. A malformed address (the API’s rule) or a refusal (no restricted share, too many invitations) shows the page again.',
      responses: { ...formErrors },
      handler: sectionForm(SHARING_SECTION_ID, 'invite', async (call, _session, id, fields) => {
        const email = emailField.safeParse(fields.get('email')?.trim() ?? '');
        if (!email.success) throw new UnprocessableError('This is not an e-mail address the service can send to: give it as name@example.com, in plain letters, digits and . _ + - only.');
        await inviteToShare(deps, call, id, email.data);
        return sharingNotice(id, 'invited');
      }),
    }),
    route({
      ...common,
      method: 'post',
      path: '/app/verifications/{verification_id}/share/invites/remove',
      summary: 'Remove an invited address from a share: its access ends at once (an HTML form)',
      description: 'Form fields: `email`, `csrf_token`. The use case of DELETE /v1/verifications/{verification_id}/share/invites.',
      responses: { ...formErrors, 404: { description: 'VERIFICATION_NOT_FOUND (also another account’s); INVITE_NOT_FOUND: the page again, saying so' } },
      handler: sectionForm(SHARING_SECTION_ID, 'remove', async (call, _session, id, fields) => {
        const email = emailField.safeParse(fields.get('email')?.trim() ?? '');
        if (!email.success) throw new UnprocessableError('Choose an invited address to remove.');
        await revokeInvite(deps, call, id, email.data);
        return sharingNotice(id, 'invite-removed');
      }),
    }),
    ...(['image', 'badge'] as const).map((kind) =>
      route({
        ...common,
        method: 'get',
        path: `/app/verifications/{verification_id}/download/${kind}`,
        summary: kind === 'image' ? 'Download a verification’s image (the signed one when it exists, else the upload)' : 'Download a verification’s badge rendition (the signed original with the badge strip; verified pairs only)',
        description: `The use case of GET /v1/verifications/{verification_id}/${kind === 'image' ? 'image' : 'renditions/signed/original'}: a redirect to a pre-signed URL valid for 1 hour.`,
        responses: {
          302: { description: 'To a pre-signed URL of the file, valid 1 hour' },
          303: { description: 'Not signed in: to /app/login' },
          404: { description: `VERIFICATION_NOT_FOUND (also another account’s${kind === 'badge' ? ', and a verification without a badge' : ''})` },
          422: { description: 'The id is not a UUID' },
        },
        handler: signedIn<undefined, undefined, { verification_id: string }>(async ({ params }, session) => redirect(await fileUrl(deps, session.principal, params.verification_id, kind))),
      }),
    ),
    route({
      ...common,
      method: 'post',
      path: '/app/verifications/{verification_id}/psd-export',
      summary: 'Request the layered PSD export of a verification (an HTML form; Professional and Enterprise)',
      description: 'Form field: `csrf_token`. The use case of POST /v1/verifications/{verification_id}/psd-export (no wait): a plan below Professional, the budget cap or a verification that cannot be exported is said in the page.',
      responses: {
        ...formErrors,
        402: { description: 'BUDGET_EXCEEDED: the page again, saying so' },
        403: { description: 'ACCESS_DENIED: another site’s form, or without the session’s token; NOT_ENTITLED: the page again, saying so' },
        409: { description: 'VALIDATION_ERROR: the verification is not completed, or image-only (the page again, saying so)' },
      },
      handler: sectionForm(FILES_SECTION_ID, 'psd', async (call, _session, id) => {
        await requestPsdExport(deps, call, id, 0);
        return back(id, FILES_SECTION_ID, 'psd-requested');
      }),
    }),
    route({
      ...common,
      method: 'post',
      path: '/app/verifications/{verification_id}/psd-export/download',
      summary: 'Download a verification’s PSD export: one of its 5 downloads (an HTML form)',
      description: 'Form field: `csrf_token`. The use case of GET /v1/verifications/{verification_id}/psd-export/download: each answered redirect counts one download. A form, not a link, so that no prefetch or link preview spends one.',
      responses: {
        ...formErrors,
        303: { description: 'To a signed URL of the file, valid 5 minutes (or not signed in: to /app/login)' },
        403: { description: 'ACCESS_DENIED: another site’s form, or without the session’s token; DOWNLOAD_LIMIT_REACHED: the page again, saying so' },
        404: { description: 'VERIFICATION_NOT_FOUND; PSD_EXPORT_NOT_FOUND: the page again, saying so' },
        409: { description: 'PSD_NOT_READY: the page again, saying so' },
        410: { description: 'EXPIRED: the page again, saying so' },
      },
      handler: sectionForm(FILES_SECTION_ID, 'psd', async (call, _session, id) => (await downloadPsdExport(deps, call, id, true))!),
    }),
    route({
      ...common,
      method: 'post',
      path: '/app/verifications/{verification_id}/delete',
      summary: 'Delete a verification permanently, with its files (an HTML form with a confirmation)',
      description: `Form fields: \`${CONFIRM_FIELD}\` = \`${CONFIRM_VALUE}\` (the ticked confirmation), \`csrf_token\`. The use case of DELETE /v1/verifications/{verification_id}; then to the list, which says so.`,
      responses: { ...formErrors, 303: { description: 'Deleted: to /app/verifications (or not signed in: to /app/login)' }, 422: { description: 'The id is not a UUID, or the confirmation is not ticked: the page again, saying so' } },
      handler: sectionForm(DELETE_SECTION_ID, undefined, async (call, _session, id, fields) => {
        if (fields.get(CONFIRM_FIELD) !== CONFIRM_VALUE) throw new UnprocessableError('Tick the box to confirm: the verification and its files are deleted for good.');
        await deleteVerification(deps, call, id);
        return `${appPath}/verifications?notice=deleted`;
      }),
    }),
  ];
}
