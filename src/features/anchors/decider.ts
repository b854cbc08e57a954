import type { Decider } from '../../core/es/decider.js';
import { assertNever } from '../../core/es/events.js';
import { anchorEvents, type AnchorEvent } from './events.js';

export { anchorStream } from './events.js';

type Sealed = Extract<AnchorEvent, { type: 'AnchorBatchSealed' }>['data'];

export type AnchorCommand =
  /** The batch as sealed (root computed, tree head signed) by the sealing activity. */
  | { type: 'Seal'; batch: Sealed }
  | { type: 'RecordTimestamp'; authority: string; token: string; now: Date }
  | { type: 'RecordTimestampFailure'; authority: string; reason: string; now: Date };

export type AnchorState =
  | { status: 'none' }
  | { status: 'sealed'; batch: Sealed; timestamp: 'pending' | 'granted' | 'failed' };

/**
 * A batch is sealed once (a second sealing, by a process racing the first or a run resumed after
 * a crash, records nothing: the first one's records and root stand), and its timestamp outcome
 * is recorded once: a token granted, or the failure after the last attempt.
 */
export const anchorDecider: Decider<AnchorState, AnchorCommand, typeof anchorEvents> = {
  catalogue: anchorEvents,
  initialState: () => ({ status: 'none' }),

  evolve(state, event): AnchorState {
    switch (event.type) {
      case 'AnchorBatchSealed':
        return { status: 'sealed', batch: event.data, timestamp: 'pending' };
      case 'AnchorBatchTimestamped':
        return state.status === 'sealed' ? { ...state, timestamp: 'granted' } : state;
      case 'AnchorTimestampFailed':
        return state.status === 'sealed' ? { ...state, timestamp: 'failed' } : state;
      default:
        return assertNever(event);
    }
  },

  decide(command, state): AnchorEvent[] {
    switch (command.type) {
      case 'Seal':
        return state.status === 'none' ? [{ type: 'AnchorBatchSealed', data: command.batch }] : [];
      case 'RecordTimestamp':
        if (state.status !== 'sealed' || state.timestamp !== 'pending') return [];
        return [{ type: 'AnchorBatchTimestamped', data: { authority: command.authority, token: command.token, timestamped_at: command.now.toISOString() } }];
      case 'RecordTimestampFailure':
        if (state.status !== 'sealed' || state.timestamp !== 'pending') return [];
        return [{ type: 'AnchorTimestampFailed', data: { authority: command.authority, reason: command.reason, failed_at: command.now.toISOString() } }];
      default:
        return assertNever(command);
    }
  },
};
