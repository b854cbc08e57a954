/**
 * The auditor feature's public entry: what other features use (a feature reaches another only
 * through its index.ts or its events.ts). Each line is used by another feature.
 */
export { ownerAuditBundle, sharedAuditBundle, type AuditBundle } from './bundle.js';
export { historyModel, type HistoryModel } from './history.js';
export { historyPageHeaders, renderHistoryPage } from './history-page.js';
export { ASSETS_PREFIX, bundleSchema as auditBundleSchema } from './routes.js';
