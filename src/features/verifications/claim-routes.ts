import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { Router } from 'express';
import { z } from 'zod';
import { anonymousAccountId, CLAIM_WINDOW_MS, isAnonymousUserId } from './anonymous.js';
import { verificationDecider, verificationStream } from './decider.js';
import { AppError } from '../../core/errors.js';
import { commandContext, execute } from '../../core/commands.js';
import type { ApiDeps } from '../../core/deps.js';
import { defineRoute } from '../../adapters/http/route.js';

const claimResponse = z.object({ claimed: z.number().int(), verification_ids: z.array(z.uuid()) }).openapi('ClaimResult');

export function claimRoutes(deps: ApiDeps, registry: OpenAPIRegistry): Router {
  const router = Router();
  defineRoute(router, registry, deps, {
    method: 'post',
    path: '/v1/verifications/claim',
    tag: 'verifications',
    summary: "Move an anonymous user's unclaimed verifications into your account",
    description:
      'Idempotent: claiming again returns claimed 0. Only verifications moved by this call are listed. Claimed records do not consume quota. Verifications older than 30 days cannot be claimed.',
    auth: 'any',
    body: z.strictObject({ anonymous_user_id: z.string().min(1).max(100) }).openapi('ClaimRequest'),
    responses: {
      200: { description: 'Claimed', schema: claimResponse },
      409: { description: 'ALREADY_CLAIMED: the verifications belong to another account' },
      410: { description: 'CLAIM_EXPIRED: older than the 30-day claim window' },
      429: { description: 'RATE_LIMIT_EXCEEDED: too many claim attempts' },
    },
    async handler({ body, principal, req, res }) {
      await deps.claimLimiter.take(principal.accountId, 'claim attempts');
      // A malformed id can own nothing: same answer as an unknown one, so ids cannot be probed.
      if (!isAnonymousUserId(body.anonymous_user_id)) return { status: 200, body: { claimed: 0, verification_ids: [] } };
      const anonymousAccount = anonymousAccountId(body.anonymous_user_id);
      const rows = await deps.knex('verifications').where({ anonymous_origin: anonymousAccount }).select('id', 'account_id', 'created_at');
      const now = deps.now();
      const unclaimed = rows.filter((r) => r.account_id === anonymousAccount);
      const claimable = unclaimed.filter((r) => now.getTime() - new Date(r.created_at).getTime() <= CLAIM_WINDOW_MS);
      if (claimable.length === 0) {
        if (rows.some((r) => r.account_id !== anonymousAccount && r.account_id !== principal.accountId) && !rows.some((r) => r.account_id === principal.accountId)) {
          throw new AppError('ALREADY_CLAIMED', 'These verifications have already been claimed by another account.', {
            suggestion: 'Ask the owner of that account; anonymous verifications can be claimed once.',
          });
        }
        if (unclaimed.length > 0) {
          throw new AppError('CLAIM_EXPIRED', 'These verifications are older than the 30-day claim window.', { suggestion: 'Verify the files again from your account.' });
        }
        return { status: 200, body: { claimed: 0, verification_ids: [] } };
      }
      const context = commandContext(deps, req, principal);
      const claimed: string[] = [];
      for (const row of claimable) {
        const outcome = await execute(deps, res, verificationStream(row.id), verificationDecider, {
          type: 'Claim',
          anonymous_account_id: anonymousAccount,
          new_owner_account_id: principal.accountId,
          now: context.now,
        }, context);
        if (outcome.events.length > 0) claimed.push(row.id);
      }
      return { status: 200, body: { claimed: claimed.length, verification_ids: claimed } };
    },
  });
  return router;
}
