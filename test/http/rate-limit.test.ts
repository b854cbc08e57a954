import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateRateLimits, RateLimiter } from '../../src/core/rate-limit.js';
import { AppError } from '../../src/core/errors.js';
import type { Database } from '../../src/adapters/db/database.js';
import { databaseTargets } from '../support/databases.js';

const refusal = async (work: Promise<unknown>) => {
  const error = await work.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
};

for (const target of databaseTargets) {
  describe(`rate limits kept in the database, on ${target.name}`, () => {
    let db: Database;
    beforeAll(async () => {
      db = await target.open();
      await migrateRateLimits(db.knex);
    });
    afterAll(async () => db?.close());

    it('is one limit for every process sharing the database', async () => {
      // Two instances stand for two service processes.
      const a = new RateLimiter(db.knex, 'shared', 3, 60_000);
      const b = new RateLimiter(db.knex, 'shared', 3, 60_000);
      await a.take('203.0.113.7', 'uploads');
      await b.take('203.0.113.7', 'uploads');
      await a.take('203.0.113.7', 'uploads');
      const refused = await refusal(b.take('203.0.113.7', 'uploads'));
      expect(refused.code).toBe('RATE_LIMIT_EXCEEDED');
      expect(refused.details).toMatchObject({ retry_after_seconds: 60 });
      // Another key and another limiter are counted apart.
      await b.take('203.0.113.8', 'uploads');
      await new RateLimiter(db.knex, 'other', 3, 60_000).take('203.0.113.7', 'uploads');
    });

    it('counts concurrent uses exactly', async () => {
      const limiter = new RateLimiter(db.knex, 'concurrent', 5, 60_000);
      const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => limiter.take('burst', 'uploads')));
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(5);
    });

    it('opens a new window when the old one has passed; check counts nothing; reset clears', async () => {
      let now = 1_000_000;
      const limiter = new RateLimiter(db.knex, 'window', 2, 10_000, () => now);
      await limiter.hit('k');
      await limiter.hit('k');
      await limiter.check('other', 'attempts');
      expect((await refusal(limiter.check('k', 'attempts'))).details).toMatchObject({ retry_after_seconds: 10 });
      now += 10_000;
      await limiter.check('k', 'attempts');
      expect(await limiter.hit('k')).toEqual({ count: 1, windowStart: now });
      await limiter.hit('k');
      await limiter.reset('k');
      await limiter.check('k', 'attempts');
    });

    it('stores keys only as hashes', async () => {
      await new RateLimiter(db.knex, 'login', 5, 60_000).hit('chief@presse.example|198.51.100.4');
      const rows = await db.knex('rate_limits').where({ limiter: 'login' });
      expect(rows).toHaveLength(1);
      expect(JSON.stringify(rows)).not.toMatch(/presse|198\.51/);
    });
  });
}
