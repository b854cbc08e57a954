import type { Knex } from 'knex';

/** A row of the mail_messages read model (projection.ts owns the table): one message's delivery state. */
export interface MailMessageRow {
  id: string;
  message_id: string;
  account_id: string | null;
  recipient: string;
  subject: string;
  /** queued: waiting for its first attempt or retrying; sending: an attempt without an outcome yet. */
  status: 'queued' | 'sending' | 'sent' | 'failed';
  attempts: number;
  last_error: string | null;
  next_attempt_at: Date | string | null;
  queued_at: Date | string;
  sent_at: Date | string | null;
  failed_at: Date | string | null;
  updated_at: Date | string;
  last_position: string;
}

export const mailMessagesTable = (knex: Knex) => knex<MailMessageRow>('mail_messages');

export const findMailMessage = (knex: Knex, id: string): Promise<MailMessageRow | undefined> => mailMessagesTable(knex).where({ id }).first();

/** Messages still to deliver (neither sent nor failed), oldest first. */
export async function unfinishedMailIds(knex: Knex): Promise<string[]> {
  const rows = await mailMessagesTable(knex).whereIn('status', ['queued', 'sending']).orderBy('queued_at').select('id');
  return rows.map((r) => r.id);
}

/** Which of `ids` are queued (in any state): what recovery sweeps of other features leave out. */
export async function queuedMailIds(knex: Knex, ids: readonly string[]): Promise<Set<string>> {
  const queued = new Set<string>();
  // Bounded statements: a sweep may ask about many ids at once.
  for (let i = 0; i < ids.length; i += 500) {
    for (const row of await mailMessagesTable(knex).whereIn('id', ids.slice(i, i + 500)).select('id')) queued.add(row.id);
  }
  return queued;
}
