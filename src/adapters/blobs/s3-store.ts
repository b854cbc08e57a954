import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  type CompletedPart,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { assertBlobKey, BlobNotFoundError, BlobTooLargeError, type BlobStore, type StagedBlob, type StoredBlob } from '../../core/blob-store.js';
import { StageMeter } from './stage-meter.js';

export interface S3StoreOptions {
  endpoint: string;
  bucket: string;
  region: string;
  /** Unset: the SDK's default credential chain (environment, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** `http://endpoint/bucket/key` rather than `http://bucket.endpoint/key` (most S3-compatible servers). */
  forcePathStyle: boolean;
  /** Bytes buffered per multipart part (S3's minimum is 5 MiB for every part but the last). */
  partBytes?: number;
}

/**
 * Where staged objects live until committed or discarded. The leading dot puts it out of reach of
 * every blob key (isBlobKey), as the file store's `.staging` directory is.
 */
export const STAGING_PREFIX = '.staging/';
const DEFAULT_PART_BYTES = 8 * 1024 * 1024;

/**
 * Blobs as objects in one S3 bucket (any S3-compatible server). A stage streams into a staging
 * object while hashing, one multipart part in memory at a time, and never the whole file;
 * `commit` copies it to its key on the server and deletes the staging object, so a blob appears
 * under its key whole or not at all.
 */
export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const;
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly partBytes: number;

  constructor(options: S3StoreOptions) {
    this.client = new S3Client({
      endpoint: options.endpoint,
      region: options.region,
      credentials: options.credentials,
      forcePathStyle: options.forcePathStyle,
      // The SDK's default (a CRC checksum on every request that supports one) is refused by some
      // S3-compatible servers; the stage hashes every byte itself (sha256, sha512).
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    this.bucket = options.bucket;
    this.partBytes = options.partBytes ?? DEFAULT_PART_BYTES;
  }

  async stage(source: Readable, { maxBytes }: { maxBytes: number }): Promise<StagedBlob> {
    const stagingKey = `${STAGING_PREFIX}${crypto.randomUUID()}`;
    const meter = new StageMeter();
    const writer = new ObjectWriter(this.client, this.bucket, stagingKey, this.partBytes);
    try {
      // One chunk at a time: while a part uploads, the source waits (back-pressure). The source is
      // not destroyed on the way out of the loop (that would fail it with a bare AbortError,
      // which an HTTP upload would report instead of the reason); it is destroyed below with
      // the reason, as stream.pipeline does for the file store.
      for await (const data of source.iterator({ destroyOnReturn: false })) {
        const chunk = Buffer.isBuffer(data) ? data : Buffer.from(data as Uint8Array);
        if (meter.size + chunk.length > maxBytes) throw new BlobTooLargeError(maxBytes);
        meter.add(chunk);
        await writer.write(chunk);
      }
      await writer.finish();
    } catch (error) {
      // Whoever reads the source's errors (multer) learns the reason; a source nobody listens to
      // must not turn it into an uncaught error (the caller gets it from this rejection).
      source.once('error', () => undefined).destroy(error as Error);
      await writer.abort();
      throw error;
    }
    return meter.staged({
      stream: () => this.objectStream(stagingKey),
      keep: async (key) => {
        assertBlobKey(key);
        // The staging key is a UUID under a fixed prefix: nothing in it needs escaping.
        await this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: key, CopySource: `${this.bucket}/${stagingKey}` }));
        await this.deleteObject(stagingKey);
      },
      discard: () => this.deleteObject(stagingKey),
    });
  }

  async put(key: string, bytes: Uint8Array): Promise<StoredBlob> {
    assertBlobKey(key);
    // One PUT: S3 shows an object whole or not at all.
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: bytes, ContentLength: bytes.length }));
    return {
      key,
      size: bytes.length,
      sha256: crypto.createHash('sha256').update(bytes).digest('hex'),
      sha512: crypto.createHash('sha512').update(bytes).digest('hex'),
    };
  }

  async read(key: string): Promise<Buffer> {
    assertBlobKey(key);
    const body = await this.open(key);
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  stream(key: string): Readable {
    assertBlobKey(key);
    return this.objectStream(key);
  }

  async exists(key: string): Promise<boolean> {
    assertBlobKey(key);
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    assertBlobKey(key);
    await this.deleteObject(key);
  }

  async ping(): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
  }

  presignedUrl(key: string, { now, ttlSeconds, contentType }: { now: Date; ttlSeconds: number; contentType: string }): Promise<string> {
    assertBlobKey(key);
    // The response headers the service itself sends for a download: the signed type, shown inline.
    const command = new GetObjectCommand({ Bucket: this.bucket, Key: key, ResponseContentType: contentType, ResponseContentDisposition: 'inline' });
    return getSignedUrl(this.client, command, { expiresIn: ttlSeconds, signingDate: now });
  }

  /** Stops the client's sockets (the service's stop). */
  close(): void {
    this.client.destroy();
  }

  private async deleteObject(key: string): Promise<void> {
    // S3 answers a delete of a missing key with success: a repeated delete is a no-op.
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  private async open(key: string, signal?: AbortSignal): Promise<Readable> {
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }), { abortSignal: signal });
      return answer.Body as Readable;
    } catch (error) {
      if (isMissing(error)) throw new BlobNotFoundError(key);
      throw error;
    }
  }

  /**
   * The object's bytes as a stream returned at once (the port's `stream` is synchronous): the GET
   * is sent on the first read, so a stream destroyed unread (a HEAD request) costs no request.
   */
  private objectStream(key: string): Readable {
    const controller = new AbortController();
    // Inside read(), `this` is the stream.
    const openObject = (signal: AbortSignal) => this.open(key, signal);
    let body: Readable | undefined;
    let opening = false;
    const out = new Readable({
      read() {
        if (body) {
          body.resume();
          return;
        }
        if (opening) return;
        opening = true;
        openObject(controller.signal).then(
          (opened) => {
            body = opened;
            opened.on('data', (chunk: Buffer) => {
              if (!out.push(chunk)) opened.pause();
            });
            opened.once('end', () => out.push(null));
            opened.once('error', (error) => out.destroy(error));
          },
          (error: Error) => out.destroy(error),
        );
      },
      destroy(error, callback) {
        controller.abort();
        body?.destroy();
        callback(error);
      },
    });
    return out;
  }
}

const isMissing = (error: unknown): boolean => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
};

/**
 * Writes one object from chunks: a single PUT when it ends within one part, otherwise a multipart
 * upload with one part buffered at a time. `abort` leaves nothing (the multipart upload aborted,
 * any finished object deleted).
 */
class ObjectWriter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private uploadId: string | undefined;
  private readonly parts: CompletedPart[] = [];

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly key: string,
    private readonly partBytes: number,
  ) {}

  async write(chunk: Buffer): Promise<void> {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes >= this.partBytes) await this.flushPart();
  }

  async finish(): Promise<void> {
    if (this.uploadId === undefined) {
      const body = this.take();
      await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.key, Body: body, ContentLength: body.length }));
      return;
    }
    if (this.pendingBytes > 0) await this.flushPart();
    await this.client.send(
      new CompleteMultipartUploadCommand({ Bucket: this.bucket, Key: this.key, UploadId: this.uploadId, MultipartUpload: { Parts: this.parts } }),
    );
  }

  async abort(): Promise<void> {
    this.pending = [];
    // Best effort, and never hiding the error that made the stage fail: an upload left behind is
    // removed by the bucket's lifecycle rule for incomplete multipart uploads (docs/operations.md).
    if (this.uploadId !== undefined) {
      await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: this.key, UploadId: this.uploadId })).catch(() => undefined);
    }
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key })).catch(() => undefined);
  }

  private async flushPart(): Promise<void> {
    this.uploadId ??= (await this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: this.key }))).UploadId;
    const body = this.take();
    const PartNumber = this.parts.length + 1;
    const { ETag } = await this.client.send(
      new UploadPartCommand({ Bucket: this.bucket, Key: this.key, UploadId: this.uploadId, PartNumber, Body: body, ContentLength: body.length }),
    );
    this.parts.push({ PartNumber, ETag });
  }

  private take(): Buffer {
    const body = Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    return body;
  }
}
