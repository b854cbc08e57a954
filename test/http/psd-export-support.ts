import crypto from 'node:crypto';
import { appendFacts } from '../../src/core/es/decider.js';
import { verificationEvents, verificationStream } from '../../src/features/verifications/events.js';
import type { TestService } from '../support/service.js';

/**
 * Verifications recorded straight into a test service's log (as the pipeline would leave them),
 * so PSD export suites need not run the analysis of a pair: a RAW+JPEG pair completed, an
 * image-only one completed, a pair still in progress. The PSD builder is stubbed in those suites
 * (its own tests build real files); these records have no files.
 */
export async function seedVerification(t: TestService, accountId: string, kind: 'pair' | 'image_only' | 'pair_in_progress' = 'pair', canvas?: { width: number; height: number }): Promise<string> {
  const id = crypto.randomUUID();
  const at = t.service.deps.now().toISOString();
  const file = (name: string, format: string, content_type: string) => ({ blob_key: `verifications/${id}/${name.toLowerCase()}`, filename: name, format, content_type, size: 1, sha256: 'a'.repeat(64), sha512: 'b'.repeat(128) });
  const raw = kind === 'image_only' ? null : file('IMG_5952.CR2', 'CR2', 'image/x-canon-cr2');
  const context = { accountId, actor: { type: 'system' as const, id: 'seed' }, correlationId: id, causationId: id, processingRegion: 'eu', now: new Date(at) };
  const { position } = await appendFacts(t.service.deps.store, verificationStream(id), verificationEvents, [
    {
      type: 'VerificationQueued',
      data: {
        verification_id: id,
        account_id: accountId,
        mode: raw ? 'raw_pair' : 'image_only',
        name: 'IMG_5952.jpg',
        short_code: 'L-SEEDED',
        pipeline_build: 'seed',
        image: file('IMG_5952.jpg', 'JPEG', 'image/jpeg'),
        raw,
        queued_at: at,
        anonymous: false,
        capture: null,
        billing: { counted: false, overage: false, price_eur: 0 },
      },
    },
    // The photo's decoded size, as the analysis grades it (`canvas`: the PSD export's canvas).
    ...(canvas ? [{ type: 'VerificationStarted' as const, data: { started_at: at } }, { type: 'VerificationGraded' as const, data: graded(canvas, at) }] : []),
    kind === 'pair_in_progress' ? { type: 'VerificationStarted', data: { started_at: at } } : { type: 'VerificationCompleted', data: { completed_at: at } },
  ], context);
  if (!(await t.service.deps.readModels.waitFor(position, 30_000))) throw new Error('read models did not catch up with the seeded verification');
  return id;
}

const graded = (canvas: { width: number; height: number }, at: string) => ({
  assurance_level: 'verified' as const,
  assurance_reason: 'seeded',
  verdict: null,
  verdict_reason: null,
  capture_verified: false,
  result: true,
  result_confidence: 0.9,
  evidence_report: null,
  raw_metadata: { format: 'CR2' },
  image_metadata: { format: 'jpeg', width: canvas.width, height: canvas.height },
  rendition_info: {},
  rendition_corrected_info: {},
  graded_at: at,
});

/** A stubbed build waits for this gate when one is set (tests hold exports in progress with it). */
export class Gate {
  private opened!: () => void;
  readonly promise = new Promise<void>((resolve) => (this.opened = resolve));
  open(): void {
    this.opened();
  }
}
