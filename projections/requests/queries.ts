import type { Knex } from 'knex';

/** A row of the verification_requests read model (projection.ts owns the tables). */
export interface RequestRow {
  id: string;
  account_id: string;
  subject: string;
  instructions: string;
  mode: 'existing_original' | 'capture';
  status: 'open' | 'closed';
  expires_at: Date | string;
  closed_at: Date | string | null;
  max_submissions: number;
  submission_count: number;
  share_with_provider: boolean;
  token: string;
  token_sha256: string;
  expired_recorded_for: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

export const requestsTable = (knex: Knex) => knex<RequestRow>('verification_requests');

export async function findRequest(knex: Knex, id: string): Promise<RequestRow | undefined> {
  return requestsTable(knex).where({ id }).first();
}

export async function findRequestByTokenHash(knex: Knex, tokenSha256: string): Promise<RequestRow | undefined> {
  return requestsTable(knex).where({ token_sha256: tokenSha256 }).first();
}

export type RequestStatusFilter = 'open' | 'closed' | 'expired';

/** One page of an account's requests, newest first; `expired`/`open` read against `now` (derived, spec 3.3). */
export async function listRequests(
  knex: Knex,
  accountId: string,
  page: { offset: number; size: number; status?: RequestStatusFilter; now: Date },
): Promise<{ rows: RequestRow[]; total: number }> {
  const base = requestsTable(knex).where({ account_id: accountId });
  if (page.status === 'closed') base.andWhere({ status: 'closed' });
  if (page.status === 'open') base.andWhere({ status: 'open' }).andWhere('expires_at', '>', page.now);
  if (page.status === 'expired') base.andWhere({ status: 'open' }).andWhere('expires_at', '<=', page.now);
  const [counted] = await base.clone().count<{ count: string | number }[]>({ count: '*' });
  const rows = await base.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).offset(page.offset).limit(page.size);
  return { rows, total: Number(counted?.count ?? 0) };
}

/** Open requests past their deadline whose expiry is not recorded: the expiry sweep's runs. */
export async function unrecordedExpiries(knex: Knex, now: Date): Promise<{ id: string; expires_at: Date | string }[]> {
  return requestsTable(knex)
    .select('id', 'expires_at')
    .where({ status: 'open' })
    .andWhere('expires_at', '<=', now)
    .andWhere((q) => {
      q.whereNull('expired_recorded_for').orWhereRaw('expired_recorded_for <> expires_at');
    })
    .limit(500);
}

/** The Verification's `request_id`: the request the verification answered, or null (a correlated subquery on the owner's id column; JSON text, as the owner parses extension values). */
export const requestIdColumn = (knex: Knex, idColumn: string): Knex.Raw =>
  knex.raw('select to_json(rs.request_id)::text from request_submissions rs where rs.verification_id = ??', [idColumn]);

/** The ids of the account's verifications that answered `requestId` (the list filter). */
export const verificationsOfRequest = (knex: Knex, accountId: string, requestId: string): Knex.QueryBuilder =>
  knex('request_submissions').select('verification_id').where({ account_id: accountId, request_id: requestId });

/** The request's counted submissions whose verification was not recorded by `before` (their process died in between). */
export async function abandonedSubmissions(knex: Knex, requestId: string, before: Date): Promise<string[]> {
  const rows = await knex('request_submissions').select('verification_id').where({ request_id: requestId, queued: false }).andWhere('received_at', '<', before);
  return rows.map((r: { verification_id: string }) => r.verification_id);
}

/** Every request's counted submissions whose verification was not recorded by `before`, for the release sweep. */
export async function abandonedSubmissionsBefore(knex: Knex, before: Date): Promise<{ request_id: string; verification_id: string }[]> {
  return knex('request_submissions').select('request_id', 'verification_id').where({ queued: false }).andWhere('received_at', '<', before);
}
