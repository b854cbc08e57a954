import type { Knex } from 'knex';
import type { Principal } from '../../src/core/principal.js';
import type { StreamReadRule } from '../../src/core/es/stream-read-rules.js';
import { streamName } from '../../src/core/es/streams.js';

/** A row of the stream_owners read model (projection.ts owns the table): which account owns a stream. */
export interface StreamOwnerRow {
  stream: string;
  account_id: string | null;
  event_count: number;
  first_recorded_at: Date | string;
  last_recorded_at: Date | string;
  last_position: string;
}

export const streamOwnersTable = (knex: Knex) => knex<StreamOwnerRow>('stream_owners');

/**
 * The streams the caller may see (issue 35): its account's, of a category some feature registers
 * a read rule for, narrowed by that rule (core/es/stream-read-rules.ts). Listing, counting and
 * reading one stream all start here, so a stream hidden from the caller is neither shown, nor
 * counted, nor told apart from an unknown one.
 */
function visibleStreams(knex: Knex, rules: readonly StreamReadRule[], principal: Principal): Knex.QueryBuilder<StreamOwnerRow> {
  const ofAccount = streamOwnersTable(knex).where({ account_id: principal.accountId });
  if (rules.length === 0) return ofAccount.whereRaw('false');
  return ofAccount.where((any) => {
    for (const rule of rules) {
      const prefix = streamName(rule.category, '');
      any.orWhere((ofRule) => {
        ofRule.whereRaw('left(stream, ?) = ?', [prefix.length, prefix]);
        if (rule.visible) ofRule.whereRaw('substr(stream, ?) in ?', [prefix.length + 1, rule.visible({ knex, principal })]);
      });
    }
  });
}

/** One stream, if the caller may see it. */
export const findVisibleStream = (knex: Knex, rules: readonly StreamReadRule[], principal: Principal, stream: string): Promise<StreamOwnerRow | undefined> =>
  visibleStreams(knex, rules, principal).where({ stream }).first();

/** One page of the streams the caller may see, most recently changed first, and how many it may see in all. */
export async function pageVisibleStreams(
  knex: Knex,
  rules: readonly StreamReadRule[],
  principal: Principal,
  page: { offset: number; size: number },
): Promise<{ rows: StreamOwnerRow[]; total: number }> {
  const base = visibleStreams(knex, rules, principal);
  const counted = await base.clone().count<{ count: string | number }[]>('* as count');
  const rows = await base
    .clone()
    .orderBy([{ column: 'last_recorded_at', order: 'desc' }, { column: 'stream' }])
    .offset(page.offset)
    .limit(page.size);
  return { rows, total: Number(counted[0]?.count ?? 0) };
}
