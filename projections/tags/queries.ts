import type { Knex } from 'knex';

/** Rows of the tags read models (projection.ts owns the tables; this file names them once). */
export interface TagRow {
  id: string;
  account_id: string;
  name: string;
  name_key: string;
  color: string | null;
  created_at: Date | string;
  updated_at: Date | string;
  last_position: string;
}

export interface VerificationTagRow {
  verification_id: string;
  tag_id: string;
  account_id: string;
}

const tags = (knex: Knex) => knex<TagRow>('tags');
/**
 * Tags sort by name, case-insensitively, in code-point order ("C" collation): the same order on
 * every database whatever its locale, and the order use-cases.ts gives the lists it builds itself.
 */
const BY_NAME = (table: string) => `${table}.name_key collate "C", ${table}.name collate "C", ${table}.id`;
const verificationTags = (knex: Knex) => knex<VerificationTagRow>('verification_tags');

/** An account's tags sorted by name (case-insensitively), each with how many verifications carry it. */
export function tagsWithCounts(knex: Knex, accountId: string): Promise<(TagRow & { verification_count: string | number })[]> {
  return tags(knex)
    .where({ account_id: accountId })
    .select<(TagRow & { verification_count: string | number })[]>('tags.*', knex.raw('(select count(*) from verification_tags where verification_tags.tag_id = tags.id) as verification_count'))
    .orderByRaw(BY_NAME('tags'));
}

export async function verificationCount(knex: Knex, tagId: string): Promise<number> {
  const rows = await verificationTags(knex).where({ tag_id: tagId }).count<{ count: string | number }[]>('* as count');
  return Number(rows[0]?.count ?? 0);
}

/** The tags of the verification whose id is in `idColumn` (sorted by name), as a correlated JSON subquery. */
export const tagsColumn = (knex: Knex, idColumn: string): Knex.Raw =>
  knex.raw(
    `select coalesce(json_agg(json_build_object('id', tags.id, 'name', tags.name, 'color', tags.color) order by ${BY_NAME('tags')}), '[]')
       from verification_tags join tags on tags.id = verification_tags.tag_id where verification_tags.verification_id = ??`,
    [idColumn],
  );

/**
 * Ids of the account's verifications carrying the tags of these name keys: every one of them
 * (`all`) or at least one (`any`). Names compare by key, so the filter is case-insensitive;
 * keys are unique per account, so counting matched rows counts distinct tags.
 */
export function verificationsTagged(knex: Knex, accountId: string, keys: readonly string[], match: 'all' | 'any'): Knex.QueryBuilder {
  const matched = knex('verification_tags')
    .join('tags', 'tags.id', 'verification_tags.tag_id')
    .where('tags.account_id', accountId)
    .whereIn('tags.name_key', keys as string[])
    .select('verification_tags.verification_id');
  return match === 'any' ? matched : matched.groupBy('verification_tags.verification_id').havingRaw('count(*) = ?', [keys.length]);
}

/** Ids of the account's verifications carrying a tag whose name contains the term (case-insensitive). */
export function verificationsWithTagLike(knex: Knex, accountId: string, term: string): Knex.QueryBuilder {
  const like = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return knex('verification_tags')
    .join('tags', 'tags.id', 'verification_tags.tag_id')
    .where('tags.account_id', accountId)
    .whereILike('tags.name', like)
    .select('verification_tags.verification_id');
}
