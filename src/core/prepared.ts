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
export const statementName = (sql: string): string => `pv_${textHash(sql)}_${sql.length.toString(36)}`;

/**
 * Two independent 32-bit FNV-1a hashes of the text (64 bits with its length beside them: no two
 * of the few statement texts collide). Plain arithmetic, no node:crypto: Temporal's workflow
 * bundle reaches this module (workflow.ts imports the verification queries) and may not load
 * Node's modules.
 */
function textHash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x050c5d1f) >>> 0;
  }
  return a.toString(36) + b.toString(36);
}

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
