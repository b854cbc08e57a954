/**
 * The PSD export feature's public entry: what other features use (a feature reaches another only
 * through its index.ts or its events.ts). Each line is used by another feature.
 */
export { downloadPsdExport, getPsdExport, requestPsdExport } from './use-cases.js';
export type { PsdExportStatusView } from './view.js';
