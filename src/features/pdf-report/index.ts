/**
 * The PDF report feature's public entry: what other features use (a feature reaches another only
 * through its index.ts or its events.ts). Each line is used by another feature.
 */
export { ownPdfReport } from './use-cases.js';
export { pdfReply } from './routes.js';
