import { Worker } from 'node:worker_threads';
import type { QueryOptions, Results } from '@electric-sql/pglite';
import type { PgliteReply, PgliteThreadOptions, SerializedError } from './pglite-thread.js';

type Pending = { resolve(value: unknown): void; reject(error: Error): void };

/** What knex-pglite uses of a PGlite instance: one connection of knex's pool. */
export interface PgliteSession {
  readonly waitReady: Promise<void>;
  query<T>(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>>;
}
type Outgoing = { sql: string; params?: unknown[]; options?: QueryOptions; inTransaction?: true } | { close: true };

/** What BEGIN answers: nothing (knex reads no rows from it). */
const BEGUN = { rows: [], fields: [], affectedRows: 0 };

/**
 * The main thread's side of the embedded database (D-054): the part of PGlite's surface that
 * knex-pglite uses (`waitReady`, `query`, `close`), answered by PGlite in its own thread
 * (pglite-thread.ts) through request/response messages with ids.
 *
 * Values cross by structured clone, which keeps what PGlite's parsers return (Date, BigInt,
 * Uint8Array, parsed JSON) as they are. Errors are rebuilt with PostgreSQL's fields (code,
 * detail, constraint, ...). If the thread dies, every query in flight and every later one fails
 * with that reason instead of waiting forever.
 *
 * BEGIN is not waited for (D-068): the thread runs requests one at a time in arrival order, so the
 * transaction's statements can follow it at once, which saves a round trip between the threads
 * per transaction (each projection pass is one). Each of them is marked as part of a transaction,
 * and the thread refuses it if none is open, so a BEGIN that failed can never let them run and
 * commit one by one.
 *
 * knex holds several connections (`session()`, D-069), all answered by the one backend: while one
 * of them has a transaction open, the others' statements wait here until it ends (they would
 * otherwise run inside it); otherwise every statement is sent at once, so the thread finds the
 * next one waiting instead of idling through a round trip per statement.
 */
export class PgliteProxy {
  /** Resolves once the cluster is open; rejects with the reason it could not be. */
  readonly waitReady: Promise<void>;
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** The session between a BEGIN sent and its COMMIT or ROLLBACK: its statements belong to a transaction. */
  private transactionOf: PgliteSession | undefined;
  /** Other sessions' statements, sent once that transaction ends. */
  private held: (() => void)[] = [];
  /** The connection of callers that use the proxy itself. */
  private readonly own: PgliteSession = this.session();
  /** Set once the thread is gone (closed, crashed or never started): every request fails with it. */
  private stopped: Error | undefined;

  constructor(options: PgliteThreadOptions) {
    // Compiled (dist/): the thread's own .js. From source (vitest, tsx): an .mjs entry registers tsx first.
    const entry = import.meta.url.endsWith('.ts') ? './pglite-thread-entry.mjs' : './pglite-thread.js';
    this.worker = new Worker(new URL(entry, import.meta.url), { workerData: options, execArgv: threadExecArgv(process.execArgv) });
    this.waitReady = new Promise<void>((resolve, reject) => {
      this.worker.on('message', (reply: PgliteReply) => {
        if ('id' in reply) return this.settle(reply);
        if ('ready' in reply) return resolve();
        const error = rebuildError(reply.failed);
        this.stop(error);
        reject(error);
      });
      this.worker.on('error', (error) => {
        this.stop(error);
        reject(error);
      });
      this.worker.on('exit', (code) => {
        const error = new Error(`the embedded database's thread stopped (exit code ${code})`);
        this.stop(error);
        reject(error);
      });
    });
    this.waitReady.catch(() => undefined); // the opener awaits it; an unawaited rejection must not crash the process
  }

  query<T>(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> {
    return this.own.query(sql, params, options);
  }

  /** One more connection for knex's pool: its own transactions, the same backend. */
  session(): PgliteSession {
    const proxy = this;
    const session: PgliteSession = {
      get waitReady() {
        return proxy.waitReady;
      },
      query: <T>(sql: string, params?: unknown[], options?: QueryOptions) => this.send<T>(session, sql, params, options),
    };
    return session;
  }

  private send<T>(session: PgliteSession, sql: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> {
    if (this.transactionOf && this.transactionOf !== session) {
      return new Promise((resolve) => this.held.push(() => resolve(this.send<T>(session, sql, params, options))));
    }
    const statement = sql.trim().toLowerCase();
    if (statement === 'begin;' && !this.transactionOf && !params?.length) {
      this.transactionOf = session;
      this.request({ sql }).catch(() => undefined); // a failure shows in the statements that follow
      return Promise.resolve(BEGUN as Results<T>);
    }
    const inTransaction = this.transactionOf === session;
    const answer = this.request({ sql, params, options, ...(inTransaction ? { inTransaction: true as const } : {}) }) as Promise<Results<T>>;
    // knex ends a transaction with exactly these (savepoints are `ROLLBACK TO SAVEPOINT ...`). The
    // thread runs what is sent after them after them: the held statements may go now, in order
    // (one of them may open the next transaction and hold the rest again).
    if (inTransaction && (statement === 'commit;' || statement === 'rollback')) {
      this.transactionOf = undefined;
      const held = this.held;
      this.held = [];
      for (const go of held) go();
    }
    return answer;
  }

  /**
   * Closes the cluster (it writes its last state to disk) and ends the thread. Idempotent. Until
   * then the thread keeps the process alive, as knex's pool (its reaping timer) does anyway.
   */
  async close(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.request({ close: true });
    } finally {
      this.stop(new Error('the embedded database is closed'));
      await this.worker.terminate();
    }
  }

  private request(message: Outgoing): Promise<unknown> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      try {
        this.worker.postMessage({ id, ...message });
      } catch (error) {
        // A binding structured clone cannot carry (a function, a class instance with private state).
        this.pending.delete(id);
        reject(error as Error);
      }
    });
  }

  private settle(reply: Extract<PgliteReply, { id: number }>): void {
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    if ('error' in reply) waiting.reject(rebuildError(reply.error));
    else waiting.resolve(reply.result);
  }

  private stop(reason: Error): void {
    if (this.stopped) return;
    this.stopped = reason;
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const { reject } of waiting) reject(reason);
    // Statements held behind a transaction that will never end: each now fails with the reason.
    this.transactionOf = undefined;
    const held = this.held;
    this.held = [];
    for (const go of held) go();
  }
}

/** An Error with PGlite's own name and PostgreSQL's fields, as knex and the service's code read them. */
function rebuildError({ name, message, fields }: SerializedError): Error {
  const error = new Error(message);
  error.name = name;
  return Object.assign(error, fields);
}

/**
 * The process's node options, for the thread (profiling, memory flags and loaders carry over),
 * without the ones about a program given as text: a thread started under `node
 * --input-type=module -e ...` would refuse its own entry file with ERR_INPUT_TYPE_NOT_ALLOWED.
 */
function threadExecArgv(execArgv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i]!;
    if (['--input-type', '-e', '--eval', '-p', '--print'].includes(arg)) i++; // and its value
    else if (!arg.startsWith('--input-type=') && !arg.startsWith('--eval=') && !arg.startsWith('--print=')) kept.push(arg);
  }
  return kept;
}
