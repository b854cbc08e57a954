import type { Readable } from 'node:stream';
import { BlobTooLargeError, type UploadedFile } from '../../core/blob-store.js';
import type { AppDeps } from '../../core/deps.js';
import { AppError, NotFoundError } from '../../core/errors.js';
import type { Call } from '../../core/principal.js';
import { issueUploadId, readUploadId, uploadBlobKey, type UploadClaims } from './tokens.js';

/** Upload URLs, like every pre-signed URL of the service, last 1 hour (spec 8). */
const UPLOAD_TTL_SECONDS = 3600;

export interface UploadTicket {
  upload_id: string;
  upload_url: string;
  method: 'PUT';
  expires_at: string;
  max_bytes: number;
}

const notFound = () =>
  new NotFoundError('UPLOAD_NOT_FOUND', 'No file was received for this upload id, or it is not yours, or it has been used.', {
    suggestion: 'Call create_upload, PUT the file to the upload_url it returns, then pass the upload_id.',
  });

const expired = () =>
  new AppError('UPLOAD_EXPIRED', 'This upload id is older than its 1-hour validity.', { suggestion: 'Call create_upload again and send the file to the new URL.' });

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
  if (!claims) throw notFound();
  if (claims.expires * 1000 < deps.now().getTime()) throw expired();
  return claims;
}

/** Receives the file of a pre-signed upload (the URL is the only credential). Once per id. */
export async function receiveUpload(deps: AppDeps, uploadId: string, body: Readable): Promise<{ upload_id: string; size: number; sha256: string }> {
  const claims = genuine(deps, uploadId);
  const key = uploadBlobKey(claims);
  if (await deps.blobs.exists(key)) {
    body.resume();
    throw new AppError('UPLOAD_ALREADY_RECEIVED', 'The file of this upload id has already been received.', { suggestion: 'Pass the upload_id to a verify tool; for another file, call create_upload again.' });
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
  const stored = await staged.commit(key);
  return { upload_id: uploadId, size: stored.size, sha256: stored.sha256 };
}

/**
 * Stages the received file of an upload id as a verification input, for the caller who
 * created it only (an account's ids for that account, keyless ids for keyless calls). Another
 * caller's id is indistinguishable from an unknown one. `release` removes the received file
 * once the verification holds its own copy.
 */
export async function openUpload(deps: AppDeps, call: Call, uploadId: string, field: string): Promise<{ file: UploadedFile; release: () => Promise<void> }> {
  const claims = genuine(deps, uploadId);
  if (claims.owner !== (call.principal?.accountId ?? null)) throw notFound();
  const key = uploadBlobKey(claims);
  if (!(await deps.blobs.exists(key))) throw notFound();
  const staged = await deps.blobs.stage(deps.blobs.stream(key), { maxBytes: deps.config.MAX_UPLOAD_BYTES });
  return { file: { field, filename: claims.filename, staged }, release: () => deps.blobs.delete(key) };
}
