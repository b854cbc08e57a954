import { describe, expect, it } from 'vitest';
import { given } from '../../../test/support/decider-spec.js';
import { decideView, MAX_INVITATIONS, shareDecider, type ShareCommand, type VerificationFacts } from './decider.js';
import type { AccessType, ShareEvent } from './events.js';

const ACCOUNT = '0a000000-0000-4000-8000-000000000001';
const OTHER_ACCOUNT = '0a000000-0000-4000-8000-000000000002';
const NOW = new Date('2026-03-01T10:00:00.000Z');
const LATER = new Date('2026-03-02T08:30:00.000Z');

const NONCE = 'n'.repeat(22);
const NEW_NONCE = 'm'.repeat(22);
const INVITE_NONCE = 'i'.repeat(22);
const TOKEN_SHA = 'a'.repeat(64);
const NEW_TOKEN_SHA = 'b'.repeat(64);
const INVITE_SHA = 'c'.repeat(64);

/** The pseudo-accounts of two keyless MCP callers (their anonymous_user_ids). */
const KEYLESS = '0a000000-0000-4000-8000-00000000000a';
const OTHER_KEYLESS = '0a000000-0000-4000-8000-00000000000b';

const owned: VerificationFacts = { account_id: ACCOUNT, anonymous: false };
const anonymous: VerificationFacts = { account_id: KEYLESS, anonymous: true };

const owner = { account_id: ACCOUNT, caller_anonymous: false, verification: owned, now: LATER };
const share = (access_type: AccessType, overrides: Partial<ShareCommand> = {}): ShareCommand =>
  ({ type: 'Share', ...owner, access_type, nonce: NEW_NONCE, token_sha256: NEW_TOKEN_SHA, ...overrides }) as ShareCommand;
const unshare = (overrides: Partial<ShareCommand> = {}): ShareCommand => ({ type: 'Unshare', ...owner, ...overrides }) as ShareCommand;
const invite = (email = 'judge@contest.example', overrides: Partial<ShareCommand> = {}): ShareCommand =>
  ({ type: 'Invite', ...owner, email, nonce: INVITE_NONCE, token_sha256: INVITE_SHA, ...overrides }) as ShareCommand;
const revoke = (email = 'judge@contest.example', overrides: Partial<ShareCommand> = {}): ShareCommand => ({ type: 'RevokeInvite', ...owner, email, ...overrides }) as ShareCommand;

const enabled = (access_type: AccessType = 'restricted'): ShareEvent => ({
  type: 'ShareEnabled',
  data: { access_type, nonce: NONCE, token_sha256: TOKEN_SHA, enabled_at: NOW.toISOString() },
});
const invited = (email = 'judge@contest.example', nonce = INVITE_NONCE, at = NOW): ShareEvent => ({
  type: 'ShareInvited',
  data: { email, nonce, token_sha256: INVITE_SHA, invited_at: at.toISOString() },
});
const changed = (from: AccessType, to: AccessType): ShareEvent => ({ type: 'ShareAccessChanged', data: { from, to, changed_at: LATER.toISOString() } });
const disabled = (revoked_emails: string[] = []): ShareEvent => ({ type: 'ShareDisabled', data: { revoked_emails, disabled_at: LATER.toISOString() } });

/** Every command is refused alike for a caller who does not own the verification, or an anonymous one. */
function ownershipRules(history: ShareEvent[]) {
  const commands: [string, (o: Partial<ShareCommand>) => ShareCommand][] = [
    ['Share', (o) => share('anyone_with_link', o)],
    ['Unshare', (o) => unshare(o)],
    ['Invite', (o) => invite(undefined, o)],
    ['RevokeInvite', (o) => revoke(undefined, o)],
  ];
  for (const [name, command] of commands) {
    it(`${name} on another account's verification is rejected with VERIFICATION_NOT_FOUND`, () => {
      given(shareDecider, history).when(command({ account_id: OTHER_ACCOUNT })).thenThrows('VERIFICATION_NOT_FOUND');
    });
    it(`${name} on a missing or deleted verification is rejected with VERIFICATION_NOT_FOUND`, () => {
      given(shareDecider, history).when(command({ verification: null })).thenThrows('VERIFICATION_NOT_FOUND');
    });
    it(`${name} on an anonymous verification, by an account, is rejected with ACCESS_DENIED (spec 3.4, 7)`, () => {
      given(shareDecider, history).when(command({ verification: anonymous })).thenThrows('ACCESS_DENIED', /Anonymous verifications cannot be shared/);
    });
    it(`${name} on an anonymous verification, by its own keyless caller, is rejected with ACCESS_DENIED`, () => {
      given(shareDecider, history).when(command({ account_id: KEYLESS, caller_anonymous: true, verification: anonymous })).thenThrows('ACCESS_DENIED');
    });
    it(`${name} on an anonymous verification, by another keyless caller, is rejected with VERIFICATION_NOT_FOUND (another owner's)`, () => {
      given(shareDecider, history).when(command({ account_id: OTHER_KEYLESS, caller_anonymous: true, verification: anonymous })).thenThrows('VERIFICATION_NOT_FOUND');
    });
  }
}

describe('shareDecider', () => {
  describe('given a verification never shared', () => {
    it('Share anyone_with_link enables the share with the new nonce and token hash', () => {
      given(shareDecider, [])
        .when(share('anyone_with_link'))
        .then([{ type: 'ShareEnabled', data: { access_type: 'anyone_with_link', nonce: NEW_NONCE, token_sha256: NEW_TOKEN_SHA, enabled_at: LATER.toISOString() } }]);
    });

    it('Share restricted enables a restricted share', () => {
      given(shareDecider, [])
        .when(share('restricted'))
        .then([{ type: 'ShareEnabled', data: { access_type: 'restricted', nonce: NEW_NONCE, token_sha256: NEW_TOKEN_SHA, enabled_at: LATER.toISOString() } }]);
    });

    it('Unshare is rejected with NOT_SHARED', () => {
      given(shareDecider, []).when(unshare()).thenThrows('NOT_SHARED');
    });

    it('Invite is rejected with SHARE_NOT_FOUND', () => {
      given(shareDecider, []).when(invite()).thenThrows('SHARE_NOT_FOUND');
    });

    it('RevokeInvite is rejected with INVITE_NOT_FOUND', () => {
      given(shareDecider, []).when(revoke()).thenThrows('INVITE_NOT_FOUND');
    });

    ownershipRules([]);
  });

  describe('given a share open to anyone with the link', () => {
    const history = [enabled('anyone_with_link')];

    it('Share with the same access type decides nothing (the URL stays)', () => {
      given(shareDecider, history).when(share('anyone_with_link')).thenNothing();
    });

    it('Share restricted changes the access type and keeps the nonce (the URL stays)', () => {
      given(shareDecider, history).when(share('restricted')).then([changed('anyone_with_link', 'restricted')]);
    });

    it('Invite is rejected with SHARE_NOT_FOUND (invitations need a restricted share)', () => {
      given(shareDecider, history).when(invite()).thenThrows('SHARE_NOT_FOUND', /restricted/);
    });

    it('Unshare disables it', () => {
      given(shareDecider, history).when(unshare()).then([disabled()]);
    });

    ownershipRules(history);
  });

  describe('given a restricted share', () => {
    const history = [enabled('restricted')];

    it('Invite records the invitation with its own nonce and token hash', () => {
      given(shareDecider, history).when(invite()).then([invited('judge@contest.example', INVITE_NONCE, LATER)]);
    });

    it('Share anyone_with_link changes the access type', () => {
      given(shareDecider, history).when(share('anyone_with_link')).then([changed('restricted', 'anyone_with_link')]);
    });

    it('RevokeInvite of an address never invited is rejected with INVITE_NOT_FOUND', () => {
      given(shareDecider, history).when(revoke('nobody@example.eu')).thenThrows('INVITE_NOT_FOUND');
    });

    it(`Invite of a ${MAX_INVITATIONS + 1}st address is rejected with VALIDATION_ERROR`, () => {
      const full = [...history, ...Array.from({ length: MAX_INVITATIONS }, (_, i) => invited(`guest${i}@example.eu`))];
      given(shareDecider, full).when(invite('one-more@example.eu')).thenThrows('VALIDATION_ERROR', /at most 200/);
      given(shareDecider, full).when(invite('guest7@example.eu')).thenNothing();
    });

    ownershipRules(history);
  });

  describe('given a restricted share with invitations', () => {
    const history = [enabled('restricted'), invited('judge@contest.example'), invited('editor@news.example', 'j'.repeat(22))];

    it('Invite of an invited address decides nothing (repeated invites are safe)', () => {
      given(shareDecider, history).when(invite('judge@contest.example', { nonce: 'z'.repeat(22) })).thenNothing();
    });

    it('RevokeInvite revokes that address', () => {
      given(shareDecider, history).when(revoke()).then([{ type: 'ShareInviteRevoked', data: { email: 'judge@contest.example', revoked_at: LATER.toISOString() } }]);
    });

    it('Unshare disables the share and names every invitation it removes', () => {
      given(shareDecider, history).when(unshare()).then([disabled(['judge@contest.example', 'editor@news.example'])]);
    });

    it('Share anyone_with_link keeps the invitations (they count again once restricted)', () => {
      const switched = [...history, changed('restricted', 'anyone_with_link')];
      given(shareDecider, switched).when(revoke('editor@news.example')).then([{ type: 'ShareInviteRevoked', data: { email: 'editor@news.example', revoked_at: LATER.toISOString() } }]);
      given(shareDecider, switched).when(invite('new@example.eu')).thenThrows('SHARE_NOT_FOUND');
    });

    it('counts access changes and remembers how many each invitation has seen', () => {
      const state = [...history, changed('restricted', 'anyone_with_link'), invited('late@example.eu')].reduce(
        (s, e) => shareDecider.evolve(s, e),
        shareDecider.initialState(),
      );
      expect(state.accessChanges).toBe(1);
      expect(state.invitations.get('judge@contest.example')?.accessChangesBefore).toBe(0);
      expect(state.invitations.get('late@example.eu')?.accessChangesBefore).toBe(1);
    });
  });

  describe('given a revoked invitation', () => {
    const history = [enabled('restricted'), invited(), { type: 'ShareInviteRevoked', data: { email: 'judge@contest.example', revoked_at: LATER.toISOString() } } as ShareEvent];

    it('RevokeInvite again is rejected with INVITE_NOT_FOUND', () => {
      given(shareDecider, history).when(revoke()).thenThrows('INVITE_NOT_FOUND');
    });

    it('Invite again records a new invitation (a new link)', () => {
      given(shareDecider, history).when(invite(undefined, { nonce: 'k'.repeat(22) })).then([invited('judge@contest.example', 'k'.repeat(22), LATER)]);
    });
  });

  describe('given a share that was removed', () => {
    const history = [enabled('restricted'), invited(), disabled(['judge@contest.example'])];

    it('Share enables a new share with a new nonce (the old URL stays invalid)', () => {
      given(shareDecider, history)
        .when(share('restricted'))
        .then([{ type: 'ShareEnabled', data: { access_type: 'restricted', nonce: NEW_NONCE, token_sha256: NEW_TOKEN_SHA, enabled_at: LATER.toISOString() } }]);
    });

    it('Unshare is rejected with NOT_SHARED', () => {
      given(shareDecider, history).when(unshare()).thenThrows('NOT_SHARED');
    });

    it('Invite is rejected with SHARE_NOT_FOUND', () => {
      given(shareDecider, history).when(invite()).thenThrows('SHARE_NOT_FOUND');
    });

    it('RevokeInvite is rejected with INVITE_NOT_FOUND (the invitations went with the share)', () => {
      given(shareDecider, history).when(revoke()).thenThrows('INVITE_NOT_FOUND');
    });

    it('a new share starts without the old invitations', () => {
      given(shareDecider, [...history, enabled('restricted')]).when(revoke()).thenThrows('INVITE_NOT_FOUND');
    });
  });
});

describe('decideView', () => {
  it('records a view on the UTC day it happened', () => {
    expect(decideView({ type: 'RecordView', visitor: 'f'.repeat(32), access: 'invitation', now: new Date('2026-03-01T23:59:59.999Z') })).toEqual([
      { type: 'ShareViewed', data: { visitor: 'f'.repeat(32), day: '2026-03-01', access: 'invitation', viewed_at: '2026-03-01T23:59:59.999Z' } },
    ]);
  });
});
