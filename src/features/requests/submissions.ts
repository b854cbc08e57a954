import crypto from 'node:crypto';
import type { ParsedUpload } from '../../core/blob-store.js';
import { commandContext, execute } from '../../core/es/commands.js';
import type { AppDeps } from '../../core/module/deps.js';
import { AppError } from '../../core/errors.js';
import type { EventActor } from '../../core/es/event-store.js';
import { newCall, type Call, type Principal } from '../../core/principal.js';
import { RateLimiter } from '../../core/http/rate-limit.js';
import { sameHash } from '../../core/secrets.js';
import { findAccount } from '../accounts/index.js';
import { createVerification } from '../verifications/index.js';
import { withdrawAbandoned } from './abandoned.js';
import { requestDecider, requestStream } from './decider.js';
import { tellRequester } from './submission-mail.js';
import { requestNotCapture, unknownRequestToken } from './errors.js';
import { findRequestByTokenHash, type RequestRow } from '../../../projections/requests/index.js';
import { tokenSha256 } from './use-cases.js';
import { statusAt } from './view.js';
import { invalidRequest } from '../../core/http/validation.js';

/** A provider token as issued: 32 random bytes, base64url. Anything else is not looked up. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** Uploads through one request's link per hour, whoever sends them (a leaked link cannot be flooded). */
export const SUBMISSIONS_PER_TOKEN_PER_HOUR = 30;
/** Uploads through any request's link from one client address per hour. */
export const SUBMISSIONS_PER_ADDRESS_PER_HOUR = 10;
const HOUR_MS = 60 * 60_000;

/**
 * The request a provider's token opens, or 404 REQUEST_NOT_FOUND. Looked up by the token's
 * SHA-256 and compared again in constant time; the token itself is never logged (the caller's
 * logs show the page path: the page's route must redact it).
 */
export async function requestOfToken(deps: Pick<AppDeps, 'knex'>, token: string): Promise<RequestRow> {
  if (!TOKEN_SHAPE.test(token)) throw unknownRequestToken();
  const digest = tokenSha256(token);
  const row = await findRequestByTokenHash(deps.knex, digest);
  if (!row || !sameHash(row.token_sha256, digest)) throw unknownRequestToken();
  return row;
}

/** What the provider's page shows of a request: who asks (the account's name, nothing else of it), what and until when, and whether it accepts uploads. */
export interface ProviderRequestView {
  request_id: string;
  requester_name: string;
  subject: string;
  instructions: string;
  mode: RequestRow['mode'];
  expires_at: string;
  share_with_provider: boolean;
  /** open: accepts an upload; closed, expired, full: accepts nothing. */
  state: 'open' | 'closed' | 'expired' | 'full';
}

export async function providerRequest(deps: Pick<AppDeps, 'knex' | 'now'>, token: string): Promise<ProviderRequestView> {
  const row = await requestOfToken(deps, token);
  const account = await findAccount(deps.knex, row.account_id);
  const status = statusAt(row, deps.now());
  return {
    request_id: row.id,
    requester_name: account?.name ?? '',
    subject: row.subject,
    instructions: row.instructions,
    mode: row.mode,
    expires_at: new Date(row.expires_at).toISOString(),
    share_with_provider: row.share_with_provider,
    state: status === 'open' && row.submission_count >= row.max_submissions ? 'full' : status,
  };
}

export interface SubmissionInput {
  /** The provider's address (rate limit per address). */
  clientAddress: string;
  /** Ties the events of the submission to the page request that caused it. */
  correlationId: string;
  /** Receives the files (image, raw, attestation_id), as POST /v1/verifications does; called once the submission is counted. */
  receive: () => Promise<ParsedUpload>;
}

export interface Submitted {
  request_id: string;
  verification_id: string;
  share_with_provider: boolean;
}

/**
 * A provider's upload through a request's link (spec 2.7, issue 24): rate-limited per token and
 * per address; counted on the request's stream first (optimistic concurrency: concurrent uploads
 * never pass max_submissions; a closed, expired or full request refuses before any byte is
 * received); then a verification of the requester's account with that id, created exactly as
 * POST /v1/verifications creates one (file checks and limits, attestation, metering on the
 * requester's plan: the requester pays). If it fails, the counted place goes back;
 * once it is recorded, the requester is e-mailed (submission-mail.ts).
 * `mode: capture` requires an attestation_id with the files.
 */
export async function submitToRequest(deps: AppDeps, token: string, input: SubmissionInput): Promise<Submitted> {
  const row = await requestOfToken(deps, token);
  await new RateLimiter(deps.knex, 'request-address', SUBMISSIONS_PER_ADDRESS_PER_HOUR, HOUR_MS).take(input.clientAddress, 'uploads from this address');
  await new RateLimiter(deps.knex, 'request-token', SUBMISSIONS_PER_TOKEN_PER_HOUR, HOUR_MS).take(row.token_sha256, 'uploads through this link');

  const stream = requestStream(row.id);
  const history = await deps.store.readStream(stream);
  const created = history[0];
  if (!created) throw unknownRequestToken();
  const providerCall = newCall(null, input.correlationId, input.clientAddress);
  // The provider has no identity: the request's events record an anonymous actor named by the request.
  const context = commandContext(deps, providerCall, { type: 'anonymous', id: row.id, accountId: row.account_id });
  await withdrawAbandoned(deps, providerCall, row.id, context);
  const verificationId = crypto.randomUUID();
  await execute(deps, providerCall, stream, requestDecider, { type: 'Submit', verification_id: verificationId, now: context.now }, context);

  // The verification is the requester's, made on the request's behalf: its events name who created the request.
  const requesterCall: Call = newCall(requesterPrincipal(created.metadata.actor, row.account_id), input.correlationId, input.clientAddress);
  try {
    await createVerification(deps, requesterCall, {
      id: verificationId,
      receive: async () => {
        const upload = await input.receive();
        if (row.mode === 'capture' && !upload.fields.attestation_id) {
          throw invalidRequest([{ loc: ['body', 'attestation_id'], msg: 'This request asks for a capture: upload with the attestation_id of a capture attestation.', type: 'missing' }]);
        }
        // An existing_original request takes no attestation, through its upload as through its capture calls.
        if (row.mode !== 'capture' && upload.fields.attestation_id !== undefined) throw requestNotCapture();
        return upload;
      },
    });
  } catch (error) {
    const reason = error instanceof AppError ? error.code : 'INTERNAL_ERROR';
    await execute(deps, providerCall, stream, requestDecider, { type: 'Withdraw', verification_id: verificationId, reason, now: deps.now() }, { ...context, now: deps.now() }).catch((failure) =>
      deps.log.error({ err: failure, request: row.id, verification: verificationId }, 'a failed submission could not be withdrawn: it stays counted'),
    );
    throw error;
  }
  // Only a recorded verification is told of (a withdrawn submission never reaches here).
  await tellRequester(deps, context, row.id, verificationId);
  return { request_id: row.id, verification_id: verificationId, share_with_provider: row.share_with_provider };
}

/** The identity a submission's verification is recorded under: the request's creator (a user, or the API key that created it). */
export function requesterPrincipal(actor: EventActor, accountId: string): Principal {
  if (actor.type === 'api_key') return { via: 'api_key', keyId: actor.id, userId: '', accountId, role: 'member', scope: 'full' };
  return { via: 'jwt', userId: actor.id, accountId, role: 'member', scope: 'full' };
}
