import crypto from 'node:crypto';
import type { Knex } from 'knex';

/**
 * Hot reads as named prepared statements. An unnamed statement (what knex sends) is parsed and
 * planned by PostgreSQL on every call; a named one once per pooled connection, then only bound
 * and executed: for `GET /v1/verifications/{id}` that is ~0.13 of its ~0.19 ms in the database
 * (D-056). The name derives from the SQL text, so two texts never share a name (the `pg` driver
 * refuses that). Use it only for queries whose text takes few shapes: each shape stays prepared
 * on every connection for the connection's life. The PGlite thread prepares them too, as
 * PREPARE and EXECUTE (pglite-thread.ts).
 */
export const statementName = (sql: string): string => `pv_${crypto.createHash('sha256').update(sql).digest('hex').slice(0, 16)}_${sql.length.toString(36)}`;

/** Runs the query as a named statement, named after its SQL text (compiled once, as knex would). */
export async function runPrepared(knex: Knex, query: Knex.QueryBuilder): Promise<Record<string, unknown>[]> {
  const { sql, bindings } = query.toSQL();
  const result = await knex.raw(sql, bindings as Knex.RawBinding[]).options({ name: statementName(sql) });
  return (result as { rows: Record<string, unknown>[] }).rows;
}

/**
 * A query whose text never changes for a context (e.g. the app's deps: its database handle and
 * its features), compiled once and then run as a named statement with each call's values: saves
 * knex's compilation on every call as well as the database's planning. `build` receives one
 * stand-in per parameter and must use each as a binding; the call passes the real values in
 * the same order (other bindings, such as a `limit 1`, keep their compiled values).
 */
export function preparedQuery<C extends { knex: Knex }>(
  build: (context: C, ...params: string[]) => Knex.QueryBuilder,
  parameters: number,
): (context: C, ...values: unknown[]) => Promise<Record<string, unknown>[]> {
  const standIns = Array.from({ length: parameters }, (_, i) => `\u0000param${i}`);
  const compiled = new WeakMap<C, { sql: string; name: string; bindings: readonly unknown[] }>();
  return async (context, ...values) => {
    let statement = compiled.get(context);
    if (!statement) {
      const { sql, bindings } = build(context, ...standIns).toSQL();
      statement = { sql, name: statementName(sql), bindings };
      compiled.set(context, statement);
    }
    const bindings = statement.bindings.map((b) => {
      const i = typeof b === 'string' ? standIns.indexOf(b) : -1;
      return i < 0 ? b : values[i];
    });
    const result = await context.knex.raw(statement.sql, bindings as Knex.RawBinding[]).options({ name: statement.name });
    return (result as { rows: Record<string, unknown>[] }).rows;
  };
}
