import { z } from 'zod';
import type { ResourceExtension } from '../../core/module/extensions.js';
import { MAX_TAG_FILTER_NAMES, tagKey } from './names.js';
import { tagsColumn, verificationsTagged, verificationsWithTagLike } from '../../../projections/tags/index.js';

/**
 * What tags adds to the Verification resource (spec 2.1, 4.1): its `tags` field, the `tags` and
 * `tag_match` list filters, and list search by tag name. The verifications feature applies it
 * without knowing the tag tables (core/module/extensions.ts).
 */
export const verificationTagsExtension: ResourceExtension = {
  resource: 'verification',
  fieldColumns: (knex, idColumn) => ({ tags: tagsColumn(knex, idColumn) }),
  listParameters: {
    // A validation failure like every other filter's: 422 naming query.tags (issue 36 item 11).
    tags: z
      .string()
      .optional()
      .refine((value) => filterKeys(value).length <= MAX_TAG_FILTER_NAMES, `At most ${MAX_TAG_FILTER_NAMES} tag names may be given in the tags filter.`)
      .describe(`Comma-separated tag names, case-insensitive, at most ${MAX_TAG_FILTER_NAMES}.`),
    tag_match: z.enum(['all', 'any']).default('all').describe('all: verifications carrying every named tag; any: at least one.'),
  },
  filter({ knex, accountId, query }) {
    const keys = filterKeys(query.tags);
    if (keys.length === 0) return null;
    return verificationsTagged(knex, accountId, keys, query.tag_match === 'any' ? 'any' : 'all');
  },
  search: { matches: 'part of a tag name', ids: ({ knex, accountId, term }) => verificationsWithTagLike(knex, accountId, term) },
};

/**
 * The `tags` filter's names: comma-separated, case-insensitive (spec 4.1); blanks ignored,
 * repeats counted once. At most MAX_TAG_FILTER_NAMES: the list parameter's schema refuses more.
 */
function filterKeys(value: unknown): string[] {
  if (typeof value !== 'string') return [];
  return [...new Set(value.split(',').map(tagKey).filter(Boolean))];
}
