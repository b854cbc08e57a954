/**
 * The in-process engine's time: what `ctx.now()` reads and what every timer (durable sleeps,
 * deadlines, retry back-off, start-to-close timeouts) waits on. Injected so tests move time
 * by hand instead of waiting for it.
 */
export interface Clock {
  now(): Date;
  /** Resolves once the clock reads `atMs` or later; rejects with `signal.reason` if it aborts first. */
  waitUntil(atMs: number, signal: AbortSignal): Promise<void>;
}

/** setTimeout caps a delay at 2^31-1 ms (~24.8 days): longer waits re-arm. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export const systemClock: Clock = {
  now: () => new Date(),
  waitUntil(atMs, signal) {
    return new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      let timer: NodeJS.Timeout | undefined;
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal.reason);
      };
      const arm = () => {
        const left = atMs - Date.now();
        if (left <= 0) {
          signal.removeEventListener('abort', onAbort);
          return resolve();
        }
        timer = setTimeout(arm, Math.min(left, MAX_TIMEOUT_MS));
        timer.unref(); // a pending timer never keeps the process alive: the run resumes after a restart
      };
      signal.addEventListener('abort', onAbort, { once: true });
      arm();
    });
  },
};
