import { createHash } from 'node:crypto';
import { actorOf, commandContext, execute } from '../../core/es/commands.js';
import { canonicalJson } from '../../core/audit/canonical-json.js';
import type { AppDeps } from '../../core/module/deps.js';
import { callerOf, type Call, type Principal } from '../../core/principal.js';
import { ownerAuditBundle, sharedAuditBundle, type AuditBundle } from '../auditor/index.js';
import { openOwnReportSource, openSharedReportSource, type ReportSource } from '../sharing/index.js';
import { checkReportable, pdfReportDecider, pdfReportStream } from './decider.js';
import { buildPdfReport } from './pdf-document.js';
import { evidenceJpegs, photoJpeg, qrCodePng } from './pdf-images.js';
import { signPdf } from './pdf-signature.js';

/**
 * The signed PDF report of a verification (issue 39 item 6): made, when asked for, of the report
 * its page shows (sharing's report sources: the owner's, or a share link's, each behind its own
 * access check), signed with the service's signing certificate, and recorded (PdfReportIssued,
 * with the PDF's digest) before it is sent.
 */

export interface IssuedPdfReport {
  pdf: Buffer;
  /** A file name for the download: the reference, else the verification's name. */
  fileName: string;
}

const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

async function issue(deps: AppDeps, call: Call, source: ReportSource, bundle: AuditBundle, audience: 'owner' | 'share_link'): Promise<IssuedPdfReport> {
  const { report } = source;
  // The verification's account owns the record, whoever asked (a share link's reader too, as a counted view).
  const context = commandContext(deps, call, { ...actorOf(call.principal), accountId: source.accountId });
  const now = context.now;
  const [photo, evidence, share] = await Promise.all([
    photoJpeg(source),
    evidenceJpegs(source),
    source.shareUrl ? qrCodePng(source.shareUrl).then((qrPng) => ({ url: source.shareUrl!, qrPng })) : null,
  ]);
  const auditBundleSha256 = sha256(canonicalJson(bundle));
  const unsigned = await buildPdfReport({ serviceName: deps.config.SERVICE_NAME, report, photo, evidence, share, auditBundleSha256, issuedAt: now });
  const pdf = await signPdf(unsigned, await deps.signer(), now);
  await execute(
    deps,
    call,
    pdfReportStream(source.verificationId),
    pdfReportDecider,
    { type: 'Issue', status: report.status, sha256: sha256(pdf), file_size_bytes: pdf.length, audit_bundle_sha256: auditBundleSha256, audience, now },
    context,
  );
  const fileName = `verification-report-${(report.short_code || report.name).replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80)}.pdf`;
  return { pdf, fileName };
}

/** The owner's report: GET /v1/verifications/{id}'s read rule (another account's is VERIFICATION_NOT_FOUND); a failed or unfinished one is PDF_REPORT_NOT_READY. */
export async function ownPdfReport(deps: AppDeps, call: Call, verificationId: string): Promise<IssuedPdfReport> {
  const principal = callerOf(call);
  const source = await openOwnReportSource(deps, principal, verificationId);
  checkReportable(source.report.status);
  const bundle = await ownerAuditBundle(deps, principal, verificationId);
  return issue(deps, call, source, bundle, 'owner');
}

/** A share link's report: the report page's access check (NOT_SHARED / ACCESS_DENIED), the share link's audit bundle (personal fields as digests). */
export async function sharedPdfReport(deps: AppDeps, call: Call, request: { token: string; viewer: Principal | null; inviteProof?: string }): Promise<IssuedPdfReport> {
  const source = await openSharedReportSource(deps, request);
  checkReportable(source.report.status);
  const bundle = await sharedAuditBundle(deps, request);
  return issue(deps, call, source, bundle, source.report.viewer === 'owner' ? 'owner' : 'share_link');
}
