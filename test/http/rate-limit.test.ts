import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateRateLimits, RateLimiter } from '../../src/core/http/rate-limit.js';
import { AppError } from '../../src/core/errors.js';
import type { Database } from '../../src/adapters/db/database.js';
import { databaseTargets } from '../support/databases.js';
import { registerAccount, type CallResult } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';

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

for (const target of databaseTargets) {
  describe(`the login limit under concurrent attempts, on ${target.name}`, { timeout: 180_000 }, () => {
    const { call } = serviceSuite(target, { LOGIN_RATE_LIMIT_PER_15_MIN: '20' });

    const login = (email: string, password: string) => call('POST', '/v1/accounts/login', { json: { email, password } });
    const expectLimited = (res: CallResult) => {
      expect([res.status, res.body.detail.error_code]).toEqual([429, 'RATE_LIMIT_EXCEEDED']);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    };

    it('gives 30 concurrent wrong passwords at most 20 tries; the rest are 429 with Retry-After', async () => {
      const { email } = await registerAccount(call);
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => login(email, `wrong guess ${i}`)));
      const tried = answers.filter((res) => res.status === 401);
      const limited = answers.filter((res) => res.status === 429);
      expect(tried.length).toBeLessThanOrEqual(20);
      expect(tried.length + limited.length).toBe(30);
      limited.forEach(expectLimited);
    });

    it('refuses the right password sent while a burst of 25 wrong ones is being tried', async () => {
      const { email, password } = await registerAccount(call);
      const burst = Array.from({ length: 25 }, (_, i) => login(email, `wrong guess ${i}`));
      // Sent as soon as the burst has a first answer, while the rest of it is still being checked.
      await Promise.race(burst);
      const right = await login(email, password);
      const answers = await Promise.all(burst);
      expectLimited(right);
      expect(answers.filter((res) => res.status === 401).length).toBeLessThanOrEqual(20);
    });

    it('still lets the right password in below the limit, and a success clears the failures', async () => {
      const { email, password } = await registerAccount(call);
      await Promise.all(Array.from({ length: 15 }, (_, i) => login(email, `wrong guess ${i}`)));
      expect((await login(email, password)).status).toBe(200);
      const again = await Promise.all(Array.from({ length: 20 }, (_, i) => login(email, `wrong again ${i}`)));
      expect(again.map((res) => res.status)).toEqual(Array(20).fill(401));
      expectLimited(await login(email, password));
    });

    it('limits concurrent wrong current passwords on the password change the same way', async () => {
      const admin = await registerAccount(call);
      const change = (current: string) => call('PUT', '/v1/accounts/me/password', { token: admin.token, json: { current_password: current, new_password: 'long enough new one' } });
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => change(`guess ${i}`)));
      expect(answers.filter((res) => res.status === 403).length).toBeLessThanOrEqual(20);
      answers.filter((res) => res.status !== 403).forEach(expectLimited);
      expectLimited(await change(admin.password));
    });
  });
}
