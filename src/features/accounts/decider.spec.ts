import { describe, expect, it } from 'vitest';
import { given } from '../../../test/support/decider-spec.js';
import { AccessDeniedError } from '../../core/errors.js';
import { accountDecider, emailClaimDecider, type AccountCommand, type AccountSettings } from './decider.js';
import type { AccountEvent, UserRole } from './events.js';

const ACCOUNT = '0a000000-0000-4000-8000-000000000001';
const ADMIN = '0b000000-0000-4000-8000-000000000001';
const MEMBER = '0b000000-0000-4000-8000-000000000002';
const NEWCOMER = '0b000000-0000-4000-8000-000000000003';
const STRANGER = '0b000000-0000-4000-8000-000000000099';

const REGISTERED_AT = new Date('2026-03-01T09:00:00.000Z');
const NOW = new Date('2026-03-02T10:30:00.000Z');

const basic: AccountSettings = { plan: 'basic', billing_country: 'DE', monthly_budget_cap_eur: 20 };

const admin = { user_id: ADMIN, email: 'ada@example.com', name: 'Ada', password_hash: 'hash-ada' };
const member = { user_id: MEMBER, email: 'bob@example.com', name: 'Bob', role: 'member' as UserRole, password_hash: 'hash-bob' };
const newcomer = { user_id: NEWCOMER, email: 'cy@example.com', name: 'Cy', role: 'member' as UserRole, password_hash: 'hash-cy' };

const accountRegistered = (settings: AccountSettings = basic): AccountEvent => ({
  type: 'AccountRegistered',
  data: { account_id: ACCOUNT, name: 'Acme', ...settings, registered_at: REGISTERED_AT.toISOString() },
});
const userAdded = (user: typeof admin & { role: UserRole }, at = REGISTERED_AT): AccountEvent => ({
  type: 'UserAdded',
  data: { account_id: ACCOUNT, ...user, added_at: at.toISOString() },
});
const settingsChanged = (settings: AccountSettings, at = NOW): AccountEvent => ({
  type: 'AccountSettingsChanged',
  data: { account_id: ACCOUNT, ...settings, changed_at: at.toISOString() },
});

const registered = (settings: AccountSettings = basic): AccountEvent[] => [
  accountRegistered(settings),
  userAdded({ ...admin, role: 'admin' }),
  userAdded(member),
];

const register: AccountCommand = {
  type: 'RegisterAccount',
  account_id: ACCOUNT,
  name: 'Acme',
  ...basic,
  admin,
  now: REGISTERED_AT,
};
const addUser = (by: string, user = newcomer): AccountCommand => ({ type: 'AddUser', by_user_id: by, user, now: NOW });
const changeSettings = (by: string | 'operator', changes: Partial<AccountSettings>): AccountCommand => ({
  type: 'ChangeSettings',
  by: by === 'operator' ? 'operator' : { user_id: by },
  changes,
  now: NOW,
});

describe('accountDecider', () => {
  describe('given no account', () => {
    it('RegisterAccount registers the account and adds the first user as its admin', () => {
      given(accountDecider, [])
        .when(register)
        .then([accountRegistered(), userAdded({ ...admin, role: 'admin' })]);
    });

    it('AddUser is rejected with ACCOUNT_NOT_FOUND', () => {
      given(accountDecider, []).when(addUser(ADMIN)).thenThrows('ACCOUNT_NOT_FOUND');
    });

    it('ChangeSettings by a user is rejected with ACCOUNT_NOT_FOUND', () => {
      given(accountDecider, []).when(changeSettings(ADMIN, { monthly_budget_cap_eur: 5 })).thenThrows('ACCOUNT_NOT_FOUND');
    });

    it('ChangeSettings by the operator is rejected with ACCOUNT_NOT_FOUND', () => {
      given(accountDecider, []).when(changeSettings('operator', { plan: 'enterprise' })).thenThrows('ACCOUNT_NOT_FOUND');
    });
  });

  describe('given a registered account (basic plan, an admin and a member)', () => {
    it('RegisterAccount again is rejected with CONFLICT', () => {
      given(accountDecider, registered()).when(register).thenThrows('CONFLICT');
    });

    it('AddUser by an admin adds the user', () => {
      given(accountDecider, registered())
        .when(addUser(ADMIN))
        .then([userAdded(newcomer, NOW)]);
    });

    it('AddUser by an admin may add another admin', () => {
      const secondAdmin = { ...newcomer, role: 'admin' as const };
      given(accountDecider, registered())
        .when(addUser(ADMIN, secondAdmin))
        .then([userAdded(secondAdmin, NOW)]);
    });

    it('AddUser by a member is rejected with ACCESS_DENIED', () => {
      given(accountDecider, registered()).when(addUser(MEMBER)).thenThrows(AccessDeniedError, /Only an admin/);
    });

    it('AddUser by someone who is not a user of the account is rejected with ACCESS_DENIED', () => {
      given(accountDecider, registered()).when(addUser(STRANGER)).thenThrows('ACCESS_DENIED');
    });

    it('AddUser for a user already added decides nothing (idempotent)', () => {
      given(accountDecider, [...registered(), userAdded(newcomer, NOW)])
        .when(addUser(ADMIN))
        .thenNothing();
    });

    it('AddUser by an admin who was added later (not the registering one) adds the user', () => {
      const lateAdmin = { ...newcomer, role: 'admin' as const };
      const fourth = { ...member, user_id: '0b000000-0000-4000-8000-000000000004', email: 'di@example.com', name: 'Di' };
      given(accountDecider, [...registered(), userAdded(lateAdmin, NOW)])
        .when(addUser(NEWCOMER, fourth))
        .then([userAdded(fourth, NOW)]);
    });

    it('ChangeSettings by an admin records all settings as they stand after the change', () => {
      given(accountDecider, registered())
        .when(changeSettings(ADMIN, { monthly_budget_cap_eur: 50 }))
        .then([settingsChanged({ ...basic, monthly_budget_cap_eur: 50 })]);
    });

    it('ChangeSettings by an admin moves between self-service plans and clears the budget cap', () => {
      given(accountDecider, registered())
        .when(changeSettings(ADMIN, { plan: 'professional', billing_country: 'FR', monthly_budget_cap_eur: null }))
        .then([settingsChanged({ plan: 'professional', billing_country: 'FR', monthly_budget_cap_eur: null })]);
    });

    it('ChangeSettings by an admin to the values in force decides nothing', () => {
      given(accountDecider, registered()).when(changeSettings(ADMIN, { ...basic })).thenNothing();
    });

    it('ChangeSettings with no changes decides nothing', () => {
      given(accountDecider, registered()).when(changeSettings(ADMIN, {})).thenNothing();
    });

    it('ChangeSettings by an admin to Enterprise is rejected with ACCESS_DENIED', () => {
      const error = given(accountDecider, registered()).when(changeSettings(ADMIN, { plan: 'enterprise' })).thenThrows('ACCESS_DENIED', /Enterprise terms/);
      expect(error.suggestion).toMatch(/Contact us/);
    });

    it('ChangeSettings by a member is rejected with ACCESS_DENIED', () => {
      given(accountDecider, registered())
        .when(changeSettings(MEMBER, { monthly_budget_cap_eur: 50 }))
        .thenThrows('ACCESS_DENIED', /Only an admin/);
    });

    it('ChangeSettings by a member is rejected even when it would change nothing', () => {
      given(accountDecider, registered()).when(changeSettings(MEMBER, {})).thenThrows('ACCESS_DENIED');
    });

    it('ChangeSettings by someone who is not a user of the account is rejected with ACCESS_DENIED', () => {
      given(accountDecider, registered())
        .when(changeSettings(STRANGER, { monthly_budget_cap_eur: 50 }))
        .thenThrows('ACCESS_DENIED');
    });

    it('ChangeSettings by the operator grants Enterprise terms', () => {
      given(accountDecider, registered())
        .when(changeSettings('operator', { plan: 'enterprise', monthly_budget_cap_eur: null }))
        .then([settingsChanged({ plan: 'enterprise', billing_country: 'DE', monthly_budget_cap_eur: null })]);
    });

    it('ChangeSettings by the operator to the values in force decides nothing', () => {
      given(accountDecider, registered()).when(changeSettings('operator', { plan: 'basic' })).thenNothing();
    });
  });

  describe('given a registered account: managing users', () => {
    const changeRole = (by: string, user: string, role: UserRole): AccountCommand => ({ type: 'ChangeUserRole', by_user_id: by, user_id: user, role, now: NOW });
    const remove = (by: string, user: string): AccountCommand => ({ type: 'RemoveUser', by_user_id: by, user_id: user, now: NOW });
    const roleChanged = (user: string, from: UserRole, to: UserRole): AccountEvent => ({
      type: 'UserRoleChanged',
      data: { account_id: ACCOUNT, user_id: user, from, to, changed_at: NOW.toISOString() },
    });
    const removed = (user: string, email: string): AccountEvent => ({ type: 'UserRemoved', data: { account_id: ACCOUNT, user_id: user, email, removed_at: NOW.toISOString() } });

    it('ChangeUserRole by an admin makes a member an admin', () => {
      given(accountDecider, registered()).when(changeRole(ADMIN, MEMBER, 'admin')).then([roleChanged(MEMBER, 'member', 'admin')]);
    });

    it('ChangeUserRole to the role the user has decides nothing', () => {
      given(accountDecider, registered()).when(changeRole(ADMIN, MEMBER, 'member')).thenNothing();
    });

    it('ChangeUserRole of the last admin to member is rejected with LAST_ADMIN', () => {
      const error = given(accountDecider, registered()).when(changeRole(ADMIN, ADMIN, 'member')).thenThrows('LAST_ADMIN');
      expect(error.suggestion).toMatch(/another user an admin/);
    });

    it('ChangeUserRole of an admin to member is allowed while another admin remains', () => {
      given(accountDecider, [...registered(), roleChanged(MEMBER, 'member', 'admin')])
        .when(changeRole(MEMBER, ADMIN, 'member'))
        .then([roleChanged(ADMIN, 'admin', 'member')]);
    });

    it('ChangeUserRole by a member is rejected with ACCESS_DENIED', () => {
      given(accountDecider, registered()).when(changeRole(MEMBER, MEMBER, 'admin')).thenThrows(AccessDeniedError, /Only an admin/);
    });

    it('ChangeUserRole of a user not in the account is rejected with USER_NOT_FOUND', () => {
      given(accountDecider, registered()).when(changeRole(ADMIN, STRANGER, 'admin')).thenThrows('USER_NOT_FOUND');
    });

    it('RemoveUser by an admin removes a member', () => {
      given(accountDecider, registered()).when(remove(ADMIN, MEMBER)).then([removed(MEMBER, 'bob@example.com')]);
    });

    it('RemoveUser by a member is rejected with ACCESS_DENIED, also for themselves', () => {
      given(accountDecider, registered()).when(remove(MEMBER, ADMIN)).thenThrows('ACCESS_DENIED');
      given(accountDecider, registered()).when(remove(MEMBER, MEMBER)).thenThrows('ACCESS_DENIED');
    });

    it('RemoveUser of the last admin is rejected with LAST_ADMIN, also by themselves', () => {
      given(accountDecider, registered()).when(remove(ADMIN, ADMIN)).thenThrows('LAST_ADMIN', /last admin/);
    });

    it('RemoveUser of an admin is allowed while another admin remains, also by themselves', () => {
      given(accountDecider, [...registered(), roleChanged(MEMBER, 'member', 'admin')])
        .when(remove(ADMIN, ADMIN))
        .then([removed(ADMIN, 'ada@example.com')]);
    });

    it('RemoveUser of a user not in the account is rejected with USER_NOT_FOUND', () => {
      given(accountDecider, registered()).when(remove(ADMIN, STRANGER)).thenThrows('USER_NOT_FOUND');
    });

    it('RemoveUser of a user already removed is rejected with USER_NOT_FOUND', () => {
      given(accountDecider, [...registered(), removed(MEMBER, 'bob@example.com')]).when(remove(ADMIN, MEMBER)).thenThrows('USER_NOT_FOUND');
    });

    it('a removed admin can no longer manage users', () => {
      given(accountDecider, [...registered(), roleChanged(MEMBER, 'member', 'admin'), removed(ADMIN, 'ada@example.com')])
        .when(addUser(ADMIN))
        .thenThrows('ACCESS_DENIED');
    });

    it('a user added again after removal (new id) is added', () => {
      given(accountDecider, [...registered(), removed(MEMBER, 'bob@example.com')])
        .when(addUser(ADMIN))
        .then([userAdded(newcomer, NOW)]);
    });
  });

  describe('given a registered account: invitations', () => {
    const SHA = 'a'.repeat(64);
    const EXPIRES = new Date('2026-03-09T10:30:00.000Z');
    const invitee = { user_id: NEWCOMER, email: 'cy@example.com', name: 'Cy', role: 'admin' as UserRole };
    const invite = (by: string): AccountCommand => ({ type: 'InviteUser', by_user_id: by, user: invitee, token_sha256: SHA, expires_at: EXPIRES, now: NOW });
    const invited: AccountEvent = {
      type: 'UserInvited',
      data: { account_id: ACCOUNT, ...invitee, token_sha256: SHA, expires_at: EXPIRES.toISOString(), invited_at: NOW.toISOString() },
    };
    const accept = (at: Date, sha = SHA): AccountCommand => ({ type: 'AcceptInvitation', user_id: NEWCOMER, token_sha256: sha, password_hash: 'hash-cy', now: at });
    const accepted = (at: Date): AccountEvent => ({ type: 'InvitationAccepted', data: { account_id: ACCOUNT, user_id: NEWCOMER, password_hash: 'hash-cy', accepted_at: at.toISOString() } });

    it('InviteUser by an admin records the invitation (token hash and expiry)', () => {
      given(accountDecider, registered()).when(invite(ADMIN)).then([invited]);
    });

    it('InviteUser by a member is rejected with ACCESS_DENIED', () => {
      given(accountDecider, registered()).when(invite(MEMBER)).thenThrows('ACCESS_DENIED');
    });

    it('AcceptInvitation before expiry records the password', () => {
      given(accountDecider, [...registered(), invited]).when(accept(NOW)).then([accepted(NOW)]);
    });

    it('AcceptInvitation at or after expiry is rejected with INVITATION_EXPIRED', () => {
      given(accountDecider, [...registered(), invited]).when(accept(EXPIRES)).thenThrows('INVITATION_EXPIRED');
    });

    it('AcceptInvitation with another token is rejected with INVITATION_NOT_FOUND', () => {
      given(accountDecider, [...registered(), invited]).when(accept(NOW, 'b'.repeat(64))).thenThrows('INVITATION_NOT_FOUND');
    });

    it('AcceptInvitation a second time is rejected with INVITATION_NOT_FOUND', () => {
      given(accountDecider, [...registered(), invited, accepted(NOW)]).when(accept(NOW)).thenThrows('INVITATION_NOT_FOUND');
    });

    it('AcceptInvitation after the user was removed is rejected with INVITATION_NOT_FOUND', () => {
      const removed: AccountEvent = { type: 'UserRemoved', data: { account_id: ACCOUNT, user_id: NEWCOMER, email: 'cy@example.com', removed_at: NOW.toISOString() } };
      given(accountDecider, [...registered(), invited, removed]).when(accept(NOW)).thenThrows('INVITATION_NOT_FOUND');
    });

    it('an invited admin does not count as another admin until they accept', () => {
      const removeSelf: AccountCommand = { type: 'RemoveUser', by_user_id: ADMIN, user_id: ADMIN, now: NOW };
      given(accountDecider, [...registered(), invited]).when(removeSelf).thenThrows('LAST_ADMIN');
      given(accountDecider, [...registered(), invited, accepted(NOW)])
        .when(removeSelf)
        .then([{ type: 'UserRemoved', data: { account_id: ACCOUNT, user_id: ADMIN, email: 'ada@example.com', removed_at: NOW.toISOString() } }]);
    });
  });

  describe('given a registered account: passwords', () => {
    const change = (user: string): AccountCommand => ({ type: 'ChangePassword', user_id: user, password_hash: 'hash-new', now: NOW });

    it('ChangePassword by a user records the new hash', () => {
      given(accountDecider, registered())
        .when(change(MEMBER))
        .then([{ type: 'PasswordChanged', data: { account_id: ACCOUNT, user_id: MEMBER, password_hash: 'hash-new', changed_at: NOW.toISOString() } }]);
    });

    it('ChangePassword for a user not in the account is rejected with USER_NOT_FOUND', () => {
      given(accountDecider, registered()).when(change(STRANGER)).thenThrows('USER_NOT_FOUND');
    });
  });

  describe('given a registered account: ending a user’s web app sessions (the operator, issue 36)', () => {
    const end = (user: string): AccountCommand => ({ type: 'EndUserSessions', user_id: user, now: NOW });

    it('EndUserSessions records UserSessionsEnded by the operator', () => {
      given(accountDecider, registered())
        .when(end(MEMBER))
        .then([{ type: 'UserSessionsEnded', data: { account_id: ACCOUNT, user_id: MEMBER, by: 'operator', ended_at: NOW.toISOString() } }]);
    });

    it('EndUserSessions for a user not in the account (or no account) is rejected', () => {
      given(accountDecider, registered()).when(end(STRANGER)).thenThrows('USER_NOT_FOUND');
      given(accountDecider, []).when(end(MEMBER)).thenThrows('ACCOUNT_NOT_FOUND');
    });
  });

  describe('given no account: managing users', () => {
    it('ChangeUserRole, RemoveUser and ChangePassword are rejected with ACCOUNT_NOT_FOUND', () => {
      given(accountDecider, []).when({ type: 'ChangePassword', user_id: MEMBER, password_hash: 'h', now: NOW }).thenThrows('ACCOUNT_NOT_FOUND');
      given(accountDecider, []).when({ type: 'ChangeUserRole', by_user_id: ADMIN, user_id: MEMBER, role: 'admin', now: NOW }).thenThrows('ACCOUNT_NOT_FOUND');
      given(accountDecider, []).when({ type: 'RemoveUser', by_user_id: ADMIN, user_id: MEMBER, now: NOW }).thenThrows('ACCOUNT_NOT_FOUND');
    });
  });

  describe('given an account whose settings were changed', () => {
    const history = [...registered(), settingsChanged({ plan: 'professional', billing_country: 'DE', monthly_budget_cap_eur: 100 })];

    it('repeating the same change decides nothing (idempotent)', () => {
      given(accountDecider, history)
        .when(changeSettings(ADMIN, { plan: 'professional', monthly_budget_cap_eur: 100 }))
        .thenNothing();
    });

    it('a further change starts from the changed settings', () => {
      const later = new Date('2026-03-03T08:00:00.000Z');
      given(accountDecider, history)
        .when({ type: 'ChangeSettings', by: { user_id: ADMIN }, changes: { billing_country: 'AT' }, now: later })
        .then([settingsChanged({ plan: 'professional', billing_country: 'AT', monthly_budget_cap_eur: 100 }, later)]);
    });
  });

  describe('given an Enterprise account', () => {
    const enterprise: AccountSettings = { plan: 'enterprise', billing_country: 'DE', monthly_budget_cap_eur: null };

    it('ChangeSettings by an admin ending Enterprise terms is rejected with ACCESS_DENIED', () => {
      given(accountDecider, registered(enterprise))
        .when(changeSettings(ADMIN, { plan: 'professional' }))
        .thenThrows('ACCESS_DENIED', /Enterprise terms/);
    });

    it('ChangeSettings by an admin of budget and billing country is allowed; the plan stays Enterprise', () => {
      given(accountDecider, registered(enterprise))
        .when(changeSettings(ADMIN, { plan: 'enterprise', billing_country: 'NL', monthly_budget_cap_eur: 1000 }))
        .then([settingsChanged({ plan: 'enterprise', billing_country: 'NL', monthly_budget_cap_eur: 1000 })]);
    });

    it('ChangeSettings by the operator ends Enterprise terms', () => {
      given(accountDecider, registered(enterprise))
        .when(changeSettings('operator', { plan: 'basic' }))
        .then([settingsChanged({ ...enterprise, plan: 'basic' })]);
    });
  });

  describe('given an account moved to Enterprise by the operator', () => {
    it('ChangeSettings by an admin back to a self-service plan is rejected with ACCESS_DENIED', () => {
      given(accountDecider, [...registered(), settingsChanged({ ...basic, plan: 'enterprise' })])
        .when(changeSettings(ADMIN, { plan: 'basic' }))
        .thenThrows('ACCESS_DENIED');
    });
  });
});

describe('emailClaimDecider', () => {
  const claim = { type: 'ClaimEmail' as const, email: '  Ada@Example.COM ', user_id: ADMIN, account_id: ACCOUNT };
  const claimed = { type: 'EmailClaimed' as const, data: { email: 'ada@example.com', user_id: ADMIN, account_id: ACCOUNT } };
  const release = (user_id = ADMIN) => ({ type: 'ReleaseEmail' as const, email: 'ada@example.com', user_id, now: NOW });
  const released = { type: 'EmailReleased' as const, data: { email: 'ada@example.com', user_id: ADMIN, released_at: NOW.toISOString() } };

  describe('given an unclaimed address', () => {
    it('claiming it records the claim with the address normalised', () => {
      given(emailClaimDecider, []).when(claim).then([claimed]);
    });

    it('releasing it decides nothing', () => {
      given(emailClaimDecider, []).when(release()).thenNothing();
    });
  });

  describe('given a claimed address', () => {
    it('a claim by another user is rejected with EMAIL_TAKEN', () => {
      const error = given(emailClaimDecider, [claimed])
        .when({ type: 'ClaimEmail', email: 'ada@example.com', user_id: NEWCOMER, account_id: '0a000000-0000-4000-8000-000000000002' })
        .thenThrows('EMAIL_TAKEN');
      expect(error.suggestion).toMatch(/another one/);
    });

    // A claim is never repeated: a retried registration must not pass as the first one.
    it('the same claim again (same user) is also rejected with EMAIL_TAKEN', () => {
      given(emailClaimDecider, [claimed]).when(claim).thenThrows('EMAIL_TAKEN');
    });

    it('its holder releases it', () => {
      given(emailClaimDecider, [claimed]).when(release()).then([released]);
    });

    it('a release for another user decides nothing', () => {
      given(emailClaimDecider, [claimed]).when(release(NEWCOMER)).thenNothing();
    });
  });

  describe('given a released address', () => {
    it('it can be claimed again, by anyone', () => {
      given(emailClaimDecider, [claimed, released])
        .when({ ...claim, user_id: NEWCOMER })
        .then([{ type: 'EmailClaimed', data: { email: 'ada@example.com', user_id: NEWCOMER, account_id: ACCOUNT } }]);
    });

    it('releasing it again decides nothing', () => {
      given(emailClaimDecider, [claimed, released]).when(release()).thenNothing();
    });
  });
});
