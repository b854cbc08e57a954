import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlobTooLargeError, type BlobStore } from '../../src/core/blob-store.js';
import { FileBlobStore } from '../../src/adapters/blobs/file-store.js';
import { S3BlobStore } from '../../src/adapters/blobs/s3-store.js';
import { listBucket, newBucket, requiresS3, s3Server } from '../support/s3.js';
import type { Gate } from '../support/requires.js';

/** One contract, both adapters: the file store always, S3 on a real S3-compatible server (versitygw) when there is one. */
interface Adapter {
  name: string;
  gate?: Gate;
  open(): Promise<{ store: BlobStore; list(): Promise<string[]>; close(): Promise<void> }>;
}

/** S3's smallest part: a 12 MiB stage is three parts, so the multipart path is the one under test. */
const PART_BYTES = 5 * 1024 * 1024;

const adapters: Adapter[] = [
  {
    name: 'file store',
    async open() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-blobs-'));
      const store = new FileBlobStore(dir);
      const root = path.join(dir, 'blobs');
      return {
        store,
        // Staging files included: "nothing left" means nowhere.
        list: async () => (fs.readdirSync(root, { recursive: true, withFileTypes: true }) as fs.Dirent[]).filter((e) => e.isFile()).map((e) => path.relative(root, path.join(e.parentPath, e.name))).sort(),
        close: async () => fs.rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 's3 store on versitygw',
    gate: requiresS3('the blob store contract on S3'),
    async open() {
      const server = await s3Server();
      const bucket = await newBucket(server);
      const store = new S3BlobStore({
        endpoint: server.endpoint,
        bucket,
        region: server.region,
        credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
        forcePathStyle: true,
        partBytes: PART_BYTES,
      });
      return {
        store,
        // Unfinished multipart uploads count too: an aborted stage must not leave one behind.
        list: async () => {
          const { objects, uploads } = await listBucket(server, bucket);
          return [...objects, ...uploads.map((key) => `(upload) ${key}`)].sort();
        },
        close: async () => store.close(),
      };
    },
  },
];

const sha = (algorithm: string, bytes: Uint8Array) => crypto.createHash(algorithm).update(bytes).digest('hex');

/** `bytes` as a stream of 64 KiB chunks, as an HTTP upload arrives. */
const chunked = (bytes: Buffer) =>
  Readable.from(
    (function* () {
      for (let at = 0; at < bytes.length; at += 64 * 1024) yield bytes.subarray(at, at + 64 * 1024);
    })(),
  );

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const missingCode = (promise: Promise<unknown>) => promise.then(() => 'resolved', (error: NodeJS.ErrnoException) => error.code);

for (const adapter of adapters) {
  (adapter.gate?.describe ?? describe)(`BlobStore contract: ${adapter.name}`, () => {
    let store: BlobStore;
    let list: () => Promise<string[]>;
    let close: () => Promise<void>;

    beforeAll(async () => {
      ({ store, list, close } = await adapter.open());
    });
    afterAll(async () => {
      await close?.();
    });

    it('stages while hashing: size, sha256, sha512, head and tail of what streamed through, over several parts', async () => {
      const bytes = crypto.randomBytes(12 * 1024 * 1024 + 123);
      const staged = await store.stage(chunked(bytes), { maxBytes: 20 * 1024 * 1024 });
      expect(staged).toMatchObject({ size: bytes.length, sha256: sha('sha256', bytes), sha512: sha('sha512', bytes) });
      expect(staged.head.equals(bytes.subarray(0, 64 * 1024))).toBe(true);
      expect(staged.tail.equals(bytes.subarray(-64))).toBe(true);
      // Read back before commit (a JPEG's structure check needs the whole file), and it is not visible under any key yet.
      expect((await collect(staged.stream())).equals(bytes)).toBe(true);
      expect(await store.exists('contract/staged.bin')).toBe(false);
      const stored = await staged.commit('contract/staged.bin');
      expect(stored).toEqual({ key: 'contract/staged.bin', size: bytes.length, sha256: sha('sha256', bytes), sha512: sha('sha512', bytes) });
      expect((await store.read('contract/staged.bin')).equals(bytes)).toBe(true);
      // Only the committed object remains: the staging copy is gone.
      expect(await list()).toEqual(['contract/staged.bin']);
      await store.delete('contract/staged.bin');
    }, 180_000);

    it('a stage of a Uint8Array source (an MCP inline file) hashes it the same', async () => {
      const bytes = new Uint8Array(crypto.randomBytes(1000));
      const staged = await store.stage(Readable.from([bytes]), { maxBytes: 1000 });
      expect(staged).toMatchObject({ size: 1000, sha256: sha('sha256', bytes) });
      await staged.discard();
    });

    it('a stream over the limit is refused, and leaves nothing behind (small, and past several parts)', async () => {
      await expect(store.stage(chunked(crypto.randomBytes(2048)), { maxBytes: 1024 })).rejects.toBeInstanceOf(BlobTooLargeError);
      await expect(store.stage(chunked(crypto.randomBytes(12 * 1024 * 1024)), { maxBytes: 11 * 1024 * 1024 })).rejects.toBeInstanceOf(BlobTooLargeError);
      expect(await list()).toEqual([]);
      // Exactly the limit is accepted.
      const staged = await store.stage(chunked(crypto.randomBytes(1024)), { maxBytes: 1024 });
      expect(staged.size).toBe(1024);
      await staged.discard();
    }, 180_000);

    it('discard removes the staged bytes; a discarded stage never appears', async () => {
      const staged = await store.stage(chunked(Buffer.from('discard me')), { maxBytes: 1024 });
      expect(await list()).toHaveLength(1);
      await staged.discard();
      expect(await list()).toEqual([]);
    });

    it('concurrent stages stay apart: each commits its own bytes', async () => {
      const files = Array.from({ length: 6 }, (_, i) => ({ key: `contract/concurrent/${i}.bin`, bytes: crypto.randomBytes(300_000 + i) }));
      const staged = await Promise.all(files.map((file) => store.stage(chunked(file.bytes), { maxBytes: 1_000_000 })));
      staged.forEach((s, i) => expect(s.sha256).toBe(sha('sha256', files[i]!.bytes)));
      await Promise.all(staged.map((s, i) => s.commit(files[i]!.key)));
      for (const file of files) expect((await store.read(file.key)).equals(file.bytes)).toBe(true);
      expect(await list()).toEqual(files.map((f) => f.key).sort());
      await Promise.all(files.map((f) => store.delete(f.key)));
    }, 120_000);

    it('put, read, stream, exists, delete; delete of a missing key is a no-op', async () => {
      const bytes = Buffer.from('put bytes');
      expect(await store.put('contract/put.txt', bytes)).toEqual({ key: 'contract/put.txt', size: bytes.length, sha256: sha('sha256', bytes), sha512: sha('sha512', bytes) });
      expect(await store.exists('contract/put.txt')).toBe(true);
      expect((await store.read('contract/put.txt')).toString()).toBe('put bytes');
      expect((await collect(store.stream('contract/put.txt'))).toString()).toBe('put bytes');
      // A second put replaces the first.
      await store.put('contract/put.txt', Buffer.from('replaced'));
      expect((await store.read('contract/put.txt')).toString()).toBe('replaced');
      await store.delete('contract/put.txt');
      expect(await store.exists('contract/put.txt')).toBe(false);
      await store.delete('contract/put.txt');
      await store.delete('contract/never-written.txt');
      expect(await list()).toEqual([]);
    });

    it('reading or streaming a missing key fails with code ENOENT (what the mail activity tells a vanished body by)', async () => {
      expect(await missingCode(store.read('contract/missing.bin'))).toBe('ENOENT');
      expect(await missingCode(collect(store.stream('contract/missing.bin')))).toBe('ENOENT');
    });

    it('keys: odd but valid ones round-trip; Unicode, spaces, parents and the staging area are refused before storage is touched', async () => {
      const odd = ['0/a.b_c-d/e.f.g', 'x', `deep/${'d/'.repeat(20)}leaf.bin`];
      for (const key of odd) {
        await store.put(key, Buffer.from(key));
        expect((await store.read(key)).toString()).toBe(key);
      }
      expect(await list()).toEqual([...odd].sort());
      await Promise.all(odd.map((key) => store.delete(key)));
      for (const key of ['fotos/ü.jpg', 'a b', '../escape', 'a/../b', '.staging/x', '/absolute', 'Upper', 'q?x', '']) {
        await expect(store.put(key, Buffer.from('no')), key).rejects.toThrow(/invalid blob key/);
        expect(() => store.stream(key), key).toThrow(/invalid blob key/);
        await expect(store.exists(key), key).rejects.toThrow(/invalid blob key/);
      }
      const staged = await store.stage(chunked(Buffer.from('x')), { maxBytes: 10 });
      await expect(staged.commit('fotos/ü.jpg')).rejects.toThrow(/invalid blob key/);
      await staged.discard();
      expect(await list()).toEqual([]);
    });

    it('ping answers', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });

    if (adapter.name.startsWith('s3')) {
      it('a pre-signed URL serves the object over HTTP as the signed type within its hour, and is refused after it or when altered', async () => {
        const bytes = crypto.randomBytes(4096);
        await store.put('contract/signed/photo.v1.jpg', bytes);
        const presign = (now: Date) => store.presignedUrl!('contract/signed/photo.v1.jpg', { now, ttlSeconds: 3600, contentType: 'image/jpeg' });
        // Signed 50 minutes ago: still within its hour.
        const fresh = await fetch(await presign(new Date(Date.now() - 50 * 60_000)));
        expect(fresh.status).toBe(200);
        expect(fresh.headers.get('content-type')).toBe('image/jpeg');
        expect(Buffer.from(await fresh.arrayBuffer()).equals(bytes)).toBe(true);
        // Signed 61 minutes ago: expired.
        const stale = await fetch(await presign(new Date(Date.now() - 61 * 60_000)));
        expect(stale.status).toBe(403);
        await stale.body?.cancel();
        // Another key under the same signature.
        const altered = await fetch((await presign(new Date())).replace('photo.v1.jpg', 'photo.v2.jpg'));
        expect(altered.status).toBe(403);
        await altered.body?.cancel();
        await store.delete('contract/signed/photo.v1.jpg');
      });

      it('ping fails for a bucket that does not exist (health then says down)', async () => {
        const server = await s3Server();
        const other = new S3BlobStore({ endpoint: server.endpoint, bucket: 'pv-no-such-bucket', region: server.region, credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey }, forcePathStyle: true });
        await expect(other.ping()).rejects.toThrow();
        other.close();
      });
    } else {
      it('has no store URLs of its own (the service serves /blobs/... itself)', () => {
        expect(store.presignedUrl).toBeUndefined();
      });
    }
  });
}
