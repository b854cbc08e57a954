import crypto from 'node:crypto';
import { AccessDeniedError, AppError, ConflictError, NotFoundError } from '../../core/errors.js';
import type { Decider } from '../../core/es/decider.js';
import { assertNever } from '../../core/es/events.js';
import { accountEvents, emailClaimEvents, type AccountEvent, type EmailClaimEvent, type Plan, type UserRole } from './events.js';
import { streamName } from '../../core/es/streams.js';
import { sameHash } from '../../core/secrets.js';

export const accountStream = (accountId: string) => streamName('account', accountId);
export const emailClaimStream = (email: string) => streamName('email', crypto.createHash('sha256').update(normaliseEmail(email)).digest('hex').slice(0, 40));
export const normaliseEmail = (email: string) => email.trim().toLowerCase();

interface NewUser {
  user_id: string;
  email: string;
  name: string;
  role: UserRole;
  password_hash: string;
}

export type AccountCommand =
  | {
      type: 'RegisterAccount';
      account_id: string;
      name: string;
      plan: Plan;
      billing_country: string;
      monthly_budget_cap_eur: number | null;
      admin: Omit<NewUser, 'role'>;
      now: Date;
    }
  | { type: 'AddUser'; by_user_id: string; user: NewUser; now: Date }
  | { type: 'InviteUser'; by_user_id: string; user: Omit<NewUser, 'password_hash'>; token_sha256: string; expires_at: Date; now: Date }
  /** Whoever holds the mailed link; the use case found the user by the token's hash. */
  | { type: 'AcceptInvitation'; user_id: string; token_sha256: string; password_hash: string; now: Date }
  | { type: 'ChangeUserRole'; by_user_id: string; user_id: string; role: UserRole; now: Date }
  | { type: 'RemoveUser'; by_user_id: string; user_id: string; now: Date }
  /** The user's own change; the use case has checked the current password. */
  | { type: 'ChangePassword'; user_id: string; password_hash: string; now: Date }
  /** Anyone who knows the user's address (the use case found the user by it): a mailed link. */
  | { type: 'RequestPasswordReset'; user_id: string; token_sha256: string; expires_at: Date; now: Date }
  /** Whoever holds the mailed reset link; the token names the user. */
  | { type: 'ResetPassword'; user_id: string; token_sha256: string; password_hash: string; now: Date }
  /** The operator's (accounts:end-sessions): ends the user's web app sessions, nothing else. */
  | { type: 'EndUserSessions'; user_id: string; now: Date }
  | {
      type: 'ChangeSettings';
      /** An account admin, or the operator (who alone may grant or end Enterprise terms). */
      by: { user_id: string } | 'operator';
      changes: Partial<AccountSettings>;
      now: Date;
    };

export interface AccountSettings {
  plan: Plan;
  billing_country: string;
  monthly_budget_cap_eur: number | null;
}

export interface AccountState {
  exists: boolean;
  accountId?: string;
  settings?: AccountSettings;
  users: Map<string, AccountUser>;
  /** Users removed from the account, with the address they held (a removal's tidy-up needs it). */
  removed: Map<string, string>;
}

interface AccountUser {
  email: string;
  role: UserRole;
  /** An invitation not accepted yet: the user cannot log in. */
  invitation?: { tokenSha256: string; expiresAt: string };
  /** The latest password reset link not used yet (a new request replaces it; a password change ends it). */
  passwordReset?: { tokenSha256: string; expiresAt: string };
}

export const accountDecider: Decider<AccountState, AccountCommand, typeof accountEvents> = {
  catalogue: accountEvents,
  initialState: () => ({ exists: false, users: new Map(), removed: new Map() }),
  evolve(state, event) {
    switch (event.type) {
      case 'AccountRegistered':
      case 'AccountSettingsChanged': {
        const { plan, billing_country, monthly_budget_cap_eur } = event.data;
        return { ...state, exists: true, accountId: event.data.account_id, settings: { plan, billing_country, monthly_budget_cap_eur } };
      }
      case 'UserAdded': {
        const users = new Map(state.users);
        users.set(event.data.user_id, { email: event.data.email, role: event.data.role });
        return { ...state, users };
      }
      case 'UserInvited': {
        const users = new Map(state.users);
        const d = event.data;
        users.set(d.user_id, { email: d.email, role: d.role, invitation: { tokenSha256: d.token_sha256, expiresAt: d.expires_at } });
        return { ...state, users };
      }
      case 'InvitationAccepted': {
        const users = new Map(state.users);
        const user = users.get(event.data.user_id);
        if (user) users.set(event.data.user_id, { email: user.email, role: user.role });
        return { ...state, users };
      }
      case 'UserRoleChanged': {
        const users = new Map(state.users);
        const user = users.get(event.data.user_id);
        if (user) users.set(event.data.user_id, { ...user, role: event.data.to });
        return { ...state, users };
      }
      case 'UserRemoved': {
        const users = new Map(state.users);
        users.delete(event.data.user_id);
        return { ...state, users, removed: new Map(state.removed).set(event.data.user_id, event.data.email) };
      }
      case 'PasswordResetRequested': {
        const user = state.users.get(event.data.user_id);
        if (!user) return state;
        const users = new Map(state.users).set(event.data.user_id, { ...user, passwordReset: { tokenSha256: event.data.token_sha256, expiresAt: event.data.expires_at } });
        return { ...state, users };
      }
      case 'PasswordChanged': {
        // Any change of the password (a reset's, or the user's own) leaves no reset link standing.
        const user = state.users.get(event.data.user_id);
        if (!user?.passwordReset) return state;
        const users = new Map(state.users).set(event.data.user_id, { email: user.email, role: user.role, ...(user.invitation ? { invitation: user.invitation } : {}) });
        return { ...state, users };
      }
      case 'UserSessionsEnded':
        return state;
      default:
        return assertNever(event);
    }
  },
  decide(command, state): AccountEvent[] {
    switch (command.type) {
      case 'RegisterAccount': {
        if (state.exists) throw new AppError('CONFLICT', 'This account already exists.');
        const at = command.now.toISOString();
        return [
          {
            type: 'AccountRegistered',
            data: {
              account_id: command.account_id,
              name: command.name,
              plan: command.plan,
              billing_country: command.billing_country,
              monthly_budget_cap_eur: command.monthly_budget_cap_eur,
              registered_at: at,
            },
          },
          { type: 'UserAdded', data: { account_id: command.account_id, ...command.admin, role: 'admin', added_at: at } },
        ];
      }
      case 'AddUser': {
        if (!state.exists || !state.accountId) throw new NotFoundError('ACCOUNT_NOT_FOUND', 'Account not found.');
        if (state.users.get(command.by_user_id)?.role !== 'admin') {
          throw new AccessDeniedError('Only an admin of the account can add users.');
        }
        if (state.users.has(command.user.user_id)) return [];
        return [{ type: 'UserAdded', data: { account_id: state.accountId, ...command.user, added_at: command.now.toISOString() } }];
      }
      case 'InviteUser': {
        if (!state.exists || !state.accountId) throw new NotFoundError('ACCOUNT_NOT_FOUND', 'Account not found.');
        if (state.users.get(command.by_user_id)?.role !== 'admin') throw new AccessDeniedError('Only an admin of the account can add users.');
        if (state.users.has(command.user.user_id)) return [];
        return [
          {
            type: 'UserInvited',
            data: {
              account_id: state.accountId,
              ...command.user,
              token_sha256: command.token_sha256,
              expires_at: command.expires_at.toISOString(),
              invited_at: command.now.toISOString(),
            },
          },
        ];
      }
      case 'AcceptInvitation': {
        const invitation = state.accountId ? state.users.get(command.user_id)?.invitation : undefined;
        if (!invitation || invitation.tokenSha256 !== command.token_sha256) throw invitationNotFound();
        if (command.now.getTime() >= new Date(invitation.expiresAt).getTime()) {
          throw new AppError('INVITATION_EXPIRED', 'This invitation has expired.', { suggestion: 'Ask an admin of the account to invite you again.' });
        }
        return [{ type: 'InvitationAccepted', data: { account_id: state.accountId!, user_id: command.user_id, password_hash: command.password_hash, accepted_at: command.now.toISOString() } }];
      }
      case 'ChangeUserRole': {
        const { accountId, user } = managedUser(state, command, 'change roles');
        if (user.role === command.role) return [];
        if (user.role === 'admin') assertAnotherAdmin(state, command.user_id, 'stop being an admin');
        return [{ type: 'UserRoleChanged', data: { account_id: accountId, user_id: command.user_id, from: user.role, to: command.role, changed_at: command.now.toISOString() } }];
      }
      case 'RemoveUser': {
        const { accountId, user } = managedUser(state, command, 'remove users');
        if (user.role === 'admin') assertAnotherAdmin(state, command.user_id, 'be removed');
        return [{ type: 'UserRemoved', data: { account_id: accountId, user_id: command.user_id, email: user.email, removed_at: command.now.toISOString() } }];
      }
      case 'ChangePassword': {
        if (!state.exists || !state.accountId) throw new NotFoundError('ACCOUNT_NOT_FOUND', 'Account not found.');
        if (!state.users.has(command.user_id)) throw new NotFoundError('USER_NOT_FOUND', 'No such user in this account.');
        return [{ type: 'PasswordChanged', data: { account_id: state.accountId, user_id: command.user_id, password_hash: command.password_hash, changed_at: command.now.toISOString() } }];
      }
      case 'RequestPasswordReset': {
        const user = state.accountId ? state.users.get(command.user_id) : undefined;
        // A user still to accept their invitation has no password to reset: the invitation is their link.
        if (!user || user.invitation) return [];
        return [
          {
            type: 'PasswordResetRequested',
            data: { account_id: state.accountId!, user_id: command.user_id, token_sha256: command.token_sha256, expires_at: command.expires_at.toISOString(), requested_at: command.now.toISOString() },
          },
        ];
      }
      case 'ResetPassword': {
        const reset = state.accountId ? state.users.get(command.user_id)?.passwordReset : undefined;
        if (!reset || !sameHash(reset.tokenSha256, command.token_sha256)) throw resetLinkNotFound();
        if (command.now.getTime() >= new Date(reset.expiresAt).getTime()) {
          throw new AppError('RESET_LINK_EXPIRED', 'This password reset link has expired.', { suggestion: 'Ask for a new link on the sign-in page (Forgot your password?).' });
        }
        return [{ type: 'PasswordChanged', data: { account_id: state.accountId!, user_id: command.user_id, password_hash: command.password_hash, changed_at: command.now.toISOString() } }];
      }
      case 'EndUserSessions': {
        if (!state.exists || !state.accountId) throw new NotFoundError('ACCOUNT_NOT_FOUND', 'Account not found.');
        if (!state.users.has(command.user_id)) throw new NotFoundError('USER_NOT_FOUND', 'No such user in this account.');
        return [{ type: 'UserSessionsEnded', data: { account_id: state.accountId, user_id: command.user_id, by: 'operator', ended_at: command.now.toISOString() } }];
      }
      case 'ChangeSettings': {
        if (!state.exists || !state.accountId || !state.settings) throw new NotFoundError('ACCOUNT_NOT_FOUND', 'Account not found.');
        const current = state.settings;
        const next = { ...current, ...command.changes };
        if (command.by !== 'operator') {
          if (state.users.get(command.by.user_id)?.role !== 'admin') {
            throw new AccessDeniedError('Only an admin of the account can change its plan or budget.');
          }
          if (next.plan !== current.plan && (next.plan === 'enterprise' || current.plan === 'enterprise')) {
            throw new AccessDeniedError('Enterprise terms are set by contract and cannot be changed here.', {
              suggestion: 'Contact us to start or end an Enterprise contract; budget and billing country stay yours to change.',
            });
          }
        }
        const unchanged = (Object.keys(next) as (keyof AccountSettings)[]).every((k) => next[k] === current[k]);
        if (unchanged) return [];
        return [{ type: 'AccountSettingsChanged', data: { account_id: state.accountId, ...next, changed_at: command.now.toISOString() } }];
      }
      default:
        return assertNever(command);
    }
  },
};

/**
 * The account, and the user an admin acts on. A user of another account (or a removed one) is
 * USER_NOT_FOUND: the caller only ever sees their own account's users.
 */
function managedUser(state: AccountState, command: { by_user_id: string; user_id: string }, what: string) {
  if (!state.exists || !state.accountId) throw new NotFoundError('ACCOUNT_NOT_FOUND', 'Account not found.');
  if (state.users.get(command.by_user_id)?.role !== 'admin') throw new AccessDeniedError(`Only an admin of the account can ${what}.`);
  const user = state.users.get(command.user_id);
  if (!user) {
    throw new NotFoundError('USER_NOT_FOUND', 'No such user in this account.', { suggestion: 'List the users with GET /v1/accounts/{account_id}/users.' });
  }
  return { accountId: state.accountId, user };
}

/** Unknown, used, replaced by a newer one, or its user removed: one answer for all, so a link reveals nothing. */
export const resetLinkNotFound = () =>
  new NotFoundError('RESET_LINK_NOT_FOUND', 'This password reset link is not valid: it was used, replaced by a newer one, or never issued.', {
    suggestion: 'Ask for a new link on the sign-in page (Forgot your password?); only the latest link works, once.',
  });

export const invitationNotFound = () =>
  new NotFoundError('INVITATION_NOT_FOUND', 'This invitation link is not valid (unknown, already used, or withdrawn).', {
    suggestion: 'Log in if you have already set your password; otherwise ask an admin of the account to invite you again.',
  });

/** An account always keeps at least one admin who can log in: someone must be able to manage it. */
function assertAnotherAdmin(state: AccountState, userId: string, what: string): void {
  const admins = [...state.users].filter(([id, u]) => id !== userId && u.role === 'admin' && !u.invitation);
  if (admins.length === 0) {
    throw new ConflictError('LAST_ADMIN', `The last admin of an account cannot ${what}.`, { suggestion: 'Make another user an admin first.' });
  }
}

export type EmailClaimCommand =
  | { type: 'ClaimEmail'; email: string; user_id: string; account_id: string }
  | { type: 'ReleaseEmail'; email: string; user_id: string; now: Date };

/**
 * Claiming a claimed address is the uniqueness check: the append of a claim is decided on the
 * stream's revision, so of two concurrent claims one fails. Only the holder releases it.
 */
export const emailClaimDecider: Decider<{ claimedBy?: string }, EmailClaimCommand, typeof emailClaimEvents> = {
  catalogue: emailClaimEvents,
  initialState: () => ({}),
  evolve(_state, event) {
    switch (event.type) {
      case 'EmailClaimed':
        return { claimedBy: event.data.user_id };
      case 'EmailReleased':
        return {};
      default:
        return assertNever(event);
    }
  },
  decide(command, state): EmailClaimEvent[] {
    switch (command.type) {
      case 'ClaimEmail':
        if (state.claimedBy) {
          throw new AppError('EMAIL_TAKEN', 'A user with this e-mail address already exists.', {
            suggestion: 'Log in with that address, or use another one.',
          });
        }
        return [{ type: 'EmailClaimed', data: { email: normaliseEmail(command.email), user_id: command.user_id, account_id: command.account_id } }];
      case 'ReleaseEmail':
        // Released already, or claimed since by someone else: not this user's to release.
        if (state.claimedBy !== command.user_id) return [];
        return [{ type: 'EmailReleased', data: { email: normaliseEmail(command.email), user_id: command.user_id, released_at: command.now.toISOString() } }];
      default:
        return assertNever(command);
    }
  },
};
