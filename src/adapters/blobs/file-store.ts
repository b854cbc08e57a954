import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BlobTooLargeError, type BlobStore, type StagedBlob, type StoredBlob } from '../../core/blob-store.js';

const HEAD_BYTES = 64 * 1024;
const TAIL_BYTES = 64;
const KEY = /^[a-z0-9][a-z0-9/_.-]{0,200}$/;

/** Blobs as files under `<dataDir>/blobs`; staging files live in `<dataDir>/blobs/.staging`. */
export class FileBlobStore implements BlobStore {
  readonly kind = 'file' as const;
  private readonly root: string;
  private readonly staging: string;

  constructor(dataDir: string) {
    this.root = path.join(dataDir, 'blobs');
    this.staging = path.join(this.root, '.staging');
    fs.mkdirSync(this.staging, { recursive: true });
    // Staged files left by a crash are never referenced by an event: remove them.
    for (const leftover of fs.readdirSync(this.staging)) fs.rmSync(path.join(this.staging, leftover), { force: true });
  }

  async stage(source: Readable, { maxBytes }: { maxBytes: number }): Promise<StagedBlob> {
    const file = path.join(this.staging, crypto.randomUUID());
    const sha256 = crypto.createHash('sha256');
    const sha512 = crypto.createHash('sha512');
    const head: Buffer[] = [];
    let tail = Buffer.alloc(0);
    let size = 0;
    let headSize = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        size += chunk.length;
        if (size > maxBytes) return callback(new BlobTooLargeError(maxBytes));
        sha256.update(chunk);
        sha512.update(chunk);
        if (headSize < HEAD_BYTES) {
          head.push(chunk.subarray(0, HEAD_BYTES - headSize));
          headSize += Math.min(chunk.length, HEAD_BYTES - headSize);
        }
        tail = Buffer.concat([tail, chunk]).subarray(-TAIL_BYTES);
        callback(null, chunk);
      },
    });
    const sink = fs.createWriteStream(file, { flags: 'wx', mode: 0o600 });
    try {
      await pipeline(source, meter, sink);
    } catch (error) {
      // The sink may still be opening or flushing: remove the file only once it is closed.
      if (!sink.closed) await new Promise<void>((resolve) => sink.once('close', () => resolve()));
      await fs.promises.rm(file, { force: true });
      throw error;
    }
    const digest = { size, sha256: sha256.digest('hex'), sha512: sha512.digest('hex') };
    return {
      ...digest,
      head: Buffer.concat(head),
      tail,
      stream: () => fs.createReadStream(file),
      commit: async (key) => {
        const target = this.pathOf(key);
        await fs.promises.mkdir(path.dirname(target), { recursive: true });
        await fs.promises.rename(file, target);
        return { key, ...digest };
      },
      discard: () => fs.promises.rm(file, { force: true }),
    };
  }

  async put(key: string, bytes: Uint8Array): Promise<StoredBlob> {
    const target = this.pathOf(key);
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    const temp = path.join(this.staging, crypto.randomUUID());
    await fs.promises.writeFile(temp, bytes, { mode: 0o600 });
    await fs.promises.rename(temp, target);
    return {
      key,
      size: bytes.length,
      sha256: crypto.createHash('sha256').update(bytes).digest('hex'),
      sha512: crypto.createHash('sha512').update(bytes).digest('hex'),
    };
  }

  read(key: string): Promise<Buffer> {
    return fs.promises.readFile(this.pathOf(key));
  }

  stream(key: string): Readable {
    return fs.createReadStream(this.pathOf(key));
  }

  async exists(key: string): Promise<boolean> {
    return fs.promises.access(this.pathOf(key)).then(
      () => true,
      () => false,
    );
  }

  async delete(key: string): Promise<void> {
    await fs.promises.rm(this.pathOf(key), { force: true });
  }

  private pathOf(key: string): string {
    if (!KEY.test(key) || key.includes('..')) throw new Error(`invalid blob key ${JSON.stringify(key)}`);
    return path.join(this.root, key);
  }
}
