import fs from 'node:fs';
import path from 'node:path';
import { packageRoot } from './package-root.js';

/**
 * The package's version from package.json, read once. `npm_package_version` exists only under `npm start`; the CLI and `node dist/main.js`
 * need the file.
 */
export const packageVersion: string = (JSON.parse(fs.readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;
