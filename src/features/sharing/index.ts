/**
 * The sharing feature's public entry: what other features use (a feature reaches another only
 * through its index.ts or its events.ts). Each line is used by another feature.
 */
export { getShare, openSharedVerification, shareVerification } from './use-cases.js';
export { inviteProofSuffix, sharedPageErrors, shareLinkAccess } from './page-routes.js';
export { ICON, STYLE } from './report-style.js';
export { INVITE_PARAM, SHARE_PATH_PREFIX } from './tokens.js';
export { inviteToShare, revokeInvite, unshareVerification, viewAnalytics } from './use-cases.js';
export { openOwnFile, openOwnReport } from './use-cases.js';
export { openOwnReportSource, openSharedReportSource, type ReportSource } from './use-cases.js';
export { renderReportSections } from './report-page.js';
export { FLICKER_SCRIPT } from './report-comparison.js';
export { sharedFileKinds, type SharedFileKind, type SharedReport } from './report.js';
export { aboutFacts } from './report-facts.js';
export { analysesInWords } from './report-analyses.js';
export { resultWords } from './report-verdict.js';
export { timeText } from './report-values.js';
