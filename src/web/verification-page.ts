import type { Html } from '../core/text/html.js';
import type { Reply } from '../core/http/route-spec.js';
import { openOwnReport } from '../features/sharing/index.js';
import { getVerification } from '../features/verifications/index.js';
import type { AppContext } from './context.js';
import type { DetailView } from './pages.js';
import { pageNeedsScript, renderVerificationPage } from './report-view.js';
import type { AppSession } from './session.js';
import { appPageHeaders, newNonce } from './shell.js';
import type { SectionRefusal } from './verification-section.js';
import { VERIFICATION_SECTIONS } from './verification-sections.js';

/**
 * A verification's page: what GET /v1/verifications/{id} answers (the same use case; another
 * account's id is its 404), the report a share link shows (sharing's openOwnReport, its
 * renderers; report-view.ts), and then every registered section in order. The detail route answers
 * with it, and a section's refused form answers with it too (its 4xx status, the section showing
 * the message and what was typed), so the page is the same page either way.
 */
export async function verificationPage(
  ctx: AppContext,
  session: AppSession,
  verificationId: string,
  options: { status?: number; query?: Record<string, string | undefined>; refused?: SectionRefusal } = {},
): Promise<Reply> {
  const [found, report, viewer] = await Promise.all([
    getVerification(ctx.deps, session.principal, verificationId),
    openOwnReport(ctx.deps, session.principal, verificationId),
    ctx.viewerOf(session),
  ]);
  const verification = found as unknown as DetailView;
  // Sections render before the document (they are async and take the page's nonce), so the nonce is made here rather than by ctx.page.
  const nonce = newNonce();
  const input = { ctx, session, verification, nonce, query: options.query ?? {}, refused: options.refused };
  const rendered = await Promise.all(VERIFICATION_SECTIONS.map(async (section) => ({ section, html: await section.render(input) })));
  const shown = rendered.filter((r): r is { section: (typeof r)['section']; html: Html } => r.html !== null);
  const script = shown.some((r) => r.section.script === true) || pageNeedsScript({ verification, report, appPath: ctx.appPath });
  return {
    status: options.status ?? 200,
    headers: appPageHeaders(nonce, { script }),
    html: renderVerificationPage({ serviceName: ctx.serviceName, nonce, appPath: ctx.appPath, viewer, verification, report, sections: shown.map((r) => r.html) }),
  };
}
