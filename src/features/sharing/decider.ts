import type { Decider } from '../../core/es/decider.js';
import { AccessDeniedError, AppError, NotFoundError, ValidationError } from '../../core/errors.js';
import { assertNever } from '../../core/es/events.js';
import { streamName } from '../../core/es/streams.js';
import { verificationNotFound } from '../verifications/index.js';
import { shareEvents, shareViewEvents, type AccessType, type ShareEvent, type ShareViewEvent } from './events.js';

export const shareStream = (verificationId: string) => streamName('share', verificationId);
export const shareViewsStream = (verificationId: string) => streamName('shareviews', verificationId);

/** Invitations one share may hold (each sends a mail: a bound on what one account can send). */
export const MAX_INVITATIONS = 200;

/**
 * What the verification is, as the verifications read model says when the command is given:
 * null when it does not exist (or was deleted). A share is decided against its verification's
 * owner and origin; the decider itself stays pure.
 */
export type VerificationFacts = { account_id: string; anonymous: boolean } | null;

interface OwnerCommand {
  /** The calling account (a keyless caller's pseudo-account). */
  account_id: string;
  /** A keyless MCP caller (its anonymous_user_id): for it another anonymous verification is another owner's. */
  caller_anonymous: boolean;
  verification: VerificationFacts;
  now: Date;
}

export type ShareCommand =
  | (OwnerCommand & { type: 'Share'; access_type: AccessType; nonce: string; token_sha256: string })
  | (OwnerCommand & { type: 'Unshare' })
  | (OwnerCommand & { type: 'Invite'; email: string; nonce: string; token_sha256: string })
  | (OwnerCommand & { type: 'RevokeInvite'; email: string });

export interface Invitation {
  nonce: string;
  invitedAt: string;
  /** Access changes the share had when this address was invited: later changes are notified to it. */
  accessChangesBefore: number;
}

export type ShareState =
  | { status: 'none' | 'disabled'; invitations: Map<string, Invitation>; accessChanges: number }
  | { status: 'shared'; accessType: AccessType; nonce: string; invitations: Map<string, Invitation>; accessChanges: number };

export const notShared = () =>
  new NotFoundError('NOT_SHARED', 'This verification is not shared.', { suggestion: 'Share it with POST /v1/verifications/{verification_id}/share.' });

/** Only the owning account may share; an anonymous verification may not be shared at all (spec 3.4). */
export function checkOwner(command: Pick<OwnerCommand, 'account_id' | 'caller_anonymous' | 'verification'>): void {
  const { verification } = command;
  if (!verification) throw verificationNotFound();
  // An unclaimed keyless verification belongs to no account: the spec's 403 tells an account (and
  // its own keyless uploader) so without revealing any account's data. To another keyless caller
  // it is someone else's, hidden like another account's (D-091).
  if (verification.anonymous && (verification.account_id === command.account_id || !command.caller_anonymous)) {
    throw new AccessDeniedError('Anonymous verifications cannot be shared.', {
      suggestion: 'Claim it into an account with POST /v1/verifications/claim, then share it from there.',
    });
  }
  // Another account's verification looks exactly like a missing one.
  if (verification.account_id !== command.account_id) throw verificationNotFound();
}

export const shareDecider: Decider<ShareState, ShareCommand, typeof shareEvents> = {
  catalogue: shareEvents,
  initialState: () => ({ status: 'none', invitations: new Map(), accessChanges: 0 }),
  evolve(state, event) {
    switch (event.type) {
      case 'ShareEnabled':
        return { status: 'shared', accessType: event.data.access_type, nonce: event.data.nonce, invitations: new Map(), accessChanges: 0 };
      case 'ShareAccessChanged':
        return state.status === 'shared' ? { ...state, accessType: event.data.to, accessChanges: state.accessChanges + 1 } : state;
      case 'ShareDisabled':
        return { status: 'disabled', invitations: new Map(), accessChanges: 0 };
      case 'ShareInvited':
        return {
          ...state,
          invitations: new Map([...state.invitations, [event.data.email, { nonce: event.data.nonce, invitedAt: event.data.invited_at, accessChangesBefore: state.accessChanges }]]),
        };
      case 'ShareInviteRevoked': {
        const invitations = new Map(state.invitations);
        invitations.delete(event.data.email);
        return { ...state, invitations };
      }
      default:
        return assertNever(event);
    }
  },
  decide(command, state): ShareEvent[] {
    checkOwner(command);
    const at = command.now.toISOString();
    switch (command.type) {
      case 'Share':
        if (state.status !== 'shared') {
          // A new share (also after a DELETE) gets a new nonce, so an invalidated URL stays invalid.
          return [{ type: 'ShareEnabled', data: { access_type: command.access_type, nonce: command.nonce, token_sha256: command.token_sha256, enabled_at: at } }];
        }
        if (state.accessType === command.access_type) return [];
        // The nonce, and with it the URL, is kept.
        return [{ type: 'ShareAccessChanged', data: { from: state.accessType, to: command.access_type, changed_at: at } }];
      case 'Unshare':
        if (state.status !== 'shared') throw notShared();
        return [{ type: 'ShareDisabled', data: { revoked_emails: [...state.invitations.keys()], disabled_at: at } }];
      case 'Invite':
        if (state.status !== 'shared' || state.accessType !== 'restricted') {
          throw new AppError('SHARE_NOT_FOUND', 'Invitations need a restricted share, and this verification has none.', {
            suggestion: 'Share it first with POST /v1/verifications/{verification_id}/share and {"access_type": "restricted"}.',
          });
        }
        // Repeated invites are safe: the invitation, and its link, stay as they are.
        if (state.invitations.has(command.email)) return [];
        if (state.invitations.size >= MAX_INVITATIONS) {
          throw new ValidationError(`A share can have at most ${MAX_INVITATIONS} invited addresses.`, { suggestion: 'Revoke invitations that are no longer needed.' });
        }
        return [{ type: 'ShareInvited', data: { email: command.email, nonce: command.nonce, token_sha256: command.token_sha256, invited_at: at } }];
      case 'RevokeInvite':
        if (!state.invitations.has(command.email)) {
          throw new NotFoundError('INVITE_NOT_FOUND', 'This address is not invited to the share.', {
            suggestion: 'GET /v1/verifications/{verification_id}/share lists the invited addresses.',
          });
        }
        return [{ type: 'ShareInviteRevoked', data: { email: command.email, revoked_at: at } }];
      default:
        return assertNever(command);
    }
  },
};

export type ShareViewCommand = { type: 'RecordView'; visitor: string; access: 'link' | 'invitation'; now: Date };

/**
 * Views need no state: a view is a fact to record. Counting one per visitor per day is the read
 * model's job (its key), so the stream is appended to without being read (use-cases.ts).
 */
export function decideView(command: ShareViewCommand): ShareViewEvent[] {
  return [{ type: 'ShareViewed', data: { visitor: command.visitor, day: command.now.toISOString().slice(0, 10), access: command.access, viewed_at: command.now.toISOString() } }];
}

export { shareViewEvents };
