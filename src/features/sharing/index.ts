/**
 * The sharing feature's public entry: what other features use (a feature reaches another only
 * through its index.ts or its events.ts). Each line is used by another feature.
 */
export { getShare, openSharedVerification, shareVerification } from './use-cases.js';
export { sharedPageErrors } from './page-routes.js';
export { ICON, STYLE } from './report-style.js';
export { INVITE_PARAM, SHARE_PATH_PREFIX } from './tokens.js';
