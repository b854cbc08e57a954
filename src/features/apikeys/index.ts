/**
 * The apikeys feature's public entry: what other features use (a feature reaches another
 * only through its index.ts or its events.ts). Each line is used by another feature.
 */
export { invalidApiKey, recordApiKeyUse, usableApiKey } from './authenticate.js';
export { API_KEY_PREFIX } from './key-material.js';
export { actingUserId, findApiKey } from './queries.js';
export { revokeApiKeysOfUser } from './use-cases.js';
