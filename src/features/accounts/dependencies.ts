import type { DependencyBase } from '../../core/module/deps.js';
import { RateLimiter } from '../../core/http/rate-limit.js';
import { configuredOrPersistedSecret } from '../../core/secrets.js';
import { decoyHash } from './passwords.js';

declare module '../../core/module/deps.js' {
  interface FeatureDeps {
    /** Signs and checks session tokens (sessions.ts): configured, or made once and kept in the data directory. */
    jwtSecret: Uint8Array;
    /** Failed logins and password checks per e-mail address and client address. */
    loginLimiter: RateLimiter;
    /** Hash checked when a login names an unknown user, so timing does not reveal which e-mails exist. */
    decoyPasswordHash: Promise<string>;
  }
}

/** Built once at start (the accounts module's `dependencies`). */
export const accountDependencies = ({ config, knex }: DependencyBase) => ({
  jwtSecret: configuredOrPersistedSecret(config.JWT_SECRET, config.DATA_DIR, 'jwt-secret'),
  loginLimiter: new RateLimiter(knex, 'login', config.LOGIN_RATE_LIMIT_PER_15_MIN, 15 * 60_000),
  // Hashed in the background from the start: the first login with an unknown e-mail waits for it at most.
  decoyPasswordHash: decoyHash(config.PASSWORD_HASH_COST),
});
