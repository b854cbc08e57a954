import { z } from 'zod';
import { ValidationError } from '../../core/errors.js';
import type { ResourceExtension } from '../../core/extensions.js';
import { MAX_TAG_FILTER_NAMES, tagKey } from './names.js';
import { tagsColumn, verificationsTagged, verificationsWithTagLike } from './queries.js';

/**
 * What tags adds to the Verification resource (spec 2.1, 4.1): its `tags` field, the `tags` and
 * `tag_match` list filters, and list search by tag name. The verifications feature applies it
 * without knowing the tag tables (core/extensions.ts).
 */
export const verificationTagsExtension: ResourceExtension = {
  resource: 'verification',
  fieldColumns: (knex, idColumn) => ({ tags: tagsColumn(knex, idColumn) }),
  listParameters: {
    tags: z.string().optional().describe(`Comma-separated tag names, case-insensitive, at most ${MAX_TAG_FILTER_NAMES}.`),
    tag_match: z.enum(['all', 'any']).default('all').describe('all: verifications carrying every named tag; any: at least one.'),
  },
  filter({ knex, accountId, query }) {
    const keys = filterKeys(query.tags);
    if (keys.length === 0) return null;
    return verificationsTagged(knex, accountId, keys, query.tag_match === 'any' ? 'any' : 'all');
  },
  search: { matches: 'part of a tag name', ids: ({ knex, accountId, term }) => verificationsWithTagLike(knex, accountId, term) },
};

/** The `tags` filter: comma-separated names, case-insensitive, at most 10 (spec 4.1); blanks ignored, repeats counted once. */
function filterKeys(value: unknown): string[] {
  if (typeof value !== 'string') return [];
  const keys = [...new Set(value.split(',').map(tagKey).filter(Boolean))];
  if (keys.length > MAX_TAG_FILTER_NAMES) {
    throw new ValidationError(`At most ${MAX_TAG_FILTER_NAMES} tag names may be given in the tags filter; got ${keys.length}.`, {
      suggestion: `Narrow the filter to ${MAX_TAG_FILTER_NAMES} names.`,
    });
  }
  return keys;
}
