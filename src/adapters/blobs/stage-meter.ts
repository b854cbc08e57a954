import crypto from 'node:crypto';
import type { Readable } from 'node:stream';
import type { StagedBlob } from '../../core/blob-store.js';

const HEAD_BYTES = 64 * 1024;
const TAIL_BYTES = 64;

/**
 * What every store's stage measures of the bytes passing through it: size, sha256 and sha512, the
 * first 64 KiB (format detection) and the last 64 bytes, without keeping the rest.
 */
export class StageMeter {
  size = 0;
  private readonly sha256 = crypto.createHash('sha256');
  private readonly sha512 = crypto.createHash('sha512');
  private readonly headChunks: Buffer[] = [];
  private headSize = 0;
  private last = Buffer.alloc(0);

  add(chunk: Buffer): void {
    this.size += chunk.length;
    this.sha256.update(chunk);
    this.sha512.update(chunk);
    if (this.headSize < HEAD_BYTES) {
      const part = chunk.subarray(0, HEAD_BYTES - this.headSize);
      this.headChunks.push(part);
      this.headSize += part.length;
    }
    this.last = Buffer.concat([this.last, chunk.subarray(-TAIL_BYTES)]).subarray(-TAIL_BYTES);
  }

  digest(): { size: number; sha256: string; sha512: string } {
    return { size: this.size, sha256: this.sha256.digest('hex'), sha512: this.sha512.digest('hex') };
  }

  head(): Buffer {
    return Buffer.concat(this.headChunks);
  }

  tail(): Buffer {
    return this.last;
  }

  /**
   * The staged blob a store answers once every byte has passed the meter: these measures, with the
   * store's own ways to read the staged bytes back, keep them under a key, or drop them.
   */
  staged(staging: { stream: () => Readable; keep: (key: string) => Promise<void>; discard: () => Promise<void> }): StagedBlob {
    const digest = this.digest();
    return {
      ...digest,
      head: this.head(),
      tail: this.tail(),
      stream: staging.stream,
      commit: async (key) => {
        await staging.keep(key);
        return { key, ...digest };
      },
      discard: staging.discard,
    };
  }
}
