import fs from 'node:fs';

/**
 * The package's version from package.json (two levels up from src/core/ and from dist/core/),
 * read once. `npm_package_version` exists only under `npm start`; the CLI and `node dist/main.js`
 * need the file.
 */
export const packageVersion: string = (JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
