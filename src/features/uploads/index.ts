/**
 * The uploads feature's public entry: what other features use (a feature reaches another
 * only through its index.ts or its events.ts). Each line is used by another feature.
 */
export { uploadIdSchema } from './schemas.js';
export { openUpload } from './use-cases.js';
