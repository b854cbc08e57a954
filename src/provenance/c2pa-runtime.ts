/**
 * The one place that loads c2pa-wasm: instantiates the module once per process (initSync
 * with the .wasm bytes; the async init() cannot load it in Node) and installs the browser
 * shims WasmBuilder.sign() needs.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as c2pa from '@contentauth/c2pa-wasm';

let initialised = false;

export function c2paWasm(): typeof c2pa {
  if (!initialised) {
    const wasmPath = createRequire(import.meta.url).resolve('@contentauth/c2pa-wasm/c2pa.wasm');
    c2pa.initSync({ module: readFileSync(wasmPath) });
    installFileReaderSync();
    initialised = true;
  }
  return c2pa;
}

/**
 * A Blob stand-in whose slice() stays synchronous: WasmBuilder.sign() reads its source with
 * FileReaderSync.readAsArrayBuffer(blob.slice(a, b)), which Node's async Blob cannot serve.
 */
export class SyncBlob {
  constructor(
    readonly bytes: Uint8Array,
    readonly type = '',
  ) {}
  get size(): number {
    return this.bytes.length;
  }
  slice(start = 0, end = this.bytes.length): SyncBlob {
    return new SyncBlob(this.bytes.subarray(start, end), this.type);
  }
}

/** Asserted at the wasm boundary: the bindings only call size/slice on what we pass. */
export function asBlob(bytes: Uint8Array, type = ''): Blob {
  return new SyncBlob(bytes, type) as unknown as Blob;
}

function installFileReaderSync(): void {
  const g = globalThis as { FileReaderSync?: unknown };
  if (g.FileReaderSync) return;
  g.FileReaderSync = class FileReaderSync {
    readAsArrayBuffer(blob: SyncBlob): ArrayBuffer {
      const { bytes } = blob;
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    }
  };
}
