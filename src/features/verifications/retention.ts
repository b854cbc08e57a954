/**
 * Data kept no longer than needed (issue 25, must-work 6), each step an event on the
 * verification's stream:
 * - RawFileDiscarded: a finished verification's RAW file is deleted (spec 1: "the RAW is used
 *   only for this check"); its hashes and metadata stay in the record, and the full-size
 *   `raw_rendition` the analysis kept is what the PSD export's RAW layer is made from.
 *   RAW_RETENTION=keep turns it off.
 * - ClaimWindowClosed: an anonymous verification still unclaimed 30 days after it was queued has
 *   its files deleted; the record stays, so a claim answers 410 CLAIM_EXPIRED.
 * Each records its event first and deletes the files in a step of its own after it, which deletes
 * whenever it finds the event recorded: a run killed between the two resumes at the deletion.
 * Deleting a missing file is not an error.
 */
import { streamCorrelations, systemContext } from '../../core/es/commands.js';
import type { BlobStore } from '../../core/blob-store.js';
import type { Config } from '../../core/config.js';
import { foldStream, runCommand, type Folded } from '../../core/es/decider.js';
import type { EventStore } from '../../core/es/event-store.js';
import type { ActivityImplementations, SweepSource } from '../../core/es/workflow.js';
import type { Logger } from 'pino';
import { CLAIM_WINDOW_MS, verificationDecider, verificationStream, type RenditionInput, type VerificationCommand, type VerificationState } from './decider.js';
import { claimWindowsDue, rawsToDiscard } from '../../../projections/verifications/index.js';
import type { RawDiscardActivities, RawDiscardInput, RawDiscardOutcome } from '../../../workflows/verifications/raw-discard-workflow.js';
import type { ClaimWindowActivities, ClaimWindowInput, ClaimWindowStep } from '../../../workflows/verifications/claim-window-workflow.js';

export interface RetentionDeps {
  store: EventStore;
  blobs: BlobStore;
  log: Logger;
  now: () => Date;
  config: Pick<Config, 'PROCESSING_REGION' | 'RAW_RETENTION'>;
  /**
   * Renders a RAW at full size as the analysis does (a lossless PNG; null when it cannot), off the
   * event loop: for a pair analysed before that rendering was kept. Without it such a pair keeps its RAW.
   */
  renderRaw?: (raw: Uint8Array, signal?: AbortSignal) => Promise<Uint8Array | null>;
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

  const load = (id: string) => foldStream(deps.store, verificationStream(id), verificationDecider);

  /** Records RawFileDiscarded for a finished verification (once); `discarded` when it is recorded, now or before. */
  async function recordRawDiscard(id: string, from?: Folded<VerificationState>, signal?: AbortSignal): Promise<RawDiscardOutcome> {
    if (deps.config.RAW_RETENTION === 'keep') return 'kept';
    const folded = from ?? (await load(id));
    const { state } = folded;
    if (state.rawDiscarded) return 'discarded';
    if (!state.raw || state.status === 'deleted') return 'nothing';
    // A pair analysed before the full-size rendering was kept: the rendering is made now, from the
    // RAW, and recorded with the discard; its PSD export needs it (D-189).
    const renditions: RenditionInput[] = [];
    if (needsRawForExport(state)) {
      if (!deps.renderRaw) return 'kept';
      const png = await deps.renderRaw(await deps.blobs.read(state.raw.blob_key), signal);
      if (png) {
        const key = `verifications/${id}/raw_rendition.png`;
        const stored = await deps.blobs.put(key, png);
        renditions.push({ kind: 'raw_rendition', blob_key: key, content_type: 'image/png', sha256: stored.sha256 });
      }
    }
    const after = await record(id, { type: 'DiscardRaw', renditions, now: deps.now() }, 'raw-retention', folded);
    if (!after.state.rawDiscarded) return 'nothing'; // not finished yet
    deps.log.info({ verification: id }, 'RAW file discarded');
    return 'discarded';
  }

  /** Deletes the RAW's file once RawFileDiscarded is recorded. */
  async function deleteRawFile(id: string, from?: Folded<VerificationState>): Promise<void> {
    const { state } = from ?? (await load(id));
    if (state.rawDiscarded && state.raw) await deps.blobs.delete(state.raw.blob_key);
  }

  return {
    recordRawDiscard,
    deleteRawFile,

    /**
     * Both steps at once, for the verification workflow's last steps (`from`: the state they just
     * recorded). A process killed between the two: the run resumes at its snapshot, which calls this again.
     */
    async discardRaw(id: string, from?: Folded<VerificationState>): Promise<RawDiscardOutcome> {
      const outcome = await recordRawDiscard(id, from);
      if (outcome === 'discarded') await deleteRawFile(id);
      return outcome;
    },

    /** Records ClaimWindowClosed for an anonymous verification still unclaimed when its window has ended (once). */
    async closeClaimWindow(id: string): Promise<ClaimWindowStep> {
      const folded = await load(id);
      const { state } = folded;
      if (state.filesExpired) return { outcome: 'closed' };
      if (state.status === 'none' || state.status === 'deleted' || !state.anonymous || !state.queuedAt) return { outcome: 'claimed' };
      const dueAt = state.queuedAt.getTime() + CLAIM_WINDOW_MS;
      if (deps.now().getTime() < dueAt) return { outcome: 'not_due', dueAt };
      const closed = await record(id, { type: 'CloseClaimWindow', now: deps.now() }, 'claim-window', folded);
      // A claim won the race: the record moved to an account and keeps its files.
      if (!closed.state.filesExpired) return { outcome: 'claimed' };
      deps.log.info({ verification: id }, 'claim window closed unclaimed');
      return { outcome: 'closed' };
    },

    /** Deletes the files of a verification whose ClaimWindowClosed is recorded. */
    async deleteExpiredFiles(id: string): Promise<void> {
      const { state } = await load(id);
      if (state.filesExpired) await Promise.all(keysAtClose(state).map((key) => deps.blobs.delete(key)));
    },
  };
}

/** A completed, registered pair with no raw_rendition (analysed by an earlier version): its PSD export's RAW layer needs its RAW, or a rendering made from it. */
function needsRawForExport(state: VerificationState): boolean {
  return state.status === 'completed' && state.mode === 'raw_pair' && !state.renditions.has('raw_rendition') && Boolean(state.graded?.rendition_info?.registration);
}

/** Every file the verification had: deleting one already gone is harmless, and the event's list may have been decided on a state older than `state`. */
function keysAtClose(state: VerificationState): string[] {
  return [state.image?.blob_key, state.raw?.blob_key, ...state.renditions.values()].filter((k): k is string => Boolean(k));
}

export type RetentionSteps = ReturnType<typeof createRetentionSteps>;

export function rawDiscardActivities(steps: RetentionSteps): ActivityImplementations<RawDiscardActivities> {
  return { recordRawDiscard: (context, id) => steps.recordRawDiscard(id, undefined, context.signal), deleteRawFile: (_context, id) => steps.deleteRawFile(id) };
}

export function claimWindowActivities(steps: RetentionSteps): ActivityImplementations<ClaimWindowActivities> {
  return { closeClaimWindow: (_context, id) => steps.closeClaimWindow(id), deleteExpiredFiles: (_context, id) => steps.deleteExpiredFiles(id) };
}

/** Finished verifications whose RAW is still kept (none with RAW_RETENTION=keep). */
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
