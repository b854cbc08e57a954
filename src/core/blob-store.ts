import type { Readable } from 'node:stream';

export interface StoredBlob {
  key: string;
  size: number;
  sha256: string;
  sha512: string;
}

/**
 * Blob storage. Writes are staged: `stage` streams into a temporary object while hashing and
 * enforcing a size limit; only `commit` makes it visible under its key, so a rejected upload
 * leaves nothing behind after `discard`. Every adapter accepts the same keys (isBlobKey), so a
 * deployment can move from one store to another without a key becoming unstorable.
 * Reading or streaming a missing key fails with BlobNotFoundError (code ENOENT, as the file
 * store's own errors); deleting one is a no-op.
 */
export interface BlobStore {
  readonly kind: 'file' | 's3';
  stage(source: Readable, options: { maxBytes: number }): Promise<StagedBlob>;
  put(key: string, bytes: Uint8Array): Promise<StoredBlob>;
  read(key: string): Promise<Buffer>;
  stream(key: string): Readable;
  exists(key: string): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** A cheap check that the store answers (health): the directory is writable, the bucket reachable. */
  ping(): Promise<void>;
  /**
   * A URL the store itself serves `key` from, valid for `ttlSeconds` from `now` (an S3 pre-signed
   * GET); absent when the store has no such URL (the file store: the service serves /blobs/...).
   */
  presignedUrl?(key: string, options: { now: Date; ttlSeconds: number; contentType: string }): Promise<string>;
  /** Releases the store's connections (the service's stop). */
  close?(): void;
}

/**
 * The key grammar of every adapter: lower-case letters, digits and `/_.-`, no `..`, no leading
 * dot or slash (so a key never names a parent directory, and the stores' own staging areas,
 * `.staging`, are out of reach of any key).
 */
const KEY = /^[a-z0-9][a-z0-9/_.-]{0,200}$/;

export const isBlobKey = (key: string): boolean => KEY.test(key) && !key.includes('..');

export function assertBlobKey(key: string): void {
  if (!isBlobKey(key)) throw new Error(`invalid blob key ${JSON.stringify(key)}`);
}

/** A key that names no blob (never written, or deleted). `code` is ENOENT, as for a missing file. */
export class BlobNotFoundError extends Error {
  readonly code = 'ENOENT';
  constructor(readonly key: string) {
    super(`no blob ${JSON.stringify(key)}`);
    this.name = 'BlobNotFoundError';
  }
}

export interface StagedBlob {
  size: number;
  sha256: string;
  sha512: string;
  /** The first bytes, for content-based format detection before committing. */
  head: Buffer;
  /** The last bytes. */
  tail: Buffer;
  /**
   * The staged bytes, read back from the staging object (before `commit` or `discard` only), for
   * checks that need the whole file without holding it in memory (a JPEG's structure).
   */
  stream(): Readable;
  commit(key: string): Promise<StoredBlob>;
  discard(): Promise<void>;
}

export class BlobTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`blob larger than ${limit} bytes`);
    this.name = 'BlobTooLargeError';
  }
}

/** A file received from a caller and staged (hashed, size-checked), not yet committed. */
export interface UploadedFile {
  field: string;
  filename: string;
  staged: StagedBlob;
}

export interface ParsedUpload {
  files: Map<string, UploadedFile>;
  fields: Record<string, string>;
}
