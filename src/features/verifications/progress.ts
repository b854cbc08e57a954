import type { AppDeps } from '../../core/module/deps.js';
import type { Principal } from '../../core/principal.js';
import type { AssuranceLevel } from '../../analysis/types.js';
import { verificationStream } from './events.js';
import { getVerification } from './use-cases.js';
import { FAILED_LABEL } from './failure.js';
import { levelWords } from './words.js';

/**
 * A verification's progress as its page shows it live (issue 39 item 5): the steps its event log
 * has reached, read from the read model the page itself renders from (GET /v1/verifications/{id}'s
 * status and assurance level), so that what the live line says and what the page shows after it
 * reloads can never disagree (a line ahead of the read model once showed "Analysing" above the
 * final verdict). The steps are the ones the log records: the files received (VerificationQueued),
 * the analysis started (VerificationStarted), graded (VerificationGraded: the RAW decode and every
 * comparison are one recorded step, with their results), and finished (VerificationCompleted or
 * VerificationFailed).
 */

export const PROGRESS_STEPS = ['received', 'analysing', 'graded', 'finished'] as const;
export type ProgressStep = (typeof PROGRESS_STEPS)[number];

export const progressStepWords: Record<ProgressStep, string> = {
  received: 'Files received',
  analysing: 'Analysing: RAW decoded and compared with the photo',
  graded: 'Graded',
  finished: 'Report ready',
};

export interface VerificationProgress {
  status: 'pending' | 'queued' | 'in_progress' | 'completed' | 'failed';
  /** The steps reached, in order. */
  reached: ProgressStep[];
  assurance_level: AssuranceLevel | null;
  /** The pill's label (levelWords; a failure's own words), or null before the grade. */
  label: string | null;
}

/** Pure: the steps a verification's status and level say it has reached. */
export function progressOf(view: { status: string; assurance_level: string | null }): VerificationProgress {
  const status = view.status as VerificationProgress['status'];
  const level = status === 'failed' ? null : ((view.assurance_level as AssuranceLevel | null) ?? null);
  const finished = status === 'completed' || status === 'failed';
  const reached: ProgressStep[] = [];
  if (status !== 'pending') reached.push('received');
  if (status === 'in_progress' || finished) reached.push('analysing');
  if (level !== null) reached.push('graded');
  if (finished) reached.push('finished');
  return { status, reached, assurance_level: level, label: status === 'failed' ? FAILED_LABEL : level ? levelWords[level].label : null };
}

export const isFinished = (progress: VerificationProgress) => progress.status === 'completed' || progress.status === 'failed';

/** How often the read model is read again when nothing woke the follower (events applied by another instance's projector). */
export const PROGRESS_RECHECK_MS = 5_000;

/**
 * Follows the caller's verification: `send` gets its progress now and each time it changes,
 * until it is finished or `signal` aborts. Woken by the read models applying an event of its
 * stream (this process's projector), and in any case every PROGRESS_RECHECK_MS. The first read is
 * the use case's, so another account's verification is its 404 before anything is sent.
 */
export async function followProgress(deps: AppDeps, principal: Principal, id: string, send: (progress: VerificationProgress) => void, signal: AbortSignal): Promise<void> {
  const read = async () => progressOf((await getVerification(deps, principal, id)) as unknown as { status: string; assurance_level: string | null });
  const stream = verificationStream(id);
  let wake: () => void = () => undefined;
  const unsubscribe = deps.readModels.onApplied((events) => {
    if (events.some((e) => e.stream === stream)) wake();
  });
  const onAbort = () => wake();
  signal.addEventListener('abort', onAbort);
  try {
    let last = '';
    while (!signal.aborted) {
      // Subscribed before reading: an event applied in between wakes the wait below.
      const woken = new Promise<void>((resolve) => (wake = resolve));
      const progress = await read();
      const text = JSON.stringify(progress);
      if (text !== last) {
        send(progress);
        last = text;
      }
      if (isFinished(progress)) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([woken, new Promise<void>((resolve) => (timer = setTimeout(resolve, PROGRESS_RECHECK_MS)))]);
      clearTimeout(timer);
    }
  } finally {
    unsubscribe();
    signal.removeEventListener('abort', onAbort);
  }
}
