import { assertNever, parseEvent } from '../../src/core/es/events.js';
import { insertOnce, type Projector, unapplied } from '../../src/core/es/projector.js';
import { mailEvents } from '../../src/features/mail/events.js';

/** Delivery state per message: what the workflow sweep restarts, and what an operator queries. */
export const mailMessagesProjector: Projector = {
  name: 'mail_messages',
  version: 1,
  tables: ['mail_messages'],
  async migrate(knex) {
    await knex.raw(`
      create table if not exists mail_messages (
        id text primary key,
        message_id text not null,
        account_id uuid,
        recipient text not null,
        subject text not null,
        status text not null,
        attempts integer not null,
        last_error text,
        next_attempt_at timestamptz,
        queued_at timestamptz not null,
        sent_at timestamptz,
        failed_at timestamptz,
        updated_at timestamptz not null,
        last_position numeric(20, 0) not null
      )`);
    await knex.raw(`create index if not exists mail_messages_unfinished on mail_messages (queued_at) where status in ('queued', 'sending')`);
    await knex.raw('create index if not exists mail_messages_account on mail_messages (account_id)');
  },
  async apply(trx, stored) {
    const event = parseEvent(mailEvents, stored);
    if (!event) return;
    const position = stored.position.toString();
    const older = (id: string) => unapplied(trx, 'mail_messages', { id }, position);
    switch (event.type) {
      case 'MailQueued': {
        const d = event.data;
        await insertOnce(trx, 'mail_messages', {
          id: d.mail_id,
          message_id: d.message_id,
          account_id: d.account_id,
          recipient: d.to,
          subject: d.subject,
          status: 'queued',
          attempts: 0,
          queued_at: d.queued_at,
          updated_at: d.queued_at,
          last_position: position,
        });
        return;
      }
      case 'MailSendAttempted':
        await older(event.data.mail_id).update({ status: 'sending', attempts: event.data.attempt, next_attempt_at: null, updated_at: event.data.attempted_at, last_position: position });
        return;
      case 'MailSent':
        await older(event.data.mail_id).update({ status: 'sent', sent_at: event.data.sent_at, updated_at: event.data.sent_at, last_position: position });
        return;
      case 'MailAttemptFailed':
        await older(event.data.mail_id).update({
          status: 'queued',
          last_error: event.data.error,
          next_attempt_at: event.data.retry_at,
          updated_at: event.data.failed_at,
          last_position: position,
        });
        return;
      case 'MailDeliveryFailed':
        await older(event.data.mail_id).update({
          status: 'failed',
          last_error: event.data.error,
          next_attempt_at: null,
          failed_at: event.data.failed_at,
          updated_at: event.data.failed_at,
          last_position: position,
        });
        return;
      default:
        assertNever(event);
    }
  },
};
