import crypto from 'node:crypto';
import type { AssuranceLevel } from '../../src/analysis/types.js';
import { systemContext } from '../../src/core/es/commands.js';
import { appendFacts } from '../../src/core/es/decider.js';
import { verificationStream } from '../../src/features/verifications/decider.js';
import { verificationEvents, type FailureFault } from '../../src/features/verifications/events.js';
import type { TestService } from './service.js';

export interface SeededEnd {
  /** The level VerificationGraded records; null: never graded. */
  level: AssuranceLevel | null;
  /** How it ended: completed, or failed with this reason and fault. */
  end: 'completed' | { reason: string; fault: FailureFault };
}

/**
 * A RAW+image pair's history as processing records it, appended straight to the log (no files,
 * no workflow: it is already finished): queued, started, graded at `level`, then completed or
 * failed. The read models are built from these events as from any others. Returns its id.
 */
export async function seedPair(t: Pick<TestService, 'service'>, accountId: string, name: string, { level, end }: SeededEnd): Promise<string> {
  const id = crypto.randomUUID();
  const at = new Date().toISOString();
  const file = (kind: string, format: string) => ({ blob_key: `verifications/${id}/${kind}.${format.toLowerCase()}`, filename: `${name}.${format}`, format, content_type: 'application/octet-stream', size: 1, sha256: 'c'.repeat(64), sha512: 'd'.repeat(128) });
  const context = systemContext(t.service.deps, { actor: { type: 'system', id: 'test-seed' }, correlationId: crypto.randomUUID(), accountId });
  const grade = level && {
    type: 'VerificationGraded' as const,
    data: {
      assurance_level: level, assurance_reason: 'seeded', verdict: null, verdict_reason: null, capture_verified: level === 'verified',
      result: level === 'verified' || level === 'provisional', result_confidence: 0.9, evidence_report: null,
      raw_metadata: {}, image_metadata: {}, rendition_info: {}, rendition_corrected_info: {}, graded_at: at,
    },
  };
  await appendFacts(t.service.deps.store, verificationStream(id), verificationEvents, [
    {
      type: 'VerificationQueued',
      data: { verification_id: id, account_id: accountId, mode: 'raw_pair', name: `${name}.JPG`, short_code: 'L-SEEDED', pipeline_build: 'seed', image: file('image', 'JPG'), raw: file('raw', 'CR2'), queued_at: at, anonymous: false, capture: null, billing: { counted: false, overage: false, price_eur: 0 } },
    },
    { type: 'VerificationStarted', data: { started_at: at } },
    ...(grade ? [grade] : []),
    end === 'completed'
      ? { type: 'VerificationCompleted' as const, data: { completed_at: at } }
      : { type: 'VerificationFailed' as const, data: { failure_reason: end.reason, fault: end.fault, failed_at: at } },
  ], context);
  return id;
}
