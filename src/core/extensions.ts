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
   * Fields for a page of records, read in one query, merged over the owner's view of each
   * (they must be fields of the owner's documented schema). A record missing from the map keeps the owner's defaults.
   */
  fields?(knex: Knex, ids: readonly string[]): Promise<ReadonlyMap<string, Record<string, unknown>>>;
  /**
   * The same fields as correlated subqueries on the owner's id column (`idColumn`, e.g.
   * "verifications.id"), so a single-record read stays one query; each value is JSON or a number.
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

/**
 * Every extension's field columns for the owner's single-record query, or null when one of them
 * offers fields only through `fields` (then the owner reads them with withExtensionFields).
 */
export function extensionColumns(knex: Knex, extensions: readonly ResourceExtension[], idColumn: string): Record<string, Knex.Raw> | null {
  const withFields = extensions.filter((e) => e.fields);
  if (withFields.some((e) => !e.fieldColumns)) return null;
  return Object.assign({}, ...withFields.map((e) => e.fieldColumns!(knex, idColumn)));
}

/** Views with every extension's fields merged in (one query per extension for the whole page). */
export async function withExtensionFields<V extends { id: string }>(knex: Knex, extensions: readonly ResourceExtension[], views: V[]): Promise<V[]> {
  const ids = views.map((v) => v.id);
  const contributed = await Promise.all(extensions.filter((e) => e.fields).map((e) => e.fields!(knex, ids)));
  return views.map((view) => Object.assign({}, view, ...contributed.map((fields) => fields.get(view.id) ?? {})) as V);
}
