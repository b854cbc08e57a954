import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package's own directory (where package.json is): the nearest one above this module. Run
 * from source this module is src/core/package-root.ts, compiled it is dist/src/core/package-root.js:
 * a fixed number of `..` would be right for one and wrong for the other.
 */
export const packageRoot: string = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
  return dir;
})();
