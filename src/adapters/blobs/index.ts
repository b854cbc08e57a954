import path from 'node:path';
import type { BlobStore } from '../../core/blob-store.js';
import type { Config } from '../../core/config.js';
import { FileBlobStore } from './file-store.js';
import { S3BlobStore } from './s3-store.js';

type BlobConfig = Pick<Config, 'DATA_DIR' | 'S3_ENDPOINT' | 'S3_BUCKET' | 'S3_REGION' | 'S3_ACCESS_KEY_ID' | 'S3_SECRET_ACCESS_KEY' | 'S3_FORCE_PATH_STYLE'>;

/** S3 when `S3_ENDPOINT` and `S3_BUCKET` are set (the config requires both or neither); otherwise files under DATA_DIR/blobs. */
export function createBlobStore(config: BlobConfig): BlobStore {
  if (!config.S3_ENDPOINT || !config.S3_BUCKET) return new FileBlobStore(config.DATA_DIR);
  return new S3BlobStore({
    endpoint: config.S3_ENDPOINT,
    bucket: config.S3_BUCKET,
    region: config.S3_REGION,
    credentials: config.S3_ACCESS_KEY_ID && config.S3_SECRET_ACCESS_KEY ? { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY } : undefined,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
  });
}

/** The blob store as the start-up line names it (no credentials: they are separate settings). */
export function describeBlobStore(config: BlobConfig): string {
  return config.S3_ENDPOINT && config.S3_BUCKET ? `S3 bucket ${config.S3_BUCKET} at ${config.S3_ENDPOINT}` : `files in ${path.join(config.DATA_DIR, 'blobs')}`;
}
