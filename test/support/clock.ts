import type { Clock } from '../../src/adapters/workflows/clock.js';

/**
 * Settings for a suite that moves its clock by days while its accounts stay logged in: access
 * tokens and web app sessions expire on the service's clock (as they must), so a session outlives the suite's moves.
 * serviceSuite applies them to every suite that passes a `clock`; a suite that moves time
 * another way (replacing `deps.now`, or starting its service with startTestService) names them.
 */
export const SESSIONS_OUTLIVE_CLOCK: Record<string, string> = {
  JWT_TTL_SECONDS: String(400 * 86_400),
  // The web app's sessions (issue 36) end idle or at their absolute lifetime, on the same clock.
  APP_SESSION_IDLE_SECONDS: String(400 * 86_400),
  APP_SESSION_ABSOLUTE_SECONDS: String(400 * 86_400),
};

/**
 * The real clock plus an offset a test moves forward: time keeps passing (retry back-offs,
 * timeouts and polls behave as in production) and an expiry an hour away is one `advance` off.
 * Timers waiting on it fire when real time or an advance reaches them.
 */
export class SkewedClock implements Clock {
  private offsetMs = 0;
  private readonly waiters = new Set<{ at: number; fire: () => void; arm: () => void }>();

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  waitUntil(atMs: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      let timer: NodeJS.Timeout | undefined;
      const waiter = {
        at: atMs,
        fire: () => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
        arm: () => {
          clearTimeout(timer);
          const left = atMs - this.now().getTime();
          if (left <= 0) return waiter.fire();
          timer = setTimeout(waiter.arm, Math.min(left, 2 ** 31 - 1));
          timer.unref();
        },
      };
      const onAbort = () => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.add(waiter);
      waiter.arm();
    });
  }

  /** Moves time forward by `ms`, waking every timer due by then. */
  advance(ms: number): void {
    this.offsetMs += ms;
    for (const waiter of [...this.waiters]) waiter.arm();
  }
}
