import crypto from 'node:crypto';
import { commandContext, execute } from '../../core/commands.js';
import { foldStream } from '../../core/decider.js';
import type { AppDeps } from '../../core/deps.js';
import { AppError } from '../../core/errors.js';
import { callerOf, type Call, type Principal } from '../../core/principal.js';
import { assertPsdExportAllowed, releasePsdExport } from '../usage/index.js';
import { findVerification, verificationNotFound, type VerificationRow } from '../verifications/index.js';
import { psdExportDecider, psdExportStream, type PsdExportCommand } from './decider.js';
import { psdExportNotFound } from './errors.js';
import { findPsdExportStatus } from './queries.js';
import type { PsdExportStatusView } from './view.js';
import { PSD_EXPORT_WORKFLOW_TYPE } from '../../../workflows/psd-export/workflow.js';

/** Content type of the signed download (Adobe's registered media type for PSD). */
export const PSD_CONTENT_TYPE = 'image/vnd.adobe.photoshop';

/**
 * Lifetime of a download's signed URL: short, because each download counts against the 5 of an
 * export and the URL is the credential (a long-lived one could be passed around as a sixth
 * download). Five minutes start a large file on a slow link; the transfer may outlast it.
 */
export const PSD_DOWNLOAD_URL_TTL_SECONDS = 300;

/** The longest `wait` of POST …/psd-export (spec 8). */
export const MAX_WAIT_SECONDS = 20;

/** The caller's verification (another account's looks missing), or null. */
async function ownedRow(deps: AppDeps, principal: Principal, verificationId: string): Promise<VerificationRow | null> {
  const row = await findVerification(deps.knex, verificationId);
  return row && row.account_id === principal.accountId ? row : null;
}

async function currentStatus(deps: AppDeps, verificationId: string): Promise<PsdExportStatusView | undefined> {
  return (await findPsdExportStatus(deps.knex, verificationId)) as PsdExportStatusView | undefined;
}

/**
 * Requests the PSD export of the caller's completed RAW+JPEG verification (spec 3.2). Idempotent:
 * an export that exists and has neither failed nor expired is answered unchanged, with nothing
 * charged or reserved. A new export is checked against the plan and budget (usage reserves its
 * place, so concurrent requests never pass the cap) before it is recorded; a regeneration (after
 * a failure or the expiry) is free. `waitSeconds` (0-20) long-polls: the answer goes out as soon
 * as the export completes or fails, or when the wait is over.
 */
export async function requestPsdExport(deps: AppDeps, call: Call, verificationId: string, waitSeconds: number): Promise<PsdExportStatusView> {
  const principal = callerOf(call);
  const row = await ownedRow(deps, principal, verificationId);
  if (!row) throw verificationNotFound();
  const stream = psdExportStream(verificationId);
  const folded = await foldStream(deps.store, stream, psdExportDecider);
  const context = commandContext(deps, call);
  const exportId = crypto.randomUUID();
  const command: PsdExportCommand = { type: 'Request', export_id: exportId, verification: { status: row.status, mode: row.verification_mode }, now: context.now };
  // What the request would record (pure): 409 for a verification that cannot be exported comes first.
  const [wouldRecord] = psdExportDecider.decide(command, folded.state);
  if (wouldRecord?.type === 'PsdExportRequested') {
    const charge = { accountId: row.account_id, exportId, requestedAt: context.now };
    await assertPsdExportAllowed(deps, context, { accountId: row.account_id, verificationId, exportId, regeneration: wouldRecord.data.regeneration });
    let recorded = false;
    try {
      const outcome = await execute(deps, call, stream, psdExportDecider, command, context, folded);
      recorded = outcome.events.some((e) => e.type === 'PsdExportRequested' && e.data.export_id === exportId);
    } finally {
      // A concurrent request made the export first (or the append failed): this one's reservation goes back.
      if (!recorded) await releasePsdExport(deps, context, charge);
    }
    if (recorded) {
      // Recorded is enough: if the start is not, the workflow sweep starts it from the read model.
      await deps.workflows
        .start(PSD_EXPORT_WORKFLOW_TYPE, exportId, { verification_id: verificationId })
        .catch((error) => deps.log.warn({ err: error, verification: verificationId }, 'PSD export workflow not started; the sweep will start it'));
    }
  }
  if (waitSeconds > 0) await untilEnded(deps, verificationId, Math.min(waitSeconds, MAX_WAIT_SECONDS) * 1000);
  const status = await currentStatus(deps, verificationId);
  if (!status) {
    // Recorded, but the read models have not caught up within READ_MODEL_WAIT_MS.
    throw new AppError('SERVICE_UNAVAILABLE', 'The export is requested, but its status cannot be read yet.', {
      suggestion: 'Read it with GET /v1/verifications/{verification_id}/psd-export in a second.',
      details: { retry_after_seconds: 1 },
    });
  }
  return status;
}

const ended = (status: PsdExportStatusView | undefined) => status !== undefined && (status.status === 'completed' || status.status === 'failed');

/**
 * Resolves when the verification's export has completed or failed, as the read models say, or
 * after `ms`. Woken by the read models applying the export's events, not by polling.
 */
async function untilEnded(deps: AppDeps, verificationId: string, ms: number): Promise<void> {
  const stream = psdExportStream(verificationId);
  let wake: () => void = () => undefined;
  const woken = () => new Promise<void>((resolve) => (wake = resolve));
  let next = woken();
  const unsubscribe = deps.readModels.onApplied((events) => {
    if (events.some((e) => e.stream === stream)) wake();
  });
  let handle: NodeJS.Timeout | undefined;
  const timer = new Promise<'timeout'>((resolve) => (handle = setTimeout(resolve, ms, 'timeout')));
  try {
    for (;;) {
      // Read after subscribing: an end applied in between is seen here or wakes the wait.
      if (ended(await currentStatus(deps, verificationId))) return;
      if ((await Promise.race([next, timer])) === 'timeout') return;
      next = woken();
    }
  } finally {
    clearTimeout(handle);
    unsubscribe();
  }
}

/** The status of the caller's verification's export (404 PSD_EXPORT_NOT_FOUND: no such verification of theirs, or none requested). */
export async function getPsdExport(deps: AppDeps, principal: Principal, verificationId: string): Promise<PsdExportStatusView> {
  if (!(await ownedRow(deps, principal, verificationId))) throw psdExportNotFound();
  const status = await currentStatus(deps, verificationId);
  if (!status) throw psdExportNotFound();
  return status;
}

/**
 * One download of the caller's completed export: recorded first (one of 5; decided on the stream
 * with optimistic concurrency, so concurrent downloads in any process never pass 5), then a
 * signed URL of the file, valid PSD_DOWNLOAD_URL_TTL_SECONDS. `countIt` false (a HEAD request)
 * checks the same conditions and records nothing: it gets no URL.
 */
export async function downloadPsdExport(deps: AppDeps, call: Call, verificationId: string, countIt = true): Promise<string | null> {
  const principal = callerOf(call);
  if (!(await ownedRow(deps, principal, verificationId))) throw psdExportNotFound();
  const stream = psdExportStream(verificationId);
  const context = commandContext(deps, call);
  const urlExpiresAt = new Date(context.now.getTime() + PSD_DOWNLOAD_URL_TTL_SECONDS * 1000);
  const command: PsdExportCommand = { type: 'Download', now: context.now, url_expires_at: urlExpiresAt };
  if (!countIt) {
    psdExportDecider.decide(command, (await foldStream(deps.store, stream, psdExportDecider)).state);
    return null;
  }
  const { state } = await execute(deps, call, stream, psdExportDecider, command, context);
  if (state.status !== 'completed' || !state.file) throw new Error(`a recorded download of ${verificationId} left the export ${state.status}`);
  return deps.urlSigner.sign(state.file.blob_key, { now: context.now, ttlSeconds: PSD_DOWNLOAD_URL_TTL_SECONDS, contentType: PSD_CONTENT_TYPE });
}
