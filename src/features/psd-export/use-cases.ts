import crypto from 'node:crypto';
import { commandContext, execute } from '../../core/es/commands.js';
import { foldStream } from '../../core/es/decider.js';
import type { AppDeps } from '../../core/module/deps.js';
import { assertMayChange, callerOf, type Call, type Principal } from '../../core/principal.js';
import { assertPsdExportAllowed, releasePsdExport } from '../usage/index.js';
import { findVerification, verificationNotFound, type VerificationRow } from '../verifications/index.js';
import { psdExportDecider, psdExportStream, type ExportableFacts, type PsdExportCommand } from './decider.js';
import { psdExportNotFound } from './errors.js';
import { canvasOf } from './psd-file.js';
import { findPsdExportStatus } from '../../../projections/psd-export/index.js';
import { psdExportStatusOf, type PsdExportStatusView } from './view.js';
import { PSD_EXPORT_WORKFLOW_TYPE } from '../../../workflows/psd-export/workflow.js';
import { PSD_DOWNLOADS_LIMIT } from '../../../workflows/psd-export/policy.js';

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
  return (await findPsdExportStatus(deps.knex, verificationId, PSD_DOWNLOADS_LIMIT)) as PsdExportStatusView | undefined;
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
  let folded = await foldStream(deps.store, stream, psdExportDecider);
  const context = commandContext(deps, call);
  const exportId = crypto.randomUUID();
  const command: PsdExportCommand = { type: 'Request', export_id: exportId, verification: exportableFacts(row), now: context.now };
  // What the request would record (pure): 409 for a verification that cannot be exported, 422 for a canvas too large, come first.
  const [wouldRecord] = psdExportDecider.decide(command, folded.state);
  if (wouldRecord?.type === 'PsdExportRequested') {
    const charge = { accountId: row.account_id, exportId, requestedAt: context.now };
    await assertPsdExportAllowed(deps, context, { accountId: row.account_id, verificationId, exportId, regeneration: wouldRecord.data.regeneration });
    let recorded = false;
    try {
      const outcome = await execute(deps, call, stream, psdExportDecider, command, context, folded);
      recorded = outcome.events.some((e) => e.type === 'PsdExportRequested' && e.data.export_id === exportId);
      // The stream as the command left it: a concurrent request that recorded the export first is in it.
      folded = { state: outcome.state, revision: folded.revision };
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
  let state = folded.state;
  if (waitSeconds > 0 && !ended(psdExportStatusOf(state))) {
    await untilEnded(deps, verificationId, Math.min(waitSeconds, MAX_WAIT_SECONDS) * 1000);
    state = (await foldStream(deps.store, stream, psdExportDecider)).state;
  }
  // From the stream (the command's outcome, or the stream read after the wait), never a read model that may lag.
  const status = psdExportStatusOf(state);
  if (!status) throw new Error(`the PSD export stream of ${verificationId} holds no export after its request was decided`);
  return status;
}

/** What the decision needs of the verification, from its row: state, mode and the photo's size (the canvas). */
const exportableFacts = (row: VerificationRow): ExportableFacts => ({ status: row.status, mode: row.verification_mode, canvas: canvasOf(row) });

const ended = (status: PsdExportStatusView | undefined) => status !== undefined && (status.status === 'completed' || status.status === 'failed');

/**
 * Resolves when the verification's export has completed or failed, as its stream says, or after
 * `ms`. Woken by the read models applying the export's events, not by polling.
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
      if (ended(psdExportStatusOf((await foldStream(deps.store, stream, psdExportDecider)).state))) return;
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
  // Spends one of the export's downloads: a change, which a read-scope key may not make (REST and MCP alike).
  assertMayChange(principal, 'download the PSD (each download spends one of its 5)');
  const { state } = await execute(deps, call, stream, psdExportDecider, command, context);
  if (state.status !== 'completed' || !state.file) throw new Error(`a recorded download of ${verificationId} left the export ${state.status}`);
  return deps.urlSigner.sign(state.file.blob_key, { now: context.now, ttlSeconds: PSD_DOWNLOAD_URL_TTL_SECONDS, contentType: PSD_CONTENT_TYPE });
}
