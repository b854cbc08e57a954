import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertBlobKey, BlobTooLargeError, type BlobStore, type StagedBlob, type StoredBlob } from '../../core/blob-store.js';
import { StageMeter } from './stage-meter.js';

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
    const meter = new StageMeter();
    const measure = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        if (meter.size + chunk.length > maxBytes) return callback(new BlobTooLargeError(maxBytes));
        meter.add(chunk);
        callback(null, chunk);
      },
    });
    const sink = fs.createWriteStream(file, { flags: 'wx', mode: 0o600 });
    try {
      await pipeline(source, measure, sink);
    } catch (error) {
      // The sink may still be opening or flushing: remove the file only once it is closed.
      if (!sink.closed) await new Promise<void>((resolve) => sink.once('close', () => resolve()));
      await fs.promises.rm(file, { force: true });
      throw error;
    }
    return meter.staged({
      stream: () => fs.createReadStream(file),
      keep: async (key) => {
        const target = this.pathOf(key);
        await fs.promises.mkdir(path.dirname(target), { recursive: true });
        await fs.promises.rename(file, target);
      },
      discard: () => fs.promises.rm(file, { force: true }),
    });
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

  async ping(): Promise<void> {
    await fs.promises.access(this.staging, fs.constants.W_OK);
  }

  private pathOf(key: string): string {
    assertBlobKey(key);
    return path.join(this.root, key);
  }
}
