import { ApplicationFailure } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { VERIFICATION_DEADLINE_MS } from '../../src/features/verifications/decider.js';
import { AppError } from '../../src/core/errors.js';
import { type WorkflowDefinition } from '../../workflows/definition.js';
import { registerWorkflow } from '../../src/core/es/workflow.js';
import { createTemporalActivities, type TemporalActivityFunction } from '../../src/adapters/workflows/temporal/activities.js';
import { createVerificationWorkflowActivities, failureReason, type VerificationActivities } from '../../src/features/verifications/activities.js';
import { REJECTED, STEP_FAILED, verificationWorkflow, type VerificationWorkflowActivities } from '../../workflows/verifications/workflow.js';

/** The Temporal activity wrappers alone (MockActivityEnvironment, no server): values and error translation. */
function steps(overrides: Partial<VerificationActivities> = {}): VerificationActivities {
  const queuedAt = new Date('2026-01-01T00:00:00Z');
  const base = {
    load: async () => ({ status: 'in_progress', accountId: 'acc_1', queuedAt, analyses: new Set(), renditions: new Map() }),
    snapshot: async () => ({ status: 'in_progress', accountId: 'acc_1', queuedAt, analyses: new Set(), renditions: new Map() }),
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

function temporalActivities(verificationSteps: VerificationActivities): Record<string, TemporalActivityFunction> {
  return createTemporalActivities([registerWorkflow(verificationWorkflow, createVerificationWorkflowActivities(verificationSteps, log))]);
}

describe('Temporal activities (the verification workflow activities on a Temporal worker)', () => {
  it('snapshots the verification as plain JSON with its deadline from queued_at', async () => {
    const activities = temporalActivities(steps());
    const snapshot = await mockEnvironment().run(activities.snapshot!, 'v1');
    expect(snapshot).toEqual({ status: 'in_progress', accountId: 'acc_1', deadlineAt: Date.parse('2026-01-01T00:00:00Z') + VERIFICATION_DEADLINE_MS });
    expect(JSON.parse(JSON.stringify(snapshot))).toEqual(snapshot);
  });

  it('returns nothing from steps whose state is not JSON', async () => {
    const activities = temporalActivities(steps({ start: async () => ({ analyses: new Set(['x']) }) as never }));
    expect(await mockEnvironment().run(activities.start!, 'v1')).toBeUndefined();
  });

  it('heartbeats during the analysis (the activity with a heartbeat timeout)', async () => {
    const activities = temporalActivities(steps({ analyzeAndGrade: async () => (await new Promise((r) => setTimeout(r, 50)), {}) as never }));
    const env = mockEnvironment();
    const beats: unknown[] = [];
    env.on('heartbeat', (details: unknown) => beats.push(details));
    await env.run(activities.analyzeAndGrade!, 'v1');
    expect(beats).toContainEqual({ step: 'analyzeAndGrade' });
  });

  it('hands the analysis the cancellation signal: cancelling the activity aborts it', async () => {
    let seen: AbortSignal | undefined;
    const activities = temporalActivities(
      steps({
        analyzeAndGrade: (async (_id: string, signal?: AbortSignal) => {
          seen = signal;
          await new Promise((_, reject) => signal!.addEventListener('abort', () => reject(signal!.reason)));
        }) as never,
      }),
    );
    const env = mockEnvironment();
    const running = env.run(activities.analyzeAndGrade!, 'v1').catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 20));
    env.cancel();
    await running;
    expect(seen?.aborted).toBe(true);
  });

  it('turns a business failure into a non-retryable ApplicationFailure carrying the user-facing reason', async () => {
    const activities = temporalActivities(steps({ analyzeAndGrade: async () => Promise.reject(new AppError('UNSUPPORTED_FORMAT', 'This RAW compression is not supported.')) }));
    const error = await mockEnvironment().run(activities.analyzeAndGrade!, 'v1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApplicationFailure);
    expect(error).toMatchObject({ type: REJECTED, nonRetryable: true, message: 'This RAW compression is not supported.' });
  });

  it('turns anything else into a retryable failure with the generic reason (the details keep the cause)', async () => {
    const activities = temporalActivities(steps({ signAndRender: async () => Promise.reject(new Error('ECONNRESET')) }));
    const error = await mockEnvironment().run(activities.signAndRender!, 'v1').catch((e: unknown) => e);
    expect(error).toMatchObject({ type: STEP_FAILED, nonRetryable: false, message: failureReason(new Error('x')), details: ['ECONNRESET'] });
  });

  it('records the generic reason when the workflow has none of ours, and the fault it gives (read from the reason for a call of an earlier version, which has none)', async () => {
    const failed: unknown[] = [];
    const activities = temporalActivities(steps({ fail: async (...args) => void failed.push(args) }));
    await mockEnvironment().run(activities.fail!, 'v1', 'acc_1', null);
    await mockEnvironment().run(activities.fail!, 'v2', null, 'The verification did not complete within 10 minutes.');
    await mockEnvironment().run(activities.fail!, 'v3', null, 'The file is not a JPEG.');
    await mockEnvironment().run(activities.fail!, 'v4', null, 'Any words at all.', 'service');
    expect(failed).toEqual([
      ['v1', 'acc_1', failureReason(null), 'service'],
      ['v2', null, 'The verification did not complete within 10 minutes.', 'service'],
      ['v3', null, 'The file is not a JPEG.', 'input'],
      ['v4', null, 'Any words at all.', 'service'],
    ]);
  });

  it('refuses two definitions declaring the same activity name (one task queue)', () => {
    const other: WorkflowDefinition<unknown, Pick<VerificationWorkflowActivities, 'fail'>> = { type: 'other', activities: { fail: verificationWorkflow.activities.fail }, run: async () => undefined };
    const implementations = createVerificationWorkflowActivities(steps(), log);
    expect(() => createTemporalActivities([registerWorkflow(verificationWorkflow, implementations), registerWorkflow(other, { fail: implementations.fail })])).toThrow(/registered twice/);
  });
});
