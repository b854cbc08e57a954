/**
 * Which build of c2pa-rs reads and validates manifests (docs/decisions/ D-058): the native
 * addon compiled from native/c2pa (`npm run build:native`) when it has been built and loads,
 * otherwise c2pa-wasm, so a fresh machine with only Node still works. Both wrap the same
 * c2pa-rs version, take the same settings JSON, return the same manifest-store JSON and reject
 * with the same `C2pa(<kind>…)` text; the native one is about three times faster (native
 * hashing and crypto) and runs on a libuv worker thread instead of the event loop.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { packageRoot } from '../core/package-root.js';
import { c2paWasm } from './c2pa-runtime.js';

export interface C2paReader {
  kind: 'native' | 'wasm';
  /** For the start-up summary: which reader, and why not the native one when it is not. */
  description: string;
  /** The manifest store as c2pa-rs's JSON; rejects with c2pa-rs's error text (`C2pa(JumbfNotFound)`...). */
  readJson(mime: string, bytes: Uint8Array, contextJson: string): Promise<string>;
}

export const wasmReader: C2paReader = {
  kind: 'wasm',
  description: 'c2pa-wasm (c2pa-rs in WebAssembly)',
  async readJson(mime, bytes, contextJson) {
    const { WasmReader } = c2paWasm();
    const reader = await WasmReader.fromBytes(mime, bytes, contextJson);
    try {
      return reader.json();
    } finally {
      reader.free();
    }
  },
};

/** Where `npm run build:native` (scripts/build-native.mjs) puts the addon, at the package's root whether run from src/ or dist/. */
export const nativeAddonPath = path.join(packageRoot, 'native/c2pa/photoverify-c2pa.node');

/** What native/c2pa/src/lib.rs exports. */
interface NativeAddon {
  readJson(format: string, bytes: Uint8Array, contextJson: string): Promise<string>;
  c2paVersion(): string;
}

/** The native reader, or why there is none: not built, or built for another platform or Node. */
export function loadNativeReader(file = nativeAddonPath): { reader: C2paReader } | { missing: string } {
  if (!existsSync(file)) return { missing: 'not built (npm run build:native)' };
  try {
    const addon = createRequire(import.meta.url)(file) as NativeAddon;
    return {
      reader: {
        kind: 'native',
        description: `native c2pa-rs ${addon.c2paVersion()} (${path.relative(process.cwd(), file) || file})`,
        readJson: (mime, bytes, contextJson) => addon.readJson(mime, bytes, contextJson),
      },
    };
  } catch (error) {
    return { missing: `present but failed to load (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); rebuild it with npm run build:native` };
  }
}

let chosen: C2paReader | undefined;

/** The one decision, made once per process: the native reader when it loads, else c2pa-wasm. */
export function c2paReader(): C2paReader {
  if (!chosen) {
    const native = loadNativeReader();
    chosen = 'reader' in native ? native.reader : { ...wasmReader, description: `${wasmReader.description}; native reader ${native.missing}` };
  }
  return chosen;
}
