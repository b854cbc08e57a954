import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/core/config.js';
import { createBlobStore, describeBlobStore } from '../../src/adapters/blobs/index.js';

const s3 = { S3_ENDPOINT: 'http://127.0.0.1:7070', S3_BUCKET: 'photos', S3_ACCESS_KEY_ID: 'key', S3_SECRET_ACCESS_KEY: 'secret' };

describe('S3 blob storage settings', () => {
  it('unset: the file store; set: S3, path-style, in an EU region, downloads through the service', () => {
    const files = loadConfig({ DATA_DIR: os.tmpdir() });
    expect(createBlobStore(files).kind).toBe('file');
    const config = loadConfig({ ...s3, DATA_DIR: os.tmpdir() });
    expect(config).toMatchObject({ S3_REGION: 'eu-central-1', S3_FORCE_PATH_STYLE: true, S3_DOWNLOADS: 'proxy' });
    const store = createBlobStore(config);
    expect(store.kind).toBe('s3');
    store.close?.();
    expect(describeBlobStore(config)).toBe('S3 bucket photos at http://127.0.0.1:7070');
    expect(describeBlobStore(config)).not.toContain('secret');
    expect(loadConfig({ ...s3, S3_FORCE_PATH_STYLE: 'false', S3_DOWNLOADS: 'redirect' })).toMatchObject({ S3_FORCE_PATH_STYLE: false, S3_DOWNLOADS: 'redirect' });
  });

  it.each([
    ['an endpoint without a bucket', { S3_ENDPOINT: s3.S3_ENDPOINT }, 'S3_BUCKET'],
    ['a bucket without an endpoint', { S3_BUCKET: 'photos' }, 'S3_ENDPOINT'],
    ['a key id without its secret', { ...s3, S3_SECRET_ACCESS_KEY: '' }, 'S3_SECRET_ACCESS_KEY'],
    ['a path style that is not true or false', { ...s3, S3_FORCE_PATH_STYLE: 'yes' }, 'S3_FORCE_PATH_STYLE'],
    ['an unknown download mode', { ...s3, S3_DOWNLOADS: 'cdn' }, 'S3_DOWNLOADS'],
    ['an endpoint that is not a URL', { ...s3, S3_ENDPOINT: 'versitygw:7070:x' }, 'S3_ENDPOINT'],
  ])('refuses %s, naming the variable', (_label, env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(variable);
  });
});
