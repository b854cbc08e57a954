import type { Knex } from 'knex';

/**
 * One feature's contribution to a resource another feature owns: fields on its view, a filter
 * on its list, matches for its free-text search. The owning feature reads its extensions from
 * deps.extensions (every module's `extensions`, src/modules.ts) and applies them, so neither
 * feature imports the other's internals: tags adds `tags` to a Verification and the `tags` /
 * `tag_match` list filters this way.
 */
export type ExtensibleResource = 'verification';

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
   * "verifications.id"): a page or a single record stays one query. Each value is JSON or a number.
   */
  fieldColumns?(knex: Knex, idColumn: string): Record<string, Knex.Raw>;
  /**
   * A subquery selecting the ids of the records this extension admits under the list's query,
   * or null when the query does not use its parameters. Throws a ValidationError for a bad value.
   */
  filter?(list: ListContext): Knex.QueryBuilder | null;
  /** A subquery selecting the ids of the records whose data in this feature matches the search term. */
  search?(list: ListContext & { term: string }): Knex.QueryBuilder;
}

export const extensionsOf = (extensions: readonly ResourceExtension[], resource: ExtensibleResource): ResourceExtension[] =>
  extensions.filter((e) => e.resource === resource);

/** Every extension's field columns, for the owner's read query. */
export const extensionColumns = (knex: Knex, extensions: readonly ResourceExtension[], idColumn: string): Record<string, Knex.Raw> =>
  Object.assign({}, ...extensions.map((e) => e.fieldColumns?.(knex, idColumn) ?? {}));
