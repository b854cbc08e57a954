/**
 * The embedded database's own thread (D-054): it owns the PGlite instance and answers the
 * main thread's queries (pglite-proxy.ts). PGlite runs PostgreSQL as WebAssembly and parses its
 * wire protocol in JavaScript; on the event loop that took 40–50 % of the service's main thread
 * under read load. Here it runs beside the event loop instead.
 *
 * Imports nothing of the service: only PGlite and Node's own modules load into this thread.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, type QueryOptions } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { packageRoot } from '../../core/package-root.js';

/** What the thread starts with (Worker's workerData). */
export interface PgliteThreadOptions {
  /** The cluster's directory; undefined for an in-memory database. */
  dir: string | undefined;
  sharedBuffersMb: number;
}

export type PgliteRequest =
  /** `inTransaction`: sent after a BEGIN whose answer was not awaited (pglite-proxy.ts): refused unless a transaction is open. */
  | { id: number; sql: string; params?: unknown[]; options?: QueryOptions; inTransaction?: true }
  | { id: number; close: true };

/** An error as it crosses the thread boundary: structured clone would keep only its message. */
export interface SerializedError {
  name: string;
  message: string;
  /** PostgreSQL's fields (code, detail, constraint, severity, ...) as PGlite set them. */
  fields: Record<string, unknown>;
}

export type PgliteReply =
  | { ready: true }
  | { failed: SerializedError }
  | { id: number; result: unknown }
  | { id: number; error: SerializedError };

function serializeError(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(error)) {
    if (value === undefined || typeof value === 'function' || typeof value === 'object') continue; // only PostgreSQL's scalar fields
    fields[key] = value;
  }
  return { name: error.name, message: error.message, fields };
}

/**
 * Opens (or creates) an embedded cluster. A new one is unpacked from the empty-cluster template
 * the build leaves in dist/ (scripts/pglite-template.mjs): initdb would take seconds. Without
 * the template (a build that skipped it, another PGlite version) it is created the slow way.
 */
async function openPglite({ dir, sharedBuffersMb }: PgliteThreadOptions): Promise<PGlite> {
  const fresh = dir === undefined || !fs.existsSync(path.join(dir, 'PG_VERSION'));
  const template = fresh ? emptyClusterTemplate() : undefined;
  // Shared buffers live in PGlite's WebAssembly memory: its default 128 MB alone would exceed the
  // idle footprint (D-049). The data files stay in the OS page cache, read through Node's fs.
  const options = {
    // Without autovacuum, a GIN index's pending list (new entries every search reads through)
    // is merged into the index only when full, 4 MB by default: the trigram search read up to
    // 176 pending pages on each call. The smallest limit merges it every few inserts (D-070).
    // ANALYZE samples 300 rows per statistics target: at the default 100, 30,000 rows a table,
    // whose copies grew the WebAssembly memory for good (idle RSS 310 against 267 MiB with
    // 100,000 verifications, D-078). The hot statements run with generic plans anyway (D-072).
    postgresqlconf: [`shared_buffers = ${sharedBuffersMb}MB`, 'gin_pending_list_limit = 64kB', 'default_statistics_target = 25'],
    // Trigram indexes serve the verification search (name contains ...), as on PostgreSQL.
    extensions: { pg_trgm },
    ...(template ? { loadDataDir: new Blob([new Uint8Array(template)]) } : {}),
  };
  return dir === undefined ? PGlite.create(options) : PGlite.create(dir, options);
}

function emptyClusterTemplate(): Buffer | undefined {
  // The package does not export its package.json: find it above its entry point.
  let dir = path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  const { version } = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string };
  const file = path.join(packageRoot, 'dist', `pglite-${version}-empty.tgz`);
  return fs.existsSync(file) ? fs.readFileSync(file) : undefined;
}

/** Each value as a quoted literal of unknown type, or undefined when one cannot be written as text. */
function literals(params: unknown[]): string[] | undefined {
  const out: string[] = [];
  for (const value of params) {
    if (value === null || value === undefined) out.push('NULL');
    else if (typeof value === 'string' && !value.includes('\u0000')) out.push(`'${value.replaceAll("'", "''")}'`);
    else if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'bigint' || typeof value === 'boolean') out.push(`'${String(value)}'`);
    else return undefined;
  }
  return out;
}

/** SQLSTATEs after which a prepared statement is made again: gone (26000), or its plan's result type changed by DDL (0A000). */
const STALE_STATEMENT = new Set(['26000', '0A000']);

/**
 * Named statements (core/es/prepared.ts, D-056) become PostgreSQL's own PREPARE and EXECUTE: PGlite
 * plans every statement it is sent, and planning was ~40% of the read by id through this thread
 * (1.13–1.18 ms a read against 0.66–0.74 prepared, 300 sequential reads of the seeded 100,000).
 * Values go in as quoted literals of unknown type, which PostgreSQL reads with each parameter's
 * input function exactly as it reads text-format bind values (standard_conforming_strings is on:
 * only quotes need doubling). A value that has no such text form runs the ordinary way.
 */
function preparedQueries(pglite: PGlite) {
  const prepared = new Set<string>();
  const plans = genericPlansForNamed(pglite);
  return async (sql: string, params: unknown[] | undefined, options: (QueryOptions & { name?: unknown }) | undefined) => {
    const name = options?.name;
    const values = literals(params ?? []);
    if (typeof name !== 'string' || !/^[A-Za-z0-9_-]{1,60}$/.test(name) || !values) {
      await plans.use(false);
      return pglite.query(sql, params, options);
    }
    await plans.use(true);
    const statement = `"${name}"`;
    const execute = () => pglite.query(`execute ${statement}${values.length ? `(${values.join(', ')})` : ''}`, [], options);
    if (!prepared.has(name)) {
      await pglite.query(`prepare ${statement} as ${sql}`);
      prepared.add(name);
    }
    try {
      return await execute();
    } catch (error) {
      if (!STALE_STATEMENT.has(String((error as { code?: unknown }).code))) throw error;
      prepared.delete(name);
      await pglite.query(`deallocate ${statement}`).catch(() => undefined); // already gone: nothing to free
      await pglite.query(`prepare ${statement} as ${sql}`);
      prepared.add(name);
      return execute();
    }
  };
}

/**
 * Named statements run with generic plans, every other statement as PostgreSQL chooses (D-072). PostgreSQL keeps planning a prepared statement for each call's values when its
 * generic plan looks dearer, and a list page's does: its `limit $n` is costed as 10 % of the
 * account's rows. Planning was a third of the page's time in this thread (1.4–1.6 ms a page,
 * 0.9–1.1 with the generic plan, which is the same plan). The mode is a session setting: it is
 * changed only outside transactions, where a rollback cannot undo it behind this thread's back,
 * and a BEGIN (unnamed) sets it back first, so a transaction's statements are planned as before.
 */
function genericPlansForNamed(pglite: PGlite) {
  let generic = false;
  return {
    async use(wanted: boolean): Promise<void> {
      if (generic === wanted || pglite.isInTransaction()) return;
      await pglite.query(`set plan_cache_mode = ${wanted ? 'force_generic_plan' : 'auto'}`);
      generic = wanted;
    },
  };
}

async function serve(port: NonNullable<typeof parentPort>, options: PgliteThreadOptions): Promise<void> {
  let pglite: PGlite;
  try {
    pglite = await openPglite(options);
  } catch (error) {
    port.postMessage({ failed: serializeError(error) } satisfies PgliteReply);
    return;
  }
  const answer = (id: number, work: Promise<unknown>) =>
    work.then(
      (result) => {
        try {
          port.postMessage({ id, result } satisfies PgliteReply);
        } catch (error) {
          // A value structured clone cannot carry: the query fails, the thread carries on.
          port.postMessage({ id, error: serializeError(error) } satisfies PgliteReply);
        }
      },
      (error: unknown) => port.postMessage({ id, error: serializeError(error) } satisfies PgliteReply),
    );
  const query = preparedQueries(pglite);
  // One request at a time, in arrival order (the main thread's): a request's own statements (a
  // PREPARE, a plan mode) must not interleave with another's, and a statement sent right after a
  // BEGIN that was not awaited (D-068) is checked against the transaction only once it has run.
  let previous: Promise<unknown> = Promise.resolve();
  const run = (request: PgliteRequest): Promise<unknown> => {
    if ('close' in request) return pglite.close();
    if (request.inTransaction && !pglite.isInTransaction()) return Promise.reject(new Error('the transaction this statement belongs to is not open (its BEGIN failed)'));
    return query(request.sql, request.params, request.options);
  };
  port.on('message', (request: PgliteRequest) => {
    previous = previous.then(() => answer(request.id, run(request)));
  });
  port.postMessage({ ready: true } satisfies PgliteReply);
}

if (parentPort) await serve(parentPort, workerData as PgliteThreadOptions);
