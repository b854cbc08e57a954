import { describe, it } from 'vitest';
import { given } from '../../../test/support/decider-spec.js';
import { anchorDecider, type AnchorCommand } from './decider.js';
import type { AnchorEvent } from './events.js';

const T0 = new Date('2026-03-01T10:00:00.000Z');
const T1 = new Date('2026-03-01T10:01:00.000Z');
const V1 = '0d000000-0000-4000-8000-000000000001';
const HASH = 'a'.repeat(64);

const batch = (root = 'b'.repeat(64)) => ({
  batch_id: '1',
  sealed_at: T0.toISOString(),
  root,
  tree_size: 1,
  records: [{ record: { verification_id: V1, stream: `verification-${V1}`, revision: 7, event_hash: HASH, image_sha256: HASH, raw_sha256: null }, record_hash: HASH }],
  signature: { algorithm: 'ES256' as const, value: 'c2ln', signed: '{}', certificate_chain: ['PEM'] },
});
const seal = (root?: string): AnchorCommand => ({ type: 'Seal', batch: batch(root) });
const sealed = (root?: string): AnchorEvent => ({ type: 'AnchorBatchSealed', data: batch(root) });
const stamp: AnchorCommand = { type: 'RecordTimestamp', authority: 'http://tsa.test/', token: 'dG9rZW4=', now: T1 };
const stamped: AnchorEvent = { type: 'AnchorBatchTimestamped', data: { authority: 'http://tsa.test/', token: 'dG9rZW4=', timestamped_at: T1.toISOString() } };
const fail: AnchorCommand = { type: 'RecordTimestampFailure', authority: 'http://tsa.test/', reason: 'HTTP 503', now: T1 };
const failed: AnchorEvent = { type: 'AnchorTimestampFailed', data: { authority: 'http://tsa.test/', reason: 'HTTP 503', failed_at: T1.toISOString() } };

describe('anchor batch decider', () => {
  describe('seal', () => {
    it('records a new batch', () => given(anchorDecider, []).when(seal()).then([sealed()]));
    it('never seals a batch twice: a second sealing (another root) records nothing', () => given(anchorDecider, [sealed()]).when(seal('c'.repeat(64))).thenNothing());
  });

  describe('timestamp', () => {
    it('records the token of a sealed batch', () => given(anchorDecider, [sealed()]).when(stamp).then([stamped]));
    it('records a failure after the last attempt', () => given(anchorDecider, [sealed()]).when(fail).then([failed]));
    it('records one outcome only: a token after a token', () => given(anchorDecider, [sealed(), stamped]).when(stamp).thenNothing());
    it('records one outcome only: a failure after a token', () => given(anchorDecider, [sealed(), stamped]).when(fail).thenNothing());
    it('records one outcome only: a token after a failure', () => given(anchorDecider, [sealed(), failed]).when(stamp).thenNothing());
    it('records nothing for a batch never sealed', () => given(anchorDecider, []).when(stamp).thenNothing());
  });
});
