import { assertNever, parseEvent } from '../../src/core/es/events.js';
import { type Projector, unapplied } from '../../src/core/es/projector.js';
import { streamInstance } from '../../src/core/es/streams.js';
import { uploadEvents } from '../../src/features/uploads/events.js';

/** Each received upload and where it stands: what the expiry workflow's sweep starts runs for. */
export const uploadsProjector: Projector = {
  name: 'uploads',
  version: 1,
  tables: ['uploads'],
  async migrate(knex) {
    await knex.raw(`
      create table if not exists uploads (
        nonce text primary key,
        account_id uuid,
        status text not null,
        expires_at timestamptz not null,
        received_at timestamptz not null,
        verification_id uuid,
        updated_at timestamptz not null,
        last_position numeric(20, 0) not null
      )`);
    await knex.raw(`create index if not exists uploads_received on uploads (expires_at) where status = 'received'`);
  },
  async apply(trx, stored) {
    const event = parseEvent(uploadEvents, stored);
    if (!event) return;
    const nonce = streamInstance('upload', stored.stream);
    const position = stored.position.toString();
    switch (event.type) {
      case 'UploadReceived': {
        const d = event.data;
        await trx('uploads')
          .insert({ nonce, account_id: stored.metadata.account_id, status: 'received', expires_at: d.expires_at, received_at: d.received_at, updated_at: d.received_at, last_position: position })
          .onConflict('nonce')
          .ignore();
        return;
      }
      case 'UploadUsed':
        // Uploads received before they were recorded have no row: nothing to follow for them.
        await unapplied(trx, 'uploads', { nonce }, position).update({ status: 'used', verification_id: event.data.verification_id, updated_at: event.data.used_at, last_position: position });
        return;
      case 'UploadExpired':
        await unapplied(trx, 'uploads', { nonce }, position).update({ status: 'expired', updated_at: event.data.expired_at, last_position: position });
        return;
      default:
        assertNever(event);
    }
  },
};
