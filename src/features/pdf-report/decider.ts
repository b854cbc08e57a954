import type { Decider } from '../../core/es/decider.js';
import { pdfReportNotReady } from './errors.js';
import { pdfReportEvents, type PdfReportEvent } from './events.js';

export { pdfReportStream } from './events.js';

/** Only a graded verification has a result a signed report can state (a failed one has none). */
export function checkReportable(status: string): void {
  if (status !== 'completed') throw pdfReportNotReady(status);
}

export type PdfReportCommand = {
  type: 'Issue';
  /** The verification's status, as the report the PDF was made of says. */
  status: string;
  sha256: string;
  file_size_bytes: number;
  audit_bundle_sha256: string;
  audience: 'owner' | 'share_link';
  now: Date;
};

/** How many reports were issued: nothing decides on more than that, every issue is recorded. */
export type PdfReportState = { issued: number };

export const pdfReportDecider: Decider<PdfReportState, PdfReportCommand, typeof pdfReportEvents> = {
  catalogue: pdfReportEvents,
  initialState: () => ({ issued: 0 }),

  // One event and one command: each issued report counts, and each Issue records one.
  evolve: (state) => ({ issued: state.issued + 1 }),

  decide(command): PdfReportEvent[] {
    checkReportable(command.status);
    const { sha256, file_size_bytes, audit_bundle_sha256, audience } = command;
    return [{ type: 'PdfReportIssued', data: { sha256, file_size_bytes, audit_bundle_sha256, audience, issued_at: command.now.toISOString() } }];
  },
};
