import { describe, it } from 'vitest';
import { given } from '../../../test/support/decider-spec.js';
import { pdfReportDecider, type PdfReportCommand } from './decider.js';
import type { PdfReportEvent } from './events.js';

const T0 = new Date('2026-03-01T10:00:00.000Z');
const PDF = { sha256: 'a'.repeat(64), file_size_bytes: 48_213, audit_bundle_sha256: 'b'.repeat(64) };

const issue = (status = 'completed', audience: 'owner' | 'share_link' = 'owner'): PdfReportCommand => ({ type: 'Issue', status, audience, now: T0, ...PDF });
const issued = (audience: 'owner' | 'share_link' = 'owner'): PdfReportEvent => ({ type: 'PdfReportIssued', data: { ...PDF, audience, issued_at: T0.toISOString() } });

describe('PDF report decider', () => {
  it('records the digest of a report issued to the owner', () => given(pdfReportDecider, []).when(issue()).then([issued()]));
  it('records every report issued, also after earlier ones (each is signed anew)', () => given(pdfReportDecider, [issued(), issued('share_link')]).when(issue('completed', 'share_link')).then([issued('share_link')]));
  it('refuses a failed verification: it has no result to state', () => given(pdfReportDecider, []).when(issue('failed')).thenThrows('PDF_REPORT_NOT_READY'));
  for (const status of ['pending', 'queued', 'in_progress']) {
    it(`refuses a verification that is ${status}`, () => given(pdfReportDecider, []).when(issue(status)).thenThrows('PDF_REPORT_NOT_READY'));
  }
});
