import type { Knex } from 'knex';
import type { StoredEvent } from '../../src/core/es/event-store.js';
import { assertNever, parseEvent } from '../../src/core/es/events.js';
import { insertOnce, type Projector, unapplied } from '../../src/core/es/projector.js';
import { streamInstance } from '../../src/core/es/streams.js';
import { verificationEvents } from '../../src/features/verifications/events.js';
import { tagEvents, verificationTagEvents } from '../../src/features/tags/events.js';
import { tagKey } from './tag-key.js';

/**
 * tags (the vocabulary, one row per live tag, unique per account and name key),
 * verification_tags (which verification carries which tag: the list's `tags` field, filters,
 * search and verification_count all read it through its indexes) and verification_tag_sets
 * (per verification: the position its tags reflect, and a tombstone once it is deleted, so a
 * late tag change of a deleted verification projects to nothing, on rebuild too).
 * A deleted tag's rows go with it (TagDeleted detaches it everywhere). Every decision here uses
 * only this projector's own tables, so a rebuild applies the same events to the same rows.
 */
export const tagsProjector: Projector = {
  name: 'tags',
  version: 1,
  tables: ['verification_tags', 'verification_tag_sets', 'tags'],
  async migrate(knex) {
    await knex.raw(`
      create table if not exists tags (
        id uuid primary key,
        account_id uuid not null,
        name text not null,
        name_key text not null,
        color text,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        last_position numeric(20, 0) not null
      )`);
    await knex.raw('create unique index if not exists tags_account_name on tags (account_id, name_key)');
    await knex.raw(`
      create table if not exists verification_tags (
        verification_id uuid not null,
        tag_id uuid not null,
        account_id uuid not null,
        primary key (verification_id, tag_id)
      )`);
    // Filters and counts go from a tag to its verifications.
    await knex.raw('create index if not exists verification_tags_tag on verification_tags (tag_id, verification_id)');
    await knex.raw(`
      create table if not exists verification_tag_sets (
        verification_id uuid primary key,
        deleted boolean not null,
        last_position numeric(20, 0) not null
      )`);
  },
  async apply(trx, stored) {
    if (stored.stream.startsWith('tags-')) return applyVocabulary(trx, stored);
    if (stored.stream.startsWith('verification_tags-')) return applyVerificationTags(trx, stored);
    if (stored.type === verificationEvents.VerificationDeleted.type) {
      const id = streamInstance('verification', stored.stream);
      await trx('verification_tags').where({ verification_id: id }).delete();
      await trx('verification_tag_sets')
        .insert({ verification_id: id, deleted: true, last_position: stored.position.toString() })
        .onConflict('verification_id')
        .merge();
    }
  },
};

async function applyVocabulary(trx: Knex.Transaction, stored: StoredEvent): Promise<void> {
  const event = parseEvent(tagEvents, stored);
  if (!event) return;
  const position = stored.position.toString();
  const older = (id: string) => unapplied(trx, 'tags', { id }, position);
  switch (event.type) {
    case 'TagCreated': {
      const d = event.data;
      await insertOnce(trx, 'tags', {
        id: d.tag_id,
        account_id: streamInstance('tags', stored.stream),
        name: d.name,
        name_key: tagKey(d.name),
        color: d.color,
        created_at: d.created_at,
        updated_at: d.created_at,
        last_position: position,
      });
      return;
    }
    case 'TagRenamed':
      await older(event.data.tag_id).update({ name: event.data.to, name_key: tagKey(event.data.to), updated_at: event.data.renamed_at, last_position: position });
      return;
    case 'TagRecoloured':
      await older(event.data.tag_id).update({ color: event.data.to, updated_at: event.data.recoloured_at, last_position: position });
      return;
    case 'TagDeleted':
      await trx('verification_tags').where({ tag_id: event.data.tag_id }).delete();
      await trx('tags').where({ id: event.data.tag_id }).delete();
      return;
    default:
      assertNever(event);
  }
}

async function applyVerificationTags(trx: Knex.Transaction, stored: StoredEvent): Promise<void> {
  const event = parseEvent(verificationTagEvents, stored);
  if (!event) return;
  const id = streamInstance('verification_tags', stored.stream);
  const set = await trx('verification_tag_sets').where({ verification_id: id }).first();
  if (set && (set.deleted || BigInt(set.last_position) >= stored.position)) return;
  await trx('verification_tag_sets')
    .insert({ verification_id: id, deleted: false, last_position: stored.position.toString() })
    .onConflict('verification_id')
    .merge();
  const ids = event.data.tag_ids;
  await trx('verification_tags').where({ verification_id: id }).whereNotIn('tag_id', ids).delete();
  if (ids.length === 0) return;
  // Only tags still in the vocabulary: one deleted while this change was decided stays detached.
  await trx.raw(
    `insert into verification_tags (verification_id, tag_id, account_id)
     select ?::uuid, id, account_id from tags where id in (${ids.map(() => '?').join(', ')})
     on conflict do nothing`,
    [id, ...ids],
  );
}
