import type { FeatureModule } from '../../core/module/module.js';
import { accountStreams } from '../../core/es/stream-read-rules.js';
import { pdfReportErrors } from './errors.js';
import { pdfReportEvents, pdfReportStream } from './events.js';
import { pdfReportRoutes } from './routes.js';

/** Signed PDF reports of graded verifications: made of the report page's report, signed with the service's certificate, each one's digest recorded. */
export const pdfReportModule = {
  name: 'pdf-report',
  events: [pdfReportEvents],
  routes: pdfReportRoutes,
  errors: pdfReportErrors,
  // Their history: for every user of the owning account, as the verification's own.
  streamReadRules: [accountStreams(pdfReportStream)],
} satisfies FeatureModule;
