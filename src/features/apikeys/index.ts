/**
 * The apikeys feature's public entry: what other features use (a feature reaches another
 * only through its index.ts or its events.ts). Each line is used by another feature.
 */
export { invalidApiKey, recordApiKeyUse, usableApiKey } from './authenticate.js';
export { API_KEY_PREFIX } from './key-material.js';
export { actingUserId, findApiKey } from '../../../projections/apikeys/index.js';
export { revokeApiKeysOfUser } from './use-cases.js';
export { createApiKey, listApiKeys, revokeApiKey } from './use-cases.js';
/** The REST create body, so the web app's form is read by the same rules (issue 27). */
export { createBody as apiKeyCreateBody, MAX_KEY_DAYS } from './routes.js';
