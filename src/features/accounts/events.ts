import { z } from 'zod';
import { defineEvent, type EventOf } from '../../core/es/events.js';
import { userRoles } from '../../core/principal.js';

export const plans = ['free', 'basic', 'professional', 'enterprise'] as const;
export type Plan = (typeof plans)[number];
/** Plans an account admin may choose; Enterprise terms are set by contract, by an operator. */
export const selfServicePlans = ['free', 'basic', 'professional'] as const;
export { userRoles, type UserRole } from '../../core/principal.js';

/** An account's settings, as it is registered with them and as each change leaves them. */
const accountSettings = {
  plan: z.enum(plans),
  billing_country: z.string().length(2),
  monthly_budget_cap_eur: z.number().nonnegative().nullable(),
};
/** Who a new user of the account is, added with a password or invited. */
const newUser = { account_id: z.uuid(), user_id: z.uuid(), email: z.string(), name: z.string(), role: z.enum(userRoles) };

export const accountEvents = {
  AccountRegistered: defineEvent(
    'AccountRegistered',
    z.object({ account_id: z.uuid(), name: z.string(), ...accountSettings, registered_at: z.iso.datetime() }),
  ),
  /** Carries the settings as they stand after the change, so a reader needs no earlier event. */
  AccountSettingsChanged: defineEvent(
    'AccountSettingsChanged',
    z.object({ account_id: z.uuid(), ...accountSettings, changed_at: z.iso.datetime() }),
  ),
  UserAdded: defineEvent(
    'UserAdded',
    z.object({ ...newUser, password_hash: z.string(), added_at: z.iso.datetime() }),
    { redact: ['password_hash'] },
  ),
  /** A user the admin invited by e-mail: no password until they accept with the mailed link (D-039). */
  UserInvited: defineEvent(
    'UserInvited',
    z.object({
      ...newUser,
      /** SHA-256 of the link's token: the read model finds the invitation by it; the token itself is only in the mail. */
      token_sha256: z.string().regex(/^[0-9a-f]{64}$/),
      expires_at: z.iso.datetime(),
      invited_at: z.iso.datetime(),
    }),
    { redact: ['token_sha256'] },
  ),
  InvitationAccepted: defineEvent(
    'InvitationAccepted',
    z.object({ account_id: z.uuid(), user_id: z.uuid(), password_hash: z.string(), accepted_at: z.iso.datetime() }),
    { redact: ['password_hash'] },
  ),
  UserRoleChanged: defineEvent(
    'UserRoleChanged',
    z.object({ account_id: z.uuid(), user_id: z.uuid(), from: z.enum(userRoles), to: z.enum(userRoles), changed_at: z.iso.datetime() }),
  ),
  /**
   * The user asked for a password reset by e-mail (issue 39): a link whose token's SHA-256 is kept
   * here; it works once, until `expires_at`, and only the latest one requested. Using it records
   * PasswordChanged, which ends every session of the user as any password change does.
   */
  PasswordResetRequested: defineEvent(
    'PasswordResetRequested',
    z.object({
      account_id: z.uuid(),
      user_id: z.uuid(),
      token_sha256: z.string().regex(/^[0-9a-f]{64}$/),
      expires_at: z.iso.datetime(),
      requested_at: z.iso.datetime(),
    }),
    { redact: ['token_sha256'] },
  ),
  /** The user replaced their password; sessions issued before it stop working (D-039). */
  PasswordChanged: defineEvent(
    'PasswordChanged',
    z.object({ account_id: z.uuid(), user_id: z.uuid(), password_hash: z.string(), changed_at: z.iso.datetime() }),
    { redact: ['password_hash'] },
  ),
  /**
   * An operator ended the user's web app sessions (the sessions projection ends every one the
   * user holds at this point of the log; issue 36). Passwords, API keys and the user stay.
   */
  UserSessionsEnded: defineEvent(
    'UserSessionsEnded',
    z.object({ account_id: z.uuid(), user_id: z.uuid(), by: z.literal('operator'), ended_at: z.iso.datetime() }),
  ),
  /** The user leaves the account: their sessions and API keys stop working at once (D-036). */
  UserRemoved: defineEvent(
    'UserRemoved',
    z.object({ account_id: z.uuid(), user_id: z.uuid(), email: z.string(), removed_at: z.iso.datetime() }),
  ),
} as const;
export type AccountEvent = EventOf<typeof accountEvents>;

/**
 * One stream per e-mail address: a claim for a user, and its release when that user is removed,
 * so the address can be used again (claimed, released, claimed...; never two live claims).
 */
export const emailClaimEvents = {
  EmailClaimed: defineEvent(
    'EmailClaimed',
    z.object({ email: z.string(), user_id: z.uuid(), account_id: z.uuid() }),
  ),
  EmailReleased: defineEvent('EmailReleased', z.object({ email: z.string(), user_id: z.uuid(), released_at: z.iso.datetime() })),
} as const;
export type EmailClaimEvent = EventOf<typeof emailClaimEvents>;

/**
 * A web app (browser) session, one stream each (`appsession-<uuid>`, issue 36): the sign-in, its
 * use (recorded at most once a minute, as an API key's is), and the sign-out. The cookie's secret
 * is never recorded, only its SHA-256. A password change, the user's removal and an operator's
 * UserSessionsEnded end sessions too: the sessions projection folds those account events.
 */
export const appSessionEvents = {
  AppSessionStarted: defineEvent(
    'AppSessionStarted',
    z.object({
      session_id: z.uuid(),
      account_id: z.uuid(),
      user_id: z.uuid(),
      /** SHA-256 (hex) of the cookie's secret: the read model finds the session by it. */
      token_sha256: z.string().regex(/^[0-9a-f]{64}$/),
      /** When the user's password was last changed as the sign-in saw it (null: never): a later change ends the session. */
      password_changed_at: z.iso.datetime().nullable(),
      started_at: z.iso.datetime(),
    }),
    { redact: ['token_sha256'] },
  ),
  AppSessionUsed: defineEvent('AppSessionUsed', z.object({ session_id: z.uuid(), used_at: z.iso.datetime() })),
  AppSessionSignedOut: defineEvent('AppSessionSignedOut', z.object({ session_id: z.uuid(), signed_out_at: z.iso.datetime() })),
} as const;
export type AppSessionEvent = EventOf<typeof appSessionEvents>;
