import { AppError } from '../errors.js';

/**
 * Fixed-window counter per key, in memory. Good for one process; behind a load balancer
 * each instance limits on its own (documented in docs/decisions.md).
 */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws RATE_LIMIT_EXCEEDED when `key` has used up its window. */
  check(key: string, what: string): void {
    const window = this.current(key);
    if (window.count >= this.limit) {
      const retryAfter = Math.ceil((window.start + this.windowMs - this.now()) / 1000);
      throw new AppError('RATE_LIMIT_EXCEEDED', `Too many ${what}. Try again in ${retryAfter} s.`, {
        suggestion: `Wait ${retryAfter} seconds before retrying.`,
        details: { retry_after_seconds: retryAfter },
      });
    }
  }

  hit(key: string): void {
    this.current(key).count += 1;
  }

  reset(key: string): void {
    this.windows.delete(key);
  }

  private current(key: string): { start: number; count: number } {
    const now = this.now();
    let window = this.windows.get(key);
    if (!window || now - window.start >= this.windowMs) {
      window = { start: now, count: 0 };
      this.windows.set(key, window);
      if (this.windows.size > 10_000) this.sweep(now);
    }
    return window;
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (now - window.start >= this.windowMs) this.windows.delete(key);
  }
}
