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
    /** Password reset requests per e-mail address and client (password-reset.ts). */
    passwordResetLimiter: RateLimiter;
    /** Password reset requests per client, whatever the address. */
    clientResetLimiter: RateLimiter;
    /** Hash checked when a login names an unknown user, so timing does not reveal which e-mails exist. */
    decoyPasswordHash: Promise<string>;
  }
}

/** Reset links one client may ask for one address in an hour, and for any addresses. */
export const PASSWORD_RESETS_PER_HOUR = 5;
export const CLIENT_RESETS_PER_HOUR = 20;

/** Built once at start (the accounts module's `dependencies`). */
export const accountDependencies = ({ config, knex }: DependencyBase) => ({
  jwtSecret: configuredOrPersistedSecret(config.JWT_SECRET, config.DATA_DIR, 'jwt-secret'),
  loginLimiter: new RateLimiter(knex, 'login', config.LOGIN_RATE_LIMIT_PER_15_MIN, 15 * 60_000),
  // Few honest users ask for more than a handful of links an hour; each request may send a mail.
  passwordResetLimiter: new RateLimiter(knex, 'password-reset', PASSWORD_RESETS_PER_HOUR, 60 * 60_000),
  clientResetLimiter: new RateLimiter(knex, 'password-reset-client', CLIENT_RESETS_PER_HOUR, 60 * 60_000),
  // Hashed in the background from the start: the first login with an unknown e-mail waits for it at most.
  decoyPasswordHash: decoyHash(config.PASSWORD_HASH_COST),
});
