import { z } from 'zod';
import type { AppDeps } from '../../core/module/deps.js';
import { tool, type ToolSpec } from '../../core/http/tool-spec.js';
import { readerOf, verificationIdParam } from '../verifications/index.js';
import { shareBody, shareSchema } from './routes.js';
import { getShare, shareVerification, unshareVerification } from './use-cases.js';

const anonymousUserId = z.string().max(100).optional().describe('Keyless callers: the anonymous_user_id of the verification (anonymous verifications cannot be shared; claim them into an account first).');
const target = verificationIdParam.extend({ anonymous_user_id: anonymousUserId });

/** Agent tools over the sharing use cases (the same as its REST routes). */
export function sharingTools(deps: AppDeps): ToolSpec[] {
  return [
    tool({
      name: 'get_share',
      title: 'Get the share of a verification',
      description: 'The share link of your verification, its access type and invited addresses. NOT_SHARED when it is not shared.',
      access: 'keyless',
      readOnly: true,
      input: target,
      output: shareSchema,
      handler: async (call, input) => {
        const share = await getShare(deps, readerOf(call, input.anonymous_user_id), input.verification_id);
        return { output: share, summary: `Shared (${share.access_type}): ${share.share_url}` };
      },
    }),
    tool({
      name: 'share_verification',
      title: 'Share a verification',
      description:
        'Creates the report link of your verification, or changes its access type (the link is kept). anyone_with_link: whoever has the link opens the report; restricted: only invited addresses (invite them with POST /v1/verifications/{id}/share/invites).',
      access: 'keyless',
      readOnly: false,
      input: target.extend(shareBody.shape),
      output: shareSchema,
      handler: async (call, input) => {
        const share = await shareVerification(deps, { ...call, principal: readerOf(call, input.anonymous_user_id) }, input.verification_id, input.access_type);
        return { output: share, summary: `Shared (${share.access_type}): ${share.share_url}` };
      },
    }),
    tool({
      name: 'unshare_verification',
      title: 'Stop sharing a verification',
      description: 'The report link stops working and every invitation is removed. Sharing again later gives a new link.',
      access: 'keyless',
      readOnly: false,
      destructive: true,
      input: target,
      output: z.object({ verification_id: z.uuid(), shared: z.literal(false) }),
      handler: async (call, input) => {
        await unshareVerification(deps, { ...call, principal: readerOf(call, input.anonymous_user_id) }, input.verification_id);
        return { output: { verification_id: input.verification_id, shared: false as const }, summary: 'Sharing removed: the link no longer works and all invitations are revoked.' };
      },
    }),
  ];
}
