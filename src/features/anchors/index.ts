/** What other features use of anchors: a verification's anchors (the audit bundle, the report page). */
export { anchoredIn, anchorOf, type AnchoredIn } from './use-cases.js';
export type { AnchorSummary } from '../../../projections/anchors/index.js';
export const ANCHOR_CERTIFICATE_PATH = '/v1/anchors/certificate';
