import { ApplicationFailure } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { VERIFICATION_DEADLINE_MS } from '../../src/features/verifications/decider.js';
import { AppError } from '../../src/core/errors.js';
import { createTemporalActivities } from '../../src/adapters/workflows/temporal/activities.js';
import { REJECTED, STEP_FAILED } from '../../src/adapters/workflows/temporal/shared.js';
import { failureReason, type VerificationActivities } from '../../src/features/verifications/activities.js';

/** The Temporal activity wrappers alone (MockActivityEnvironment, no server): values and error translation. */
function steps(overrides: Partial<VerificationActivities> = {}): VerificationActivities {
  const queuedAt = new Date('2026-01-01T00:00:00Z');
  const base = {
    load: async () => ({ status: 'in_progress', accountId: 'acc_1', queuedAt, analyses: new Set(), renditions: new Map() }),
    start: async () => ({}),
    analyzeAndGrade: async () => ({}),
    signAndRender: async () => undefined,
    thumbnail: async () => undefined,
    complete: async () => undefined,
    fail: async () => undefined,
  };
  return { ...base, ...overrides } as unknown as VerificationActivities;
}

const log = pino({ level: 'silent' });
/** The failures below are intended: keep the SDK's activity-failure warnings off the console. */
const mockEnvironment = () => new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });

describe('Temporal activities (wrappers over the shared verification steps)', () => {
  it('snapshots the verification as plain JSON with its deadline from queued_at', async () => {
    const activities = createTemporalActivities(steps(), log);
    const snapshot = await mockEnvironment().run(activities.snapshot, 'v1');
    expect(snapshot).toEqual({ status: 'in_progress', accountId: 'acc_1', deadlineAt: Date.parse('2026-01-01T00:00:00Z') + VERIFICATION_DEADLINE_MS });
    expect(JSON.parse(JSON.stringify(snapshot))).toEqual(snapshot);
  });

  it('heartbeats during the analysis', async () => {
    const activities = createTemporalActivities(steps({ analyzeAndGrade: async () => (await new Promise((r) => setTimeout(r, 50)), {}) as never }), log);
    const env = mockEnvironment();
    const beats: unknown[] = [];
    env.on('heartbeat', (details: unknown) => beats.push(details));
    await env.run(activities.analyzeAndGrade, 'v1');
    expect(beats).toContainEqual({ step: 'analyzeAndGrade' });
  });

  it('turns a business failure into a non-retryable ApplicationFailure carrying the user-facing reason', async () => {
    const activities = createTemporalActivities(
      steps({ analyzeAndGrade: async () => Promise.reject(new AppError('UNSUPPORTED_FORMAT', 'This RAW compression is not supported.')) }),
      log,
    );
    const error = await mockEnvironment().run(activities.analyzeAndGrade, 'v1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApplicationFailure);
    expect(error).toMatchObject({ type: REJECTED, nonRetryable: true, message: 'This RAW compression is not supported.' });
  });

  it('turns anything else into a retryable failure with the generic reason (the details keep the cause)', async () => {
    const activities = createTemporalActivities(steps({ signAndRender: async () => Promise.reject(new Error('ECONNRESET')) }), log);
    const error = await mockEnvironment().run(activities.signAndRender, 'v1').catch((e: unknown) => e);
    expect(error).toMatchObject({ type: STEP_FAILED, nonRetryable: false, message: failureReason(new Error('x')), details: ['ECONNRESET'] });
  });

  it('records the generic reason when the workflow has none of ours', async () => {
    const failed: unknown[] = [];
    const activities = createTemporalActivities(steps({ fail: async (...args) => void failed.push(args) }), log);
    await mockEnvironment().run(activities.fail, 'v1', 'acc_1', null);
    await mockEnvironment().run(activities.fail, 'v2', null, 'The verification did not complete within 10 minutes.');
    expect(failed).toEqual([
      ['v1', 'acc_1', failureReason(null)],
      ['v2', null, 'The verification did not complete within 10 minutes.'],
    ]);
  });
});
