import type { Knex } from 'knex';
import type { z } from 'zod';

/**
 * One feature's contribution to a resource another feature owns: fields on its view, a filter
 * on its list, matches for its free-text search. The owning feature reads its extensions from
 * deps.extensions (every module's `extensions`, src/modules.ts) and applies them, so neither
 * feature imports the other's internals: tags adds `tags` to a Verification and the `tags` /
 * `tag_match` list filters this way. An extension's list parameters join the owner's list query
 * schema (validation, defaults, OpenAPI and the MCP tool's input alike), so the owner declares
 * only its own.
 */
export type ExtensibleResource = 'verification' | 'account_usage';

/** The list call an extension narrows: the caller's account and the list's parsed query. */
export interface ListContext {
  knex: Knex;
  accountId: string;
  query: Readonly<Record<string, unknown>>;
}

export interface ResourceExtension {
  resource: ExtensibleResource;
  /**
   * Fields merged over the owner's view of each record (they must be fields of the owner's
   * documented schema), as correlated subqueries on the owner's id column (`idColumn`, e.g.
   * "verifications.id"; an account's usage: the account's id): a page or a single record stays one
   * query. Each value is JSON or a number.
   */
  fieldColumns?(knex: Knex, idColumn: string): Record<string, Knex.Raw>;
  /** The list query parameters `filter` reads, with their schemas (described: they document the list). */
  listParameters?: z.core.$ZodShape;
  /**
   * A subquery selecting the ids of the records this extension admits under the list's query,
   * or null when the query does not use its parameters. Throws a ValidationError for a bad value.
   */
  filter?(list: ListContext): Knex.QueryBuilder | null;
  /** What else the owner's free-text search matches, from this feature's data. */
  search?: {
    /** The matches in words, ending the owner's description of its search parameter ("part of a tag name"). */
    matches: string;
    /** A subquery selecting the ids of the records whose data in this feature matches the term. */
    ids(list: ListContext & { term: string }): Knex.QueryBuilder;
  };
}

export const extensionsOf = (extensions: readonly ResourceExtension[], resource: ExtensibleResource): ResourceExtension[] =>
  extensions.filter((e) => e.resource === resource);

/** Every extension's field columns, for the owner's read query. */
export const extensionColumns = (knex: Knex, extensions: readonly ResourceExtension[], idColumn: string): Record<string, Knex.Raw> =>
  Object.assign({}, ...extensions.map((e) => e.fieldColumns?.(knex, idColumn) ?? {}));

/**
 * Every extension's list parameters for one list query, to extend the owner's own with; fails at
 * start when two declare the same parameter, or one redeclares the owner's (`own`).
 */
export function extensionListParameters(extensions: readonly ResourceExtension[], own: z.core.$ZodShape): z.core.$ZodShape {
  const shape: Record<string, z.core.$ZodType> = {};
  for (const extension of extensions) {
    for (const [name, schema] of Object.entries(extension.listParameters ?? {})) {
      if (name in own || name in shape) throw new Error(`The list query parameter "${name}" of the ${extension.resource} resource is declared twice.`);
      shape[name] = schema;
    }
  }
  return shape;
}

/** The owner's description of its search parameter, completed by the extensions' matches ("…, or part of a tag name."). */
export const searchDescription = (ownMatches: readonly string[], extensions: readonly ResourceExtension[]): string => {
  const all = [...ownMatches, ...extensions.flatMap((e) => (e.search ? [e.search.matches] : []))];
  return `Matches ${all.length > 1 ? `${all.slice(0, -1).join(', ')}, or ${all.at(-1)}` : all[0]}.`;
};
