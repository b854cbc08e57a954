import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { AppDeps } from '../../core/module/deps.js';
import { AuthenticationError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import type { UserRole } from './events.js';
import { findUser } from '../../../projections/accounts/index.js';

/** Session tokens (JWT, HS256) from POST /v1/accounts/login, and the principal they name. */
const ISSUER = 'photoverify';
const AUDIENCE = 'photoverify-api';

interface TokenSubject {
  id: string;
  account_id: string;
  role: UserRole;
  password_changed_at: Date | string | null;
}

/**
 * Which password a token was issued under: when it was last changed (ms), 0 if never. A token
 * whose value differs was issued before a change and is refused (D-039); a web app session
 * started under another epoch likewise (app-sessions.ts).
 */
export const passwordEpoch = (user: Pick<TokenSubject, 'password_changed_at'>): number => (user.password_changed_at ? new Date(user.password_changed_at).getTime() : 0);

export async function issueAccessToken(deps: AppDeps, user: TokenSubject) {
  const issuedAt = Math.floor(deps.now().getTime() / 1000);
  const expiresAt = issuedAt + deps.config.JWT_TTL_SECONDS;
  const token = await new SignJWT({ acc: user.account_id, role: user.role, pwd: passwordEpoch(user) })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(user.id)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt)
    .sign(deps.jwtSecret);
  return { token, expiresAt: new Date(expiresAt * 1000) };
}

export async function principalFromJwt(deps: AppDeps, token: string): Promise<Principal> {
  return (await resolveJwt(deps, token)).principal;
}

/** The principal and when the token expires (callers that keep the principal keep it no longer). */
export async function resolveJwt(deps: AppDeps, token: string): Promise<{ principal: Principal; expiresAt: Date }> {
  let subject: string | undefined;
  let epoch: unknown;
  let expiresAt: Date;
  try {
    // Expiry against the service's clock, the one the token was issued on (not the host's).
    const { payload } = await jwtVerify(token, deps.jwtSecret, { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'], requiredClaims: ['exp'], currentDate: deps.now() });
    subject = payload.sub;
    epoch = payload.pwd ?? 0;
    expiresAt = new Date(payload.exp! * 1000);
  } catch (error) {
    const expired = error instanceof joseErrors.JWTExpired;
    throw new AuthenticationError('INVALID_TOKEN', expired ? 'The access token has expired.' : 'The access token is not valid.', {
      suggestion: 'Log in again with POST /v1/accounts/login.',
    });
  }
  // The token names the user; the account and role are read fresh so changes apply at once.
  const user = subject ? await findUser(deps.knex, subject) : undefined;
  if (!user) throw new AuthenticationError('INVALID_TOKEN', 'The access token names no existing user.', { suggestion: 'Log in again.' });
  if (epoch !== passwordEpoch(user)) {
    throw new AuthenticationError('INVALID_TOKEN', 'The password was changed after this access token was issued.', { suggestion: 'Log in again with the new password.' });
  }
  return { principal: { via: 'jwt', userId: user.id, accountId: user.account_id, role: user.role, scope: 'full' }, expiresAt };
}
