import type { Knex } from 'knex';
import { assertNever, parseEvent } from '../../src/core/es/events.js';
import { insertOnce, type Projector, unapplied } from '../../src/core/es/projector.js';
import { streamInstance } from '../../src/core/es/streams.js';
import { requestEvents } from '../../src/features/requests/events.js';
import { verificationEvents } from '../../src/features/verifications/events.js';

/**
 * The verification requests (spec 2.7) as the REST list and reads show them, the token index a
 * provider's link is looked up by, the submissions (which verification answered which request:
 * the Verification's `request_id` and the list filter), and what the expiry sweep starts runs for.
 * `status` here is the recorded one (open, closed): `expired` is derived from `expires_at` when
 * read. A deleted request's row goes. A submission is marked `queued` once its verification is
 * recorded: one counted long before and never queued was cut off by a crash (submissions.ts).
 */
export const requestsProjector: Projector = {
  name: 'verification_requests',
  version: 2,
  tables: ['request_submissions', 'verification_requests'],
  async migrate(knex) {
    await knex.raw(`
      create table if not exists verification_requests (
        id uuid primary key,
        account_id uuid not null,
        subject text not null,
        instructions text not null,
        mode text not null,
        status text not null,
        expires_at timestamptz not null,
        closed_at timestamptz,
        max_submissions integer not null,
        submission_count integer not null,
        share_with_provider boolean not null,
        token text not null,
        token_sha256 text not null,
        expired_recorded_for timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        last_position numeric(20, 0) not null
      )`);
    await knex.raw(`create index if not exists verification_requests_account on verification_requests (account_id, created_at desc, id desc)`);
    await knex.raw(`create unique index if not exists verification_requests_token on verification_requests (token_sha256)`);
    await knex.raw(`create index if not exists verification_requests_expiring on verification_requests (expires_at) where status = 'open'`);
    await knex.raw(`
      create table if not exists request_submissions (
        verification_id uuid primary key,
        request_id uuid not null,
        account_id uuid not null,
        received_at timestamptz not null,
        queued boolean not null
      )`);
    await knex.raw(`create index if not exists request_submissions_request on request_submissions (request_id)`);
    // The abandoned submissions' sweep reads only the few never queued.
    await knex.raw(`create index if not exists request_submissions_unqueued on request_submissions (received_at) where not queued`);
  },
  async applyAll(trx, events) {
    // A page is mostly verifications queued: theirs marked in one statement per run of them,
    // before the request event that follows (in the page's order, as apply would).
    let queued: string[] = [];
    const flush = async () => {
      for (let i = 0; i < queued.length; i += 500) await markQueued(trx, queued.slice(i, i + 500));
      queued = [];
    };
    for (const event of events) {
      if (event.type === verificationEvents.VerificationQueued.type) queued.push(streamInstance('verification', event.stream));
      else if (parseEvent(requestEvents, event)) {
        await flush();
        await this.apply(trx, event);
      }
    }
    await flush();
  },
  async apply(trx, stored) {
    if (stored.type === verificationEvents.VerificationQueued.type) {
      await markQueued(trx, [streamInstance('verification', stored.stream)]);
      return;
    }
    const event = parseEvent(requestEvents, stored);
    if (!event) return;
    const id = streamInstance('request', stored.stream);
    const position = stored.position.toString();
    const row = () => unapplied(trx, 'verification_requests', { id }, position);
    switch (event.type) {
      case 'RequestCreated': {
        const d = event.data;
        await insertOnce(trx, 'verification_requests', {
          id,
          account_id: stored.metadata.account_id,
          subject: d.subject,
          instructions: d.instructions,
          mode: d.mode,
          status: 'open',
          expires_at: d.expires_at,
          closed_at: null,
          max_submissions: d.max_submissions,
          submission_count: 0,
          share_with_provider: d.share_with_provider,
          token: d.token,
          token_sha256: d.token_sha256,
          expired_recorded_for: null,
          created_at: d.created_at,
          updated_at: d.created_at,
          last_position: position,
        });
        return;
      }
      case 'RequestUpdated':
        await row().update({ ...event.data.changes, updated_at: event.data.updated_at, last_position: position });
        return;
      case 'RequestClosed':
        await row().update({ status: 'closed', closed_at: event.data.closed_at, updated_at: event.data.closed_at, last_position: position });
        return;
      case 'RequestDeleted':
        await row().delete();
        return;
      case 'RequestSubmissionReceived': {
        const d = event.data;
        const updated = await row().update({ submission_count: d.submission_count, updated_at: d.received_at, last_position: position });
        if (updated > 0) {
          await trx('request_submissions')
            .insert({ verification_id: d.verification_id, request_id: id, account_id: stored.metadata.account_id, received_at: d.received_at, queued: false })
            .onConflict('verification_id')
            .ignore();
        }
        return;
      }
      case 'RequestSubmissionWithdrawn': {
        const d = event.data;
        const updated = await row().update({ submission_count: d.submission_count, updated_at: d.withdrawn_at, last_position: position });
        if (updated > 0) await trx('request_submissions').where({ verification_id: d.verification_id, request_id: id }).delete();
        return;
      }
      case 'RequestExpired':
        // Not updated_at: nothing the owner sees changed (status was derived as expired already).
        await row().update({ expired_recorded_for: event.data.expires_at, last_position: position });
        return;
      default:
        assertNever(event);
    }
  },
};

/** Its submission (if it is one) was counted before: the verification exists. */
async function markQueued(trx: Knex.Transaction, verificationIds: readonly string[]): Promise<void> {
  await trx('request_submissions').whereIn('verification_id', verificationIds).update({ queued: true });
}
