import { apiKeyEvents } from '../../src/features/apikeys/events.js';
import { assertNever, parseEvent } from '../../src/core/es/events.js';
import { insertOnce, type Projector, unapplied } from '../../src/core/es/projector.js';

export const apiKeysProjector: Projector = {
  name: 'api_keys',
  version: 1,
  tables: ['api_keys'],
  async migrate(knex) {
    await knex.raw(`
      create table if not exists api_keys (
        id uuid primary key,
        prefix text not null unique,
        key_hash text not null,
        account_id uuid not null,
        user_id uuid not null,
        description text,
        scope text not null,
        expires_at timestamptz not null,
        revoked_at timestamptz,
        last_used_at timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        last_position numeric(20, 0) not null
      )`);
    await knex.raw('create index if not exists api_keys_account on api_keys (account_id)');
  },
  async apply(trx, stored) {
    const event = parseEvent(apiKeyEvents, stored);
    if (!event) return;
    const position = stored.position.toString();
    const older = (id: string) => unapplied(trx, 'api_keys', { id }, position);
    switch (event.type) {
      case 'ApiKeyCreated': {
        const d = event.data;
        await insertOnce(trx, 'api_keys', {
          id: d.key_id,
          prefix: d.prefix,
          key_hash: d.key_hash,
          account_id: d.account_id,
          user_id: d.user_id,
          description: d.description,
          scope: d.scope,
          expires_at: d.expires_at,
          created_at: d.created_at,
          updated_at: d.created_at,
          last_position: position,
        });
        return;
      }
      case 'ApiKeyRevoked':
        await older(event.data.key_id).update({ revoked_at: event.data.revoked_at, updated_at: event.data.revoked_at, last_position: position });
        return;
      case 'ApiKeyUsed':
        // last_used_at is usage telemetry, not a change of the key: updated_at stays.
        await older(event.data.key_id).update({ last_used_at: event.data.used_at, last_position: position });
        return;
      default:
        assertNever(event);
    }
  },
};
