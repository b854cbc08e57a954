import type { Knex } from 'knex';
import type { Principal } from '../principal.js';
import { streamCategory } from './streams.js';

/**
 * Who may read the streams of one category through the audit door (`GET /v1/audit/streams…`,
 * issue 35): the owning feature's own read rule, registered by its module
 * (FeatureModule.streamReadRules) so the audit door asks the same rule as the feature's own list
 * and get. A stream is shown only to callers of the account that owns it (the stream_owners read
 * model); `visible` narrows that further where the feature does (a member sees only their own API
 * keys). A category no module registers is shown to no one; a stream the caller may not see is
 * STREAM_NOT_FOUND, like an unknown one, and is neither listed nor counted.
 */
export interface StreamReadRule {
  /** The streams' category: the part of their name before the first `-` (core/es/streams.ts). */
  category: string;
  /**
   * A subquery selecting, as one text column, the instance ids (what follows `<category>-`) of
   * the caller's account's streams of this category the caller may see: built from the same
   * query the feature's own list and get use. Absent: every one of the account's.
   */
  visible?(read: { knex: Knex; principal: Principal }): Knex.QueryBuilder;
}

/** The category of the streams a feature's stream-name function builds (`apiKeyStream` → `apikey`), so it is written once. */
export const categoryOf = (streamOf: (...ids: string[]) => string): string => streamCategory(streamOf('id', 'id'));

/**
 * The rule of a feature whose streams every user of the owning account may read (its own reads
 * are "same account": core/principal.ts assertAccountAccess), named by the function that builds
 * the streams' names.
 */
export const accountStreams = (streamOf: (...ids: string[]) => string): StreamReadRule => ({ category: categoryOf(streamOf) });

/** Fails at start when two modules register a rule for the same category (which one applied would depend on list order). */
export function checkStreamReadRules(rules: readonly StreamReadRule[]): readonly StreamReadRule[] {
  const seen = new Set<string>();
  for (const rule of rules) {
    if (seen.has(rule.category)) throw new Error(`Two modules register a read rule for the stream category ${rule.category}.`);
    if (!/^[a-z_]+$/.test(rule.category)) throw new Error(`The stream category ${rule.category} is not a category (lower-case letters and _).`);
    seen.add(rule.category);
  }
  return rules;
}
