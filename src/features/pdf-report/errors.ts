import { ConflictError, defineErrors } from '../../core/errors.js';

/** Error codes of this feature and their HTTP statuses (docs/errors.md documents each). */
export const pdfReportErrors = defineErrors({
  /** The verification has no result to report: not finished yet, or failed. */
  PDF_REPORT_NOT_READY: 409,
});

type Codes = typeof pdfReportErrors;
declare module '../../core/errors.js' {
  interface ErrorCodes extends Codes {}
}

export const pdfReportNotReady = (status: string) =>
  new ConflictError(
    'PDF_REPORT_NOT_READY',
    status === 'failed' ? 'This verification failed: it has no result for a signed report to state.' : `This verification is not finished yet (it is ${status}): its signed report can be made once it is graded.`,
    {
      suggestion:
        status === 'failed'
          ? 'The report page says why it failed and what to do next; verify the files again with a new upload.'
          : 'Wait for it (GET /v1/verifications/{verification_id} shows its status), then ask again.',
      details: { status },
    },
  );
