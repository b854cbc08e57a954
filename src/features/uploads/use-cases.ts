import type { Readable } from 'node:stream';
import { BlobTooLargeError, type UploadedFile } from '../../core/blob-store.js';
import { commandContext, execute, systemContext } from '../../core/es/commands.js';
import { foldStream } from '../../core/es/decider.js';
import type { AppDeps } from '../../core/module/deps.js';
import { AppError } from '../../core/errors.js';
import type { Call } from '../../core/principal.js';
import { uploadDecider, uploadStream } from './decider.js';
import { uploadAlreadyReceived, uploadExpired, uploadNotFound } from './errors.js';
import { UPLOAD_TTL_SECONDS } from '../../../workflows/uploads/policy.js';
import { issueUploadId, readUploadId, uploadBlobKey, type UploadClaims } from './tokens.js';
import { UPLOAD_EXPIRY_WORKFLOW_TYPE } from '../../../workflows/uploads/workflow.js';

export interface UploadTicket {
  upload_id: string;
  upload_url: string;
  method: 'PUT';
  expires_at: string;
  max_bytes: number;
}

/**
 * A pre-signed URL to which the caller PUTs one file too large to pass inline; its id then
 * stands for the file in a verification. Keyless callers are admitted only while their
 * address still has keyless verifications left (the upload itself is not counted).
 */
export async function createUpload(deps: AppDeps, call: Call, filename: string): Promise<UploadTicket> {
  if (!call.principal) await deps.anonymousLimiter.check(call.clientAddress, 'anonymous uploads from this address');
  const expires = Math.floor(deps.now().getTime() / 1000) + UPLOAD_TTL_SECONDS;
  const { id } = issueUploadId(deps.urlSigner, { owner: call.principal?.accountId ?? null, filename, expires });
  return {
    upload_id: id,
    upload_url: `${deps.urlSigner.base}/uploads/${id}`,
    method: 'PUT',
    expires_at: new Date(expires * 1000).toISOString(),
    max_bytes: deps.config.MAX_UPLOAD_BYTES,
  };
}

function genuine(deps: AppDeps, uploadId: string): UploadClaims {
  const claims = readUploadId(deps.urlSigner, uploadId);
  if (!claims) throw uploadNotFound();
  if (claims.expires * 1000 < deps.now().getTime()) throw uploadExpired();
  return claims;
}

/**
 * Receives the file of a pre-signed upload (the URL is the only credential). Once per id: the
 * UploadReceived append decides it (two racing PUTs: one 409), before the file is committed, so
 * every stored upload file is recorded and its expiry workflow can delete it if it goes unused.
 */
export async function receiveUpload(deps: AppDeps, call: Call, uploadId: string, body: Readable): Promise<{ upload_id: string; size: number; sha256: string }> {
  const claims = genuine(deps, uploadId);
  const stream = uploadStream(claims.nonce);
  const key = uploadBlobKey(claims);
  const folded = await foldStream(deps.store, stream, uploadDecider);
  if (folded.state.status !== 'none' || (await deps.blobs.exists(key))) {
    body.resume();
    throw uploadAlreadyReceived();
  }
  let staged;
  try {
    staged = await deps.blobs.stage(body, { maxBytes: deps.config.MAX_UPLOAD_BYTES });
  } catch (error) {
    if (error instanceof BlobTooLargeError) {
      throw new AppError('PAYLOAD_TOO_LARGE', `The file is larger than the limit of ${error.limit} bytes.`, { suggestion: 'Upload a smaller file.', details: { limit_bytes: error.limit } });
    }
    throw error;
  }
  const expiresAt = new Date(claims.expires * 1000).toISOString();
  // The URL is the credential, whoever holds it sends the file; the upload belongs to the account that created it.
  const context = systemContext(deps, { actor: { type: 'anonymous', id: 'anonymous' }, correlationId: call.correlationId, accountId: claims.owner });
  try {
    await execute(deps, call, stream, uploadDecider, { type: 'Receive', filename: claims.filename, size: staged.size, sha256: staged.sha256, blob_key: key, expires_at: expiresAt, now: context.now }, context, folded);
  } catch (error) {
    await staged.discard();
    throw error;
  }
  const stored = await staged.commit(key);
  // Recorded is enough: if the start is not, the workflow sweep starts it from the read model.
  await deps.workflows
    .start(UPLOAD_EXPIRY_WORKFLOW_TYPE, claims.nonce, { expires_at: expiresAt })
    .catch((error) => deps.log.warn({ err: error }, 'upload expiry workflow not started; the sweep will start it'));
  return { upload_id: uploadId, size: stored.size, sha256: stored.sha256 };
}

/**
 * Stages the received file of an upload id as a verification input, for the caller who
 * created it only (an account's ids for that account, keyless ids for keyless calls). Another
 * caller's id is indistinguishable from an unknown one. Once the verification holds its own copy,
 * `release(verificationId)` records the use and deletes the upload's file.
 */
export async function openUpload(
  deps: AppDeps,
  call: Call,
  uploadId: string,
  field: string,
): Promise<{ file: UploadedFile; release: (verificationId: string) => Promise<void> }> {
  const claims = genuine(deps, uploadId);
  if (claims.owner !== (call.principal?.accountId ?? null)) throw uploadNotFound();
  const stream = uploadStream(claims.nonce);
  const { state } = await foldStream(deps.store, stream, uploadDecider);
  if (state.status === 'expired') throw uploadExpired();
  if (state.status === 'used') throw uploadNotFound();
  const key = uploadBlobKey(claims);
  if (!(await deps.blobs.exists(key))) throw uploadNotFound();
  const staged = await deps.blobs.stage(deps.blobs.stream(key), { maxBytes: deps.config.MAX_UPLOAD_BYTES });
  const release = async (verificationId: string) => {
    try {
      await execute(deps, call, stream, uploadDecider, { type: 'Use', verification_id: verificationId, now: deps.now() }, commandContext(deps, call));
    } catch (error) {
      // The verification has its copy whatever happens here; the upload's own file goes either way.
      deps.log.warn({ err: error, verification: verificationId }, 'use of an upload not recorded');
    }
    await deps.blobs.delete(key);
  };
  return { file: { field, filename: claims.filename, staged }, release };
}
