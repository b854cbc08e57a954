import type { Decider } from '../../core/es/decider.js';
import { assertNever } from '../../core/es/events.js';
import { claimExpired, verificationNotFound } from './errors.js';
import { verificationEvents, type FailureFault, type RenditionKind, type AnalysisData, type GradeData, type StoredFile, type VerificationEvent } from './events.js';

export { verificationStream } from './events.js';

/** A verification that has not finished this long after it was queued fails (spec: poll up to 10 min). */
export const VERIFICATION_DEADLINE_MS = 10 * 60_000;

/** A rendition's file, stored in the blob store before the command records it. */
export interface RenditionInput {
  kind: RenditionKind;
  blob_key: string;
  content_type: string;
  sha256: string;
}

/**
 * The workflow's commands each record one step's facts as one batch (one append, one
 * projection pass), in the order the facts happened: Grade the renditions made during the
 * analysis, the results and the grade; StoreRenditions the signed files; Complete the last
 * renditions and the completion.
 */
export type VerificationCommand =
  | { type: 'Queue'; data: Extract<VerificationEvent, { type: 'VerificationQueued' }>['data'] }
  | { type: 'Start'; now: Date }
  | { type: 'Grade'; renditions: RenditionInput[]; results: Omit<AnalysisData, 'recorded_at'>[]; grade: Omit<GradeData, 'graded_at'>; now: Date }
  | { type: 'StoreRenditions'; renditions: RenditionInput[]; now: Date }
  | { type: 'Complete'; renditions: RenditionInput[]; now: Date }
  | { type: 'Fail'; reason: string; fault: FailureFault; now: Date }
  | { type: 'Delete'; account_id: string; now: Date }
  | { type: 'Claim'; anonymous_account_id: string; new_owner_account_id: string; now: Date }
  /** `renditions`: the full-size rendering made just before, for a pair analysed before it was kept. */
  | { type: 'DiscardRaw'; renditions?: RenditionInput[]; now: Date }
  | { type: 'CloseClaimWindow'; now: Date };

export interface VerificationState {
  status: 'none' | 'queued' | 'in_progress' | 'completed' | 'failed' | 'deleted';
  accountId?: string;
  anonymous?: boolean;
  mode?: 'raw_pair' | 'image_only';
  queuedAt?: Date;
  shortCode?: string;
  image?: StoredFile;
  raw?: StoredFile | null;
  analyses: Set<string>;
  graded?: GradeData;
  renditions: Map<string, string>;
  /** Set once failed: the workflow's fail step releases the metering of a failure whose fault is the service's. */
  failureReason?: string;
  failureFault?: FailureFault;
  /** RawFileDiscarded recorded: the RAW's file is (or is about to be) gone. */
  rawDiscarded?: boolean;
  /** ClaimWindowClosed recorded: every file is (or is about to be) gone. */
  filesExpired?: boolean;
}

/** Anonymous records can be claimed for 30 days (spec 8); then their files go. */
export const CLAIM_WINDOW_MS = 30 * 86_400_000;

/**
 * Whether a record queued at `queuedAt` can still be claimed at `now`. The window's end is one
 * instant for both sides: from it a claim is refused (CLAIM_EXPIRED) and the window may be
 * closed, so a claim and the closing sweep at the same instant never both succeed.
 */
export const claimWindowOpen = (queuedAt: Date | string, now: Date): boolean => now.getTime() < new Date(queuedAt).getTime() + CLAIM_WINDOW_MS;

const terminal = (state: VerificationState) => state.status === 'completed' || state.status === 'failed' || state.status === 'deleted';
/** Whether the workflow's steps may still record facts: queued and not finished. */
const open = (state: VerificationState) => state.status !== 'none' && !terminal(state);

/** The items whose key is not among `recorded` (and the first of a key given twice). */
function unrecorded<T>(items: T[], key: (item: T) => string, recorded: Iterable<string>): T[] {
  const seen = new Set(recorded);
  return items.filter((item) => {
    const k = key(item);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** RenditionStored for each kind not stored yet. */
function renditionsStored(state: VerificationState, renditions: RenditionInput[], now: Date): VerificationEvent[] {
  return unrecorded(renditions, (r) => r.kind, state.renditions.keys()).map((r) => ({
    type: 'RenditionStored',
    data: { kind: r.kind, blob_key: r.blob_key, content_type: r.content_type, sha256: r.sha256, stored_at: now.toISOString() },
  }));
}

/** The files a verification still has: its image, its RAW unless discarded, its renditions (none once its claim window closed). */
function filesOf(state: VerificationState): string[] {
  if (state.filesExpired) return [];
  return [state.image?.blob_key, state.rawDiscarded ? undefined : state.raw?.blob_key, ...state.renditions.values()].filter((k): k is string => Boolean(k));
}

/**
 * Every workflow step is idempotent here, in the decider: a step already taken decides no
 * events. A workflow resumed after a crash can therefore repeat any step and the stream still
 * records each fact once (the append's expected revision settles races).
 */
export const verificationDecider: Decider<VerificationState, VerificationCommand, typeof verificationEvents> = {
  catalogue: verificationEvents,
  initialState: () => ({ status: 'none', analyses: new Set(), renditions: new Map() }),
  evolve(state, event) {
    switch (event.type) {
      case 'VerificationQueued':
        return {
          ...state,
          status: 'queued',
          accountId: event.data.account_id,
          anonymous: event.data.anonymous,
          mode: event.data.mode,
          queuedAt: new Date(event.data.queued_at),
          shortCode: event.data.short_code,
          image: event.data.image,
          raw: event.data.raw,
        };
      case 'VerificationStarted':
        return { ...state, status: 'in_progress' };
      case 'AnalysisRecorded':
        return { ...state, analyses: new Set([...state.analyses, event.data.analysis]) };
      case 'VerificationGraded':
        return { ...state, graded: event.data };
      case 'RenditionStored':
        return { ...state, renditions: new Map([...state.renditions, [event.data.kind, event.data.blob_key]]) };
      case 'VerificationCompleted':
        return { ...state, status: 'completed' };
      case 'VerificationFailed':
        return { ...state, status: 'failed', failureReason: event.data.failure_reason, failureFault: event.data.fault };
      case 'VerificationClaimed':
        return { ...state, accountId: event.data.new_owner_account_id, anonymous: false };
      case 'VerificationDeleted':
        return { ...state, status: 'deleted' };
      case 'RawFileDiscarded':
        return { ...state, rawDiscarded: true };
      case 'ClaimWindowClosed':
        return { ...state, filesExpired: true, rawDiscarded: state.raw ? true : state.rawDiscarded };
      default:
        return assertNever(event);
    }
  },
  decide(command, state): VerificationEvent[] {
    switch (command.type) {
      case 'Queue':
        return state.status === 'none' ? [{ type: 'VerificationQueued', data: command.data }] : [];
      case 'Start':
        return state.status === 'queued' ? [{ type: 'VerificationStarted', data: { started_at: command.now.toISOString() } }] : [];
      case 'Grade': {
        if (!open(state) || state.graded) return [];
        // A run killed between the separate appends of earlier versions may have recorded some already.
        return [
          ...renditionsStored(state, command.renditions, command.now),
          ...unrecorded(command.results, (r) => r.analysis, state.analyses).map((r) => ({ type: 'AnalysisRecorded' as const, data: { ...r, recorded_at: command.now.toISOString() } })),
          { type: 'VerificationGraded', data: { ...command.grade, graded_at: command.now.toISOString() } },
        ];
      }
      case 'StoreRenditions':
        return open(state) ? renditionsStored(state, command.renditions, command.now) : [];
      case 'Complete':
        if (!open(state) || !state.graded) return [];
        return [...renditionsStored(state, command.renditions, command.now), { type: 'VerificationCompleted', data: { completed_at: command.now.toISOString() } }];
      case 'Fail':
        if (!open(state)) return [];
        return [{ type: 'VerificationFailed', data: { failure_reason: command.reason, fault: command.fault, failed_at: command.now.toISOString() } }];
      case 'Delete': {
        if (state.status === 'none' || state.status === 'deleted' || state.accountId !== command.account_id) {
          throw verificationNotFound();
        }
        return [{ type: 'VerificationDeleted', data: { deleted_at: command.now.toISOString(), blob_keys: filesOf(state) } }];
      }
      case 'DiscardRaw':
        // Once finished (completed or failed) the RAW has served its check; a record whose files went with its claim window has none left.
        if ((state.status !== 'completed' && state.status !== 'failed') || !state.raw || state.rawDiscarded) return [];
        return [
          ...renditionsStored(state, command.renditions ?? [], command.now),
          { type: 'RawFileDiscarded', data: { blob_key: state.raw.blob_key, sha256: state.raw.sha256, discarded_at: command.now.toISOString() } },
        ];
      case 'CloseClaimWindow':
        // Only a record still anonymous (unclaimed), not deleted, whose window has run out.
        if (state.status === 'none' || state.status === 'deleted' || !state.anonymous || state.filesExpired || !state.queuedAt) return [];
        if (claimWindowOpen(state.queuedAt, command.now)) return [];
        return [{ type: 'ClaimWindowClosed', data: { closed_at: command.now.toISOString(), blob_keys: filesOf(state) } }];
      case 'Claim':
        // Only a record still owned by that anonymous id moves; anything else is not this claim's.
        if (state.status === 'none' || state.status === 'deleted' || !state.anonymous || state.accountId !== command.anonymous_account_id) return [];
        // A record whose window has ended, or was closed (by a sweep that won the stream's revision), stays with its anonymous owner.
        if (state.filesExpired || !state.queuedAt || !claimWindowOpen(state.queuedAt, command.now)) throw claimExpired();
        return [
          {
            type: 'VerificationClaimed',
            data: { previous_owner_account_id: command.anonymous_account_id, new_owner_account_id: command.new_owner_account_id, claimed_at: command.now.toISOString() },
          },
        ];
      default:
        return assertNever(command);
    }
  },
};
