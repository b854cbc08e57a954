#!/usr/bin/env node
/**
 * `npm run build:native`: compiles the native C2PA reader (native/c2pa, c2pa-rs from crates.io)
 * with cargo and puts the addon where src/provenance/c2pa-reader.ts looks for it. Optional: the
 * service reads with c2pa-wasm when the addon is not there (docs/decisions/ D-058).
 * Needs cargo/rustc (https://rustup.rs); cold, ~7 CPU-minutes. Build output goes to
 * CARGO_TARGET_DIR (native/c2pa/target unless set: .ci/run points it at a cache outside the
 * checkout); crates download to CARGO_HOME (~/.cargo unless set).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const crate = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../native/c2pa');
const cargo = spawnSync(
  'cargo',
  // --locked: the committed Cargo.lock, so c2pa-rs and its crypto crates are the ones tested.
  // --ignore-rust-version: c2pa 0.91.3 declares rust-version 1.96 but builds with 1.95 (D-058).
  ['build', '--release', '--locked', '--ignore-rust-version', '--manifest-path', path.join(crate, 'Cargo.toml')],
  { stdio: 'inherit' },
);
if (cargo.error) {
  console.error(`build:native: cannot run cargo (${cargo.error.message}); install Rust from https://rustup.rs`);
  process.exit(1);
}
if (cargo.status !== 0) process.exit(cargo.status ?? 1);

const library = { darwin: 'libphotoverify_c2pa.dylib', win32: 'photoverify_c2pa.dll' }[process.platform] ?? 'libphotoverify_c2pa.so';
const target = process.env.CARGO_TARGET_DIR ? path.resolve(process.env.CARGO_TARGET_DIR) : path.join(crate, 'target');
const addon = path.join(crate, 'photoverify-c2pa.node');
// Copy then rename: a running service that already loaded the old addon keeps its mapping.
copyFileSync(path.join(target, 'release', library), `${addon}.tmp`);
renameSync(`${addon}.tmp`, addon);
console.log(`build:native: ${path.relative(process.cwd(), addon)}`);
