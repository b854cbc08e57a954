/**
 * A jsonb column as the driver returns it: PostgreSQL through `pg` parses it, PGlite through
 * knex may hand back the text. One reader for both.
 */
export function jsonColumn<T = Record<string, unknown>>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}
