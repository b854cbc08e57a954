import type { Knex } from 'knex';

/** A row of the capture_challenges read model (projection.ts owns the table). */
export interface ChallengeRow {
  capture_id: string;
  nonce_sha256: string;
  account_id: string | null;
  issued_at: Date | string;
  expires_at: Date | string;
  attested_at: Date | string | null;
  last_position: string;
}

export const challengesTable = (knex: Knex) => knex<ChallengeRow>('capture_challenges');

export const findChallengeByNonceHash = (knex: Knex, nonceSha256: string): Promise<ChallengeRow | undefined> =>
  challengesTable(knex).where({ nonce_sha256: nonceSha256 }).first();
