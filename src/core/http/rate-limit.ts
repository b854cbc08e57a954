import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { AppError } from '../errors.js';

/**
 * Fixed-window counters per key, kept in the database so that every service process sharing it
 * (several instances on one PostgreSQL) enforces one limit. Keys (addresses, e-mail addresses)
 * are stored only as SHA-256 hashes. Operational state, not history: no events, not a read model.
 */
export class RateLimiter {
  private hitsSinceSweep = 0;

  constructor(
    private readonly knex: Knex,
    private readonly name: string,
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Throws RATE_LIMIT_EXCEEDED when `key` has used up its window (counts nothing): a cheap early
   * refusal only. The limit itself is `take`'s, since a check and a later count race.
   */
  async check(key: string, what: string): Promise<void> {
    const row = await this.knex('rate_limits').where({ limiter: this.name, key_hash: hashKey(key) }).first();
    const start = row ? Number(row.window_start_ms) : 0;
    if (row && this.now() - start < this.windowMs && row.count >= this.limit) throw this.exceeded(start, what);
  }

  /** Counts one use of `key` and returns the count in the current window. */
  async hit(key: string): Promise<{ count: number; windowStart: number }> {
    const now = this.now();
    // One statement: concurrent hits from any process are counted exactly.
    const [row] = await this.knex
      .insert({ limiter: this.name, key_hash: hashKey(key), window_start_ms: now, count: 1 })
      .into('rate_limits')
      .onConflict(['limiter', 'key_hash'])
      .merge({
        count: this.knex.raw('case when rate_limits.window_start_ms <= ? then 1 else rate_limits.count + 1 end', [now - this.windowMs]),
        window_start_ms: this.knex.raw('case when rate_limits.window_start_ms <= ? then ? else rate_limits.window_start_ms end', [now - this.windowMs, now]),
      })
      .returning(['count', 'window_start_ms']);
    if (++this.hitsSinceSweep >= 1000) {
      this.hitsSinceSweep = 0;
      await this.knex('rate_limits').where({ limiter: this.name }).andWhere('window_start_ms', '<=', now - this.windowMs).delete();
    }
    return { count: Number(row.count), windowStart: Number(row.window_start_ms) };
  }

  /**
   * Counts one use and throws RATE_LIMIT_EXCEEDED if it went over the limit. The count and the
   * verdict are one statement, so it is also how an attempt is reserved before it is tried
   * (a login counts before the password is checked): concurrent attempts, from this process or
   * another, cannot all pass a check made before any of them was counted.
   */
  async take(key: string, what: string): Promise<void> {
    const { count, windowStart } = await this.hit(key);
    if (count > this.limit) throw this.exceeded(windowStart, what);
  }

  /** Forgets `key`'s uses (a login that succeeded clears its failures and its own reservation). */
  async reset(key: string): Promise<void> {
    await this.knex('rate_limits').where({ limiter: this.name, key_hash: hashKey(key) }).delete();
  }

  private exceeded(windowStart: number, what: string): AppError {
    const retryAfter = Math.max(1, Math.ceil((windowStart + this.windowMs - this.now()) / 1000));
    return new AppError('RATE_LIMIT_EXCEEDED', `Too many ${what}. Try again in ${retryAfter} s.`, {
      suggestion: `Wait ${retryAfter} seconds before retrying.`,
      details: { retry_after_seconds: retryAfter },
    });
  }
}

const hashKey = (key: string) => crypto.createHash('sha256').update(key).digest('hex');

export async function migrateRateLimits(knex: Knex): Promise<void> {
  await knex.raw(`
    create table if not exists rate_limits (
      limiter text not null,
      key_hash text not null,
      window_start_ms bigint not null,
      count integer not null,
      primary key (limiter, key_hash)
    )`);
}
