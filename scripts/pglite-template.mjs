// Build step: an empty PGlite cluster, dumped once to dist/, so a fresh embedded database is
// unpacked from it (~1 s) instead of running initdb (~3 s) on every first start and every
// in-memory test database (docs/decisions/, D-027). Does nothing when the template exists.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const repo = path.resolve(import.meta.dirname, '..');
// The package does not export its package.json: find it above its entry point.
let dir = path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
const { version } = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
const target = path.join(repo, 'dist', `pglite-${version}-empty.tgz`);
if (!fs.existsSync(target)) {
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create();
  const dump = await db.dumpDataDir('gzip');
  await db.close();
  fs.mkdirSync(path.dirname(target), { recursive: true });
  // Written under a temporary name first: a concurrent reader never sees half a file.
  const partial = `${target}.${process.pid}.partial`;
  fs.writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
  fs.renameSync(partial, target);
}
