import crypto from 'node:crypto';
import { AccessDeniedError, AppError, NotFoundError } from '../../core/errors.js';
import type { Decider } from '../../core/decider.js';
import { assertNever } from '../../core/events.js';
import { accountEvents, emailClaimEvents, type AccountEvent, type EmailClaimEvent, type Plan, type UserRole } from './events.js';
import { streamName } from '../../core/streams.js';

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
  users: Map<string, { email: string; role: UserRole }>;
}

export const accountDecider: Decider<AccountState, AccountCommand, typeof accountEvents> = {
  catalogue: accountEvents,
  initialState: () => ({ exists: false, users: new Map() }),
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

/** Claiming an address twice is the uniqueness check: the stream may only ever hold one event. */
export const emailClaimDecider: Decider<{ claimedBy?: string }, { email: string; user_id: string; account_id: string }, typeof emailClaimEvents> = {
  catalogue: emailClaimEvents,
  initialState: () => ({}),
  evolve: (_state, event) => ({ claimedBy: event.data.user_id }),
  decide(command, state): EmailClaimEvent[] {
    if (state.claimedBy) {
      throw new AppError('EMAIL_TAKEN', 'A user with this e-mail address already exists.', {
        suggestion: 'Log in with that address, or use another one.',
      });
    }
    return [{ type: 'EmailClaimed', data: { email: normaliseEmail(command.email), user_id: command.user_id, account_id: command.account_id } }];
  },
};
