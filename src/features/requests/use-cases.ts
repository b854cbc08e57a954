import crypto from 'node:crypto';
import { commandContext, execute } from '../../core/es/commands.js';
import type { AppDeps } from '../../core/module/deps.js';
import { AppError } from '../../core/errors.js';
import { callerOf, type Call, type Principal } from '../../core/principal.js';
import { findAccount } from '../accounts/index.js';
import { withdrawAbandoned } from './abandoned.js';
import { requestDecider, requestStream, type RequestSettings } from './decider.js';
import { accountNameRequired, requestNotFound } from './errors.js';
import { findRequest, listRequests as listRows, type RequestRow, type RequestStatusFilter } from '../../../projections/requests/index.js';
import { toRequestView, type RequestView } from './view.js';
import { expiryRunId, REQUEST_EXPIRY_WORKFLOW_TYPE } from '../../../workflows/requests/workflow.js';

/** Random bytes of a provider token: 256 bits, base64url (43 characters). */
const TOKEN_BYTES = 32;

export const tokenSha256 = (token: string) => crypto.createHash('sha256').update(token, 'utf8').digest('hex');

export type CreateRequestInput = Pick<RequestSettings, 'subject' | 'expires_at'> & Partial<Omit<RequestSettings, 'subject' | 'expires_at'>>;

/** What POST /v1/requests leaves out (docs/decisions/, D-137). */
export const REQUEST_DEFAULTS = { instructions: '', max_submissions: 1, share_with_provider: false, mode: 'existing_original' } as const;

async function ownedRow(deps: AppDeps, principal: Principal, id: string): Promise<RequestRow> {
  const row = await findRequest(deps.knex, id);
  if (!row || row.account_id !== principal.accountId) throw requestNotFound();
  return row;
}

/** The row after a write: the read models include it (read-your-writes), unless they were slow. */
async function readBack(deps: AppDeps, principal: Principal, id: string): Promise<RequestView> {
  const row = await findRequest(deps.knex, id);
  if (!row || row.account_id !== principal.accountId) {
    throw new AppError('SERVICE_UNAVAILABLE', 'The request is recorded, but it cannot be read yet.', {
      suggestion: 'Read it with GET /v1/requests/{request_id} in a second.',
      details: { retry_after_seconds: 1 },
    });
  }
  return toRequestView(row, deps.config.PUBLIC_BASE_URL, deps.now());
}

/** Starts the durable timer of the request's current deadline; a missed start is made by the sweep once due. */
async function scheduleExpiry(deps: AppDeps, requestId: string, expiresAt: string): Promise<void> {
  await deps.workflows
    .start(REQUEST_EXPIRY_WORKFLOW_TYPE, expiryRunId(requestId, expiresAt), { request_id: requestId, expires_at: expiresAt })
    .catch((error) => deps.log.warn({ err: error, request: requestId }, 'request expiry workflow not started; the sweep will start it when due'));
}

/**
 * Creates a request of the caller's account (spec 4.5): 400 ACCOUNT_NAME_REQUIRED when the account
 * has no name (the provider is shown who asks by it), 422 for a deadline not in the future. Its
 * token is 256 random bits; the expiry timer starts for its deadline.
 */
export async function createRequest(deps: AppDeps, call: Call, input: CreateRequestInput): Promise<RequestView> {
  const principal = callerOf(call);
  const account = await findAccount(deps.knex, principal.accountId);
  if (!account?.name?.trim()) throw accountNameRequired();
  const id = crypto.randomUUID();
  const token = crypto.randomBytes(TOKEN_BYTES).toString('base64url');
  const settings: RequestSettings = { ...REQUEST_DEFAULTS, ...stripUndefined(input), subject: input.subject, expires_at: new Date(input.expires_at).toISOString() };
  const context = commandContext(deps, call);
  await execute(deps, call, requestStream(id), requestDecider, { type: 'Create', settings, token, token_sha256: tokenSha256(token), now: context.now }, context);
  await scheduleExpiry(deps, id, settings.expires_at);
  return readBack(deps, principal, id);
}

export async function getRequest(deps: AppDeps, principal: Principal, id: string): Promise<RequestView> {
  return toRequestView(await ownedRow(deps, principal, id), deps.config.PUBLIC_BASE_URL, deps.now());
}

export interface RequestPage {
  items: RequestView[];
  total: number;
  offset: number;
  size: number;
  total_pages: number;
}

/** The caller's account's requests, newest first; `status` as derived at this instant. */
export async function listRequests(deps: AppDeps, principal: Principal, query: { offset: number; size: number; status?: RequestStatusFilter }): Promise<RequestPage> {
  const now = deps.now();
  const { rows, total } = await listRows(deps.knex, principal.accountId, { ...query, now });
  return {
    items: rows.map((row) => toRequestView(row, deps.config.PUBLIC_BASE_URL, now)),
    total,
    offset: query.offset,
    // Spec 2.9: the number of items returned (the page size asked for only divides the total into pages).
    size: rows.length,
    total_pages: Math.ceil(total / query.size),
  };
}

export type UpdateRequestInput = Partial<RequestSettings> & { status?: 'closed' };

/** PATCH (spec 4.5): changes while not closed; `{"status": "closed"}` closes for good. */
export async function updateRequest(deps: AppDeps, call: Call, id: string, input: UpdateRequestInput): Promise<RequestView> {
  const principal = callerOf(call);
  await ownedRow(deps, principal, id);
  const { status, ...rest } = input;
  const changes = stripUndefined(rest) as Partial<RequestSettings>;
  if (changes.expires_at) changes.expires_at = new Date(changes.expires_at).toISOString();
  const context = commandContext(deps, call);
  const outcome = await execute(deps, call, requestStream(id), requestDecider, { type: 'Update', changes, close: status === 'closed', now: context.now }, context);
  const moved = outcome.events.find((e) => e.type === 'RequestUpdated' && e.data.changes.expires_at);
  if (moved?.type === 'RequestUpdated' && moved.data.changes.expires_at) await scheduleExpiry(deps, id, moved.data.changes.expires_at);
  return readBack(deps, principal, id);
}

/** DELETE (spec 3.3): only while the request has no submissions (409 REQUEST_HAS_SUBMISSIONS). */
export async function deleteRequest(deps: AppDeps, call: Call, id: string): Promise<void> {
  const principal = callerOf(call);
  await ownedRow(deps, principal, id);
  const context = commandContext(deps, call);
  // A place a crash left counted without its verification does not keep the request from going.
  await withdrawAbandoned(deps, call, id, context);
  await execute(deps, call, requestStream(id), requestDecider, { type: 'Delete', now: context.now }, context);
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
