/**
 * The tags read side's public entry for the write side: the key names are unique by, which the
 * projection stores (tag-key.ts). The projector is paired with the feature by the composition
 * root (src/modules.ts), never imported from here.
 */
export { tagKey } from './tag-key.js';
export * from './queries.js';
