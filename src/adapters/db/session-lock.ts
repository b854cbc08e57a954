/**
 * PostgreSQL session advisory locks on a connection of their own (issue 26). A session lock lives
 * as long as its connection: it is released when the holder releases it, closes, or dies (a
 * SIGKILLed process's connection is closed by the server), so a lock can never outlive its
 * holder. The pool's connections come and go, hence one dedicated client per lock.
 */
import pg from 'pg';

/** Every process of a deployment migrates its schema under this lock, one after the other. */
export const MIGRATION_LOCK = 7_316_042;
/** Held by the one process that runs the in-process workflow engine on a database. */
export const INPROCESS_ENGINE_LOCK = 7_316_043;

export interface SessionLock {
  /** The connection holding the lock (LISTEN on it: a notification then reaches the holder). */
  readonly client: pg.Client;
  /** Called once if the connection (and with it the lock) is lost. */
  onLost(listener: (error: Error) => void): void;
  release(): Promise<void>;
}

/** Takes the lock, waiting for it when `wait`, else at once or not at all (null: another session holds it). */
export async function sessionLock(url: string, key: number, options: { wait: boolean }): Promise<SessionLock | null> {
  const client = new pg.Client({ connectionString: url });
  let lost: ((error: Error) => void) | undefined;
  let released = false;
  const loseOnce = (error: Error) => {
    if (released) return;
    released = true;
    lost?.(error);
  };
  client.on('error', loseOnce);
  client.on('end', () => loseOnce(new Error('the connection holding the lock closed')));
  await client.connect();
  try {
    if (options.wait) {
      await client.query('select pg_advisory_lock($1)', [key]);
    } else {
      const { rows } = await client.query<{ locked: boolean }>('select pg_try_advisory_lock($1) as locked', [key]);
      if (!rows[0]?.locked) {
        released = true;
        await client.end();
        return null;
      }
    }
  } catch (error) {
    released = true;
    await client.end().catch(() => undefined);
    throw error;
  }
  return {
    client,
    onLost: (listener) => void (lost = listener),
    async release() {
      if (released) return;
      released = true;
      // Closing the session releases the lock (and any LISTEN) with it.
      await client.end().catch(() => undefined);
    },
  };
}
