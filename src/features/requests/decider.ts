import type { Decider } from '../../core/es/decider.js';
import { assertNever } from '../../core/es/events.js';
import { invalidUpdate, requestClosed, requestExpired, requestFull, requestHasSubmissions, requestNotCapture, requestNotFound } from './errors.js';
import { requestEvents, type RequestEvent, type RequestMode } from './events.js';

export { requestStream } from './events.js';

/** What an owner sets on a request (spec 2.7), in the events' names. */
export interface RequestSettings {
  subject: string;
  instructions: string;
  mode: RequestMode;
  expires_at: string;
  max_submissions: number;
  share_with_provider: boolean;
}

export type RequestCommand =
  | { type: 'Create'; settings: RequestSettings; token: string; token_sha256: string; now: Date }
  | { type: 'Update'; changes: Partial<RequestSettings>; close: boolean; now: Date }
  | { type: 'Delete'; now: Date }
  | { type: 'Submit'; verification_id: string; now: Date }
  /** A capture call (challenge, attestation) through the request's link: records nothing, or is refused. */
  | { type: 'AcceptCapture'; now: Date }
  | { type: 'Withdraw'; verification_id: string; reason: string; now: Date }
  /** The expiry workflow's timer fired for the `expires_at` it was scheduled for. */
  | { type: 'Expire'; expires_at: string; now: Date };

export type RequestState =
  | { status: 'none' | 'deleted' }
  | {
      status: 'open' | 'closed';
      settings: RequestSettings;
      closedAt: string | null;
      /** The verifications counted against max_submissions (withdrawn ones removed). */
      submissions: string[];
      /** The expires_at whose expiry is recorded (null: none, or the deadline moved since). */
      expiredFor: string | null;
    };

type Live = Extract<RequestState, { settings: RequestSettings }>;

const live = (state: RequestState): state is Live => state.status === 'open' || state.status === 'closed';

/** `expired` is derived (spec 3.3): an open request whose expires_at has passed, whatever was recorded. */
export const isExpired = (settings: Pick<RequestSettings, 'expires_at'>, now: Date): boolean => now.getTime() >= new Date(settings.expires_at).getTime();

/** The rules a request's settings keep whenever they change (the route's schema has checked each field's shape). */
function checkSettings(next: RequestSettings, submissions: number, changed: Partial<RequestSettings>, now: Date): void {
  if ('expires_at' in changed && !(new Date(next.expires_at).getTime() > now.getTime())) {
    throw invalidUpdate('expires_at must be in the future.', 'Give a date-time after now, with its time zone (e.g. 2026-12-31T23:59:00Z).');
  }
  if ('max_submissions' in changed && next.max_submissions < submissions) {
    throw invalidUpdate(`max_submissions cannot be below the ${submissions} submissions already received.`, `Give at least ${submissions}.`);
  }
}

/** Whether the request takes a submission now: open, before its deadline, with a place left (else the refusal). */
function assertAcceptsSubmissions(state: Live, now: Date): void {
  if (state.status === 'closed') throw requestClosed();
  if (isExpired(state.settings, now)) throw requestExpired(state.settings.expires_at);
  if (state.submissions.length >= state.settings.max_submissions) throw requestFull(state.settings.max_submissions);
}

export const requestDecider: Decider<RequestState, RequestCommand, typeof requestEvents> = {
  catalogue: requestEvents,
  initialState: () => ({ status: 'none' }),

  evolve(state, event): RequestState {
    switch (event.type) {
      case 'RequestCreated': {
        const { subject, instructions, mode, expires_at, max_submissions, share_with_provider } = event.data;
        return { status: 'open', settings: { subject, instructions, mode, expires_at, max_submissions, share_with_provider }, closedAt: null, submissions: [], expiredFor: null };
      }
      case 'RequestUpdated':
        if (!live(state)) return state;
        return { ...state, settings: { ...state.settings, ...event.data.changes }, expiredFor: event.data.changes.expires_at ? null : state.expiredFor };
      case 'RequestClosed':
        return live(state) ? { ...state, status: 'closed', closedAt: event.data.closed_at } : state;
      case 'RequestDeleted':
        return { status: 'deleted' };
      case 'RequestSubmissionReceived':
        return live(state) ? { ...state, submissions: [...state.submissions, event.data.verification_id] } : state;
      case 'RequestSubmissionWithdrawn':
        return live(state) ? { ...state, submissions: state.submissions.filter((id) => id !== event.data.verification_id) } : state;
      case 'RequestExpired':
        return live(state) ? { ...state, expiredFor: event.data.expires_at } : state;
      default:
        return assertNever(event);
    }
  },

  decide(command, state): RequestEvent[] {
    const at = command.now.toISOString();
    switch (command.type) {
      case 'Create':
        if (state.status !== 'none') return [];
        checkSettings(command.settings, 0, command.settings, command.now);
        return [{ type: 'RequestCreated', data: { ...command.settings, token: command.token, token_sha256: command.token_sha256, created_at: at } }];
      case 'Update': {
        if (!live(state)) throw requestNotFound();
        const changed = Object.fromEntries(
          Object.entries(command.changes).filter(([key, value]) => value !== undefined && state.settings[key as keyof RequestSettings] !== value),
        ) as Partial<RequestSettings>;
        if (state.status === 'closed') {
          // Terminal: closing again changes nothing; anything else is refused.
          if (Object.keys(changed).length === 0) return [];
          throw invalidUpdate('The request is closed: closing is terminal, nothing of it can change.', 'Create a new request.');
        }
        const events: RequestEvent[] = [];
        if (Object.keys(changed).length > 0) {
          checkSettings({ ...state.settings, ...changed }, state.submissions.length, changed, command.now);
          events.push({ type: 'RequestUpdated', data: { changes: changed, updated_at: at } });
        }
        if (command.close) events.push({ type: 'RequestClosed', data: { closed_at: at } });
        return events;
      }
      case 'Delete':
        if (!live(state)) throw requestNotFound();
        if (state.submissions.length > 0) throw requestHasSubmissions(state.submissions.length);
        return [{ type: 'RequestDeleted', data: { deleted_at: at } }];
      case 'Submit': {
        if (!live(state)) throw requestNotFound();
        assertAcceptsSubmissions(state, command.now);
        if (state.submissions.includes(command.verification_id)) return [];
        return [{ type: 'RequestSubmissionReceived', data: { verification_id: command.verification_id, submission_count: state.submissions.length + 1, received_at: at } }];
      }
      case 'AcceptCapture':
        // Only a capture request issues challenges and takes attestations, and only while it takes a submission.
        if (!live(state)) throw requestNotFound();
        if (state.settings.mode !== 'capture') throw requestNotCapture();
        assertAcceptsSubmissions(state, command.now);
        return [];
      case 'Withdraw':
        if (!live(state) || !state.submissions.includes(command.verification_id)) return [];
        return [{ type: 'RequestSubmissionWithdrawn', data: { verification_id: command.verification_id, submission_count: state.submissions.length - 1, reason: command.reason, withdrawn_at: at } }];
      case 'Expire':
        // Once per deadline, only for the deadline the timer was set for, only while open and due.
        if (state.status !== 'open' || state.settings.expires_at !== command.expires_at) return [];
        if (state.expiredFor === command.expires_at || !isExpired(state.settings, command.now)) return [];
        return [{ type: 'RequestExpired', data: { expires_at: command.expires_at, expired_at: at } }];
      default:
        return assertNever(command);
    }
  },
};
