import crypto from 'node:crypto';
import { commandContext, execute, readModelsCaughtUp, systemContext } from '../../core/es/commands.js';
import { runCommand, type Decider } from '../../core/es/decider.js';
import type { AppDeps } from '../../core/module/deps.js';
import { assertNever } from '../../core/es/events.js';
import type { Call, Principal } from '../../core/principal.js';
import { streamName } from '../../core/es/streams.js';
import { appSessionEvents, type AppSessionEvent } from './events.js';
import { findAppSessionByToken, findUser } from '../../../projections/accounts/index.js';
import { passwordEpoch } from './sessions.js';
import { checkCredentials } from './use-cases.js';

/**
 * The web app's server-side sessions (issue 36, docs/webapp.md "Sessions"). The browser holds
 * an opaque secret (32 random bytes); the service keeps only its SHA-256, in the session's
 * stream (`appsession-<uuid>`) and its read model (projections/accounts/sessions.ts). The secret
 * is no API credential: it is not a JWT and no authenticator of the REST door or /mcp knows it.
 * A session is usable while it is live (not signed out, not ended by a password change, the
 * user's removal or an operator), its user still belongs to its account under the password it
 * signed in with, and neither lifetime has run out: APP_SESSION_IDLE_SECONDS since its last
 * recorded use, APP_SESSION_ABSOLUTE_SECONDS since sign-in.
 */

export const appSessionStream = (sessionId: string) => streamName('appsession', sessionId);

/**
 * A session's use is recorded (AppSessionUsed) at most this often, as an API key's is: a page
 * view costs one indexed read, and an event only once a minute. Idle expiry is measured from the
 * recorded use, so a session may end up to this much before APP_SESSION_IDLE_SECONDS of real idleness.
 */
export const APP_SESSION_USE_RECORD_INTERVAL_MS = 60_000;

/** The cookie's secret: 32 random bytes, base64url. */
const SECRET = /^[A-Za-z0-9_-]{43}$/;
const newSecret = () => crypto.randomBytes(32).toString('base64url');
const secretSha256 = (secret: string) => crypto.createHash('sha256').update(secret).digest('hex');

export type AppSessionCommand =
  | { type: 'StartAppSession'; session_id: string; account_id: string; user_id: string; token_sha256: string; password_changed_at: string | null; now: Date }
  | { type: 'RecordAppSessionUse'; now: Date }
  | { type: 'SignOutAppSession'; now: Date };

export interface AppSessionState {
  status: 'none' | 'live' | 'signed_out';
  sessionId?: string;
  /** The last recorded use (ms), the sign-in's at first. */
  lastUsedAt?: number;
}

export const appSessionDecider: Decider<AppSessionState, AppSessionCommand, typeof appSessionEvents> = {
  catalogue: appSessionEvents,
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'AppSessionStarted':
        return { status: 'live', sessionId: event.data.session_id, lastUsedAt: Date.parse(event.data.started_at) };
      case 'AppSessionUsed':
        return { ...state, lastUsedAt: Date.parse(event.data.used_at) };
      case 'AppSessionSignedOut':
        return { ...state, status: 'signed_out' };
      default:
        return assertNever(event);
    }
  },
  decide(command, state): AppSessionEvent[] {
    switch (command.type) {
      case 'StartAppSession': {
        if (state.status !== 'none') return [];
        const { type: _type, now, ...started } = command;
        return [{ type: 'AppSessionStarted', data: { ...started, started_at: now.toISOString() } }];
      }
      case 'RecordAppSessionUse':
        if (state.status !== 'live' || command.now.getTime() - (state.lastUsedAt ?? 0) < APP_SESSION_USE_RECORD_INTERVAL_MS) return [];
        return [{ type: 'AppSessionUsed', data: { session_id: state.sessionId!, used_at: command.now.toISOString() } }];
      case 'SignOutAppSession':
        if (state.status !== 'live') return [];
        return [{ type: 'AppSessionSignedOut', data: { session_id: state.sessionId!, signed_out_at: command.now.toISOString() } }];
      default:
        return assertNever(command);
    }
  },
};

/** A usable session: who it acts as (the user's role read now), and its id (what the CSRF token is bound to). */
export interface AppSessionOf {
  principal: Principal;
  sessionId: string;
}

/**
 * Signs a user in to the web app: the same credential check and failed-attempt limit as
 * POST /v1/accounts/login (checkCredentials), then a new session. Returns the cookie's secret,
 * which is never stored.
 */
export async function startAppSession(deps: AppDeps, call: Call, credentials: { email: string; password: string }): Promise<{ secret: string; sessionId: string }> {
  const user = await checkCredentials(deps, call, credentials);
  const sessionId = crypto.randomUUID();
  const secret = newSecret();
  const context = commandContext(deps, call, { type: 'user', id: user.id, accountId: user.account_id });
  const changedAt = user.password_changed_at ? new Date(user.password_changed_at).toISOString() : null;
  await execute(
    deps,
    call,
    appSessionStream(sessionId),
    appSessionDecider,
    { type: 'StartAppSession', session_id: sessionId, account_id: user.account_id, user_id: user.id, token_sha256: secretSha256(secret), password_changed_at: changedAt, now: context.now },
    context,
  );
  return { secret, sessionId };
}

/** The session the cookie's secret names if it is usable now, else null (unknown, forged, ended, expired, its user gone or changed password). */
export async function resolveAppSession(deps: AppDeps, secret: string): Promise<AppSessionOf | null> {
  if (!SECRET.test(secret)) return null;
  const row = await findAppSessionByToken(deps.knex, secretSha256(secret));
  if (!row || row.ended_at) return null;
  const now = deps.now().getTime();
  const lastUsedAt = new Date(row.last_used_at).getTime();
  if (now >= new Date(row.started_at).getTime() + deps.config.APP_SESSION_ABSOLUTE_SECONDS * 1000) return null;
  if (now >= lastUsedAt + deps.config.APP_SESSION_IDLE_SECONDS * 1000) return null;
  // The user read now: removed (no row), moved, or under another password ends the session here
  // even before the projection has ended it; a role change applies at once.
  const user = await findUser(deps.knex, row.user_id);
  if (!user || user.account_id !== row.account_id || passwordEpoch(user) !== passwordEpoch(row)) return null;
  if (now - lastUsedAt >= APP_SESSION_USE_RECORD_INTERVAL_MS) await recordUse(deps, row.id, row.account_id, user.id);
  return { principal: { via: 'jwt', userId: user.id, accountId: user.account_id, role: user.role, scope: 'full' }, sessionId: row.id };
}

/** Usage is recorded at most once a minute, never failing the page (as an API key's use). */
async function recordUse(deps: AppDeps, sessionId: string, accountId: string, userId: string): Promise<void> {
  try {
    const context = systemContext(deps, { actor: { type: 'user', id: userId }, correlationId: sessionId, accountId });
    const outcome = await runCommand(deps.store, appSessionStream(sessionId), appSessionDecider, { type: 'RecordAppSessionUse', now: context.now }, context);
    // Waited for (once a minute): the next page measures idleness from this use.
    if (outcome.position !== null) await readModelsCaughtUp(deps, outcome.position);
  } catch (error) {
    deps.log.warn({ err: error, sessionId }, 'could not record a web app session’s use');
  }
}

/** Signs the session out (the sign-out form): it ends at once, for this browser and any copy of its cookie. */
export async function signOutAppSession(deps: AppDeps, call: Call, session: AppSessionOf): Promise<void> {
  const context = commandContext(deps, call, { type: 'user', id: session.principal.userId, accountId: session.principal.accountId });
  await execute(deps, call, appSessionStream(session.sessionId), appSessionDecider, { type: 'SignOutAppSession', now: context.now }, context);
}
