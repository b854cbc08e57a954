import type { AnalysisResult, Grade } from '../analysis/types.js';
import type { CredentialsReport } from './check.js';

/**
 * Image-only grading: a verification's result entry and grade from the Content Credentials
 * report alone. Pure, like the pair grading in src/analysis/grading.ts.
 */
export function gradeFromCredentials(report: CredentialsReport): {
  results: (Omit<AnalysisResult, 'analysis'> & { analysis: 'c2pa_credentials' })[];
  grade: Grade & { evidence_report: Record<string, unknown> };
} {
  return {
    results: [
      {
        analysis: 'c2pa_credentials',
        result: report.assurance_level === 'provenance' ? true : report.assurance_level === 'flagged' ? false : null,
        confidence_score: report.evidence_report.validation_state ? 1 : 0,
        details: { verdict: report.verdict, verdict_reason: report.verdict_reason, validation_state: report.evidence_report.validation_state ?? null },
      },
    ],
    grade: {
      assurance_level: report.assurance_level,
      assurance_reason: `Content Credentials: ${report.verdict} (${report.verdict_reason}).`,
      verdict: report.verdict,
      verdict_reason: report.verdict_reason,
      capture_verified: false,
      result: report.assurance_level === 'provenance',
      result_confidence: 0,
      evidence_report: report.evidence_report as unknown as Record<string, unknown>,
    },
  };
}
