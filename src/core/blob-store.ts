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
 * leaves nothing behind after `discard`.
 */
export interface BlobStore {
  readonly kind: 'file';
  stage(source: Readable, options: { maxBytes: number }): Promise<StagedBlob>;
  put(key: string, bytes: Uint8Array): Promise<StoredBlob>;
  read(key: string): Promise<Buffer>;
  stream(key: string): Readable;
  exists(key: string): Promise<boolean>;
  delete(key: string): Promise<void>;
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
