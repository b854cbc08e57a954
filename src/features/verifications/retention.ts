/**
 * Data kept no longer than needed (issue 25, must-work 6), each step an event on the
 * verification's stream:
 * - RawFileDiscarded: a finished verification's RAW file is deleted (spec 1: "the RAW is used
 *   only for this check"); its hashes and metadata stay in the record, and the full-size
 *   `raw_rendition` the analysis kept is what the PSD export's RAW layer is made from.
 *   RAW_RETENTION=keep turns it off.
 * - ClaimWindowClosed: an anonymous verification still unclaimed 30 days after it was queued has
 *   its files deleted; the record stays, so a claim answers 410 CLAIM_EXPIRED.
 * Each step records its event first and deletes the files after, and deletes them again whenever
 * it finds the event recorded: a process killed between the two leaves files that the step's
 * retry (or its sweep's run) removes. Deleting a missing file is not an error.
 */
import { streamCorrelations, systemContext } from '../../core/commands.js';
import type { BlobStore } from '../../core/blob-store.js';
import type { Config } from '../../core/config.js';
import { foldStream, runCommand, type Folded } from '../../core/decider.js';
import type { EventStore } from '../../core/event-store.js';
import type { ActivityImplementations, SweepSource } from '../../core/workflow.js';
import type { Logger } from 'pino';
import { CLAIM_WINDOW_MS, verificationDecider, verificationStream, type VerificationCommand, type VerificationState } from './decider.js';
import { claimWindowsDue, rawsToDiscard } from './queries.js';
import type { RawDiscardActivities, RawDiscardInput, RawDiscardOutcome } from '../../../workflows/retention/raw-discard-workflow.js';
import type { ClaimWindowActivities, ClaimWindowInput, ClaimWindowStep } from '../../../workflows/retention/claim-window-workflow.js';

export interface RetentionDeps {
  store: EventStore;
  blobs: BlobStore;
  log: Logger;
  now: () => Date;
  config: Pick<Config, 'PROCESSING_REGION' | 'RAW_RETENTION'>;
}

/** The end of an anonymous verification's claim window (queued_at + 30 days). */
export const claimWindowClosesAt = (queuedAt: Date | string): string => new Date(new Date(queuedAt).getTime() + CLAIM_WINDOW_MS).toISOString();

export function createRetentionSteps(deps: RetentionDeps) {
  const correlationOf = streamCorrelations(deps.store);

  /** Records a retention step as the system, under the correlation id of the upload that began the verification. */
  async function record(id: string, command: VerificationCommand, actor: string, from: Folded<VerificationState>): Promise<Folded<VerificationState>> {
    const stream = verificationStream(id);
    const ctx = systemContext(deps, { actor: { type: 'system', id: actor }, correlationId: await correlationOf(stream, id), accountId: from.state.accountId ?? null });
    return runCommand(deps.store, stream, verificationDecider, command, ctx, from);
  }

  return {
    /**
     * Discards a finished verification's RAW file: RawFileDiscarded once, then the file (again
     * on every call once recorded: a crash may have come between). `from`: the state the caller
     * just recorded, when it has it (the verification workflow's last steps).
     */
    async discardRaw(id: string, from?: Folded<VerificationState>): Promise<RawDiscardOutcome> {
      if (deps.config.RAW_RETENTION === 'keep') return 'kept';
      const folded = from ?? (await foldStream(deps.store, verificationStream(id), verificationDecider));
      const { state } = folded;
      if (!state.raw || state.status === 'deleted') return 'nothing';
      // A pair analysed before the full-size rendering was kept: its RAW is its PSD export's only RAW layer (decisions-RETAIN).
      if (!state.rawDiscarded && needsRawForExport(state)) return 'kept';
      const after = state.rawDiscarded ? folded : await record(id, { type: 'DiscardRaw', now: deps.now() }, 'raw-retention', folded);
      if (!after.state.rawDiscarded) return 'nothing'; // not finished yet
      await deps.blobs.delete(state.raw.blob_key);
      if (!state.rawDiscarded) deps.log.info({ verification: id }, 'RAW file discarded');
      return 'discarded';
    },

    /** Closes an anonymous verification's claim window when due and unclaimed: ClaimWindowClosed once, then its files. */
    async closeClaimWindow(id: string): Promise<ClaimWindowStep> {
      const folded = await foldStream(deps.store, verificationStream(id), verificationDecider);
      const { state } = folded;
      if (state.status === 'none' || state.status === 'deleted' || !state.queuedAt) return { outcome: 'claimed' };
      let closed = state.filesExpired ? folded : undefined;
      if (!closed) {
        if (!state.anonymous) return { outcome: 'claimed' };
        const dueAt = state.queuedAt.getTime() + CLAIM_WINDOW_MS;
        if (deps.now().getTime() < dueAt) return { outcome: 'not_due', dueAt };
        closed = await record(id, { type: 'CloseClaimWindow', now: deps.now() }, 'claim-window', folded);
        // A claim won the race: the record moved to an account and keeps its files.
        if (!closed.state.filesExpired) return { outcome: 'claimed' };
      }
      await Promise.all(keysAtClose(state).map((key) => deps.blobs.delete(key)));
      if (!state.filesExpired) deps.log.info({ verification: id }, 'claim window closed: files deleted');
      return { outcome: 'closed' };
    },
  };
}

/** A completed, registered pair with no raw_rendition (analysed by an earlier version): only its RAW can make its PSD export's RAW layer. */
function needsRawForExport(state: VerificationState): boolean {
  return state.status === 'completed' && state.mode === 'raw_pair' && !state.renditions.has('raw_rendition') && Boolean(state.graded?.rendition_info?.registration);
}

/** Every file the verification had: deleting one already gone is harmless, and the event's list may have been decided on a state older than `state`. */
function keysAtClose(state: VerificationState): string[] {
  return [state.image?.blob_key, state.raw?.blob_key, ...state.renditions.values()].filter((k): k is string => Boolean(k));
}

export type RetentionSteps = ReturnType<typeof createRetentionSteps>;

export function rawDiscardActivities(steps: RetentionSteps): ActivityImplementations<RawDiscardActivities> {
  return { discardRawFile: (_context, id) => steps.discardRaw(id) };
}

export function claimWindowActivities(steps: RetentionSteps): ActivityImplementations<ClaimWindowActivities> {
  return { closeClaimWindow: (_context, id) => steps.closeClaimWindow(id) };
}

/** Finished verifications whose RAW is still kept (none with RAW_RETENTION=keep; not those whose PSD export still needs it). */
export function rawDiscardSweep(config: Pick<Config, 'RAW_RETENTION'>) {
  return async ({ knex }: SweepSource): Promise<{ id: string; input: RawDiscardInput }[]> =>
    config.RAW_RETENTION === 'keep' ? [] : (await rawsToDiscard(knex)).map((id) => ({ id, input: {} }));
}

/**
 * Unclaimed anonymous verifications whose window has ended with their files still kept: a
 * creation whose `start` a crash cut off, or a run that failed. Only those due (a start per open
 * window every sweep would cost a call each on Temporal).
 */
export async function claimWindowSweep({ knex, now }: SweepSource): Promise<{ id: string; input: ClaimWindowInput }[]> {
  const rows = await claimWindowsDue(knex, new Date(now.getTime() - CLAIM_WINDOW_MS));
  return rows.map((r) => ({ id: r.id, input: { closes_at: claimWindowClosesAt(r.created_at) } }));
}
