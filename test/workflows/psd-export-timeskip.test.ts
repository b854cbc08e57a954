import crypto from 'node:crypto';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { expect, it } from 'vitest';
import type { psdExportWorkflow } from '../../workflows/index.js';
import { PSD_EXPORT_TTL_MS } from '../../workflows/psd-export/policy.js';
import { PSD_EXPORT_WORKFLOW_TYPE, PSD_REJECTED, type PsdExpiryStep, type PsdExportActivities, type PsdExportStep, type PsdFile } from '../../workflows/psd-export/workflow.js';
import { runOnTimeSkipping, timeSkippingServer, useTimeSkippingEnv } from '../support/timeskip.js';

/**
 * The PSD export workflow on Temporal's time-skipping test server, with scripted activities: the
 * 30 days after completion are a durable timer the server skips, and the expiry is attempted only
 * once the server's clock has passed them; a build that cannot succeed is recorded as failed (and
 * released) at once, with its reason, and no timer follows.
 */
const testServer = timeSkippingServer('the PSD export workflow');

const FILE: PsdFile = { blob_key: 'verifications/v1/export.psd', sha256: 'a'.repeat(64), file_size_bytes: 10, canvas_width: 30, canvas_height: 20 };

testServer.describe('PSD export workflow on the time-skipping test server', () => {
  const env = useTimeSkippingEnv();

  /** Runs one export with these activities; every call is logged with the server's time. */
  async function run(script: (calls: { step: string; at: number }[]) => Partial<Record<keyof PsdExportActivities, (...args: any[]) => Promise<unknown>>>) {
    const calls: { step: string; at: number }[] = [];
    const scripted = script(calls);
    const activities = Object.fromEntries(
      Object.entries(scripted).map(([step, fn]) => [
        step,
        async (...args: unknown[]) => {
          calls.push({ step, at: Context.current().info.currentAttemptScheduledTimestampMs });
          return fn!(...args);
        },
      ]),
    );
    const exportId = crypto.randomUUID();
    const outcome = await runOnTimeSkipping<typeof psdExportWorkflow>(env(), {
      type: PSD_EXPORT_WORKFLOW_TYPE,
      workflowId: `${PSD_EXPORT_WORKFLOW_TYPE}-${exportId}`,
      args: [exportId, { verification_id: 'v1' }],
      activities,
    });
    return { outcome, calls };
  }

  it('builds, completes, sleeps 30 days after the completion, asks again when told it is early, then expires', async () => {
    let completedAt = 0;
    const { outcome, calls } = await run((calls) => ({
      startPsdExport: async (): Promise<PsdExportStep> => ({ status: 'in_progress' }),
      buildPsdExport: async (): Promise<PsdFile> => FILE,
      completePsdExport: async (): Promise<PsdExportStep> => {
        completedAt = calls.at(-1)!.at;
        return { status: 'completed', completedAt: new Date(completedAt).toISOString() };
      },
      failPsdExport: async () => {
        throw new Error('not expected');
      },
      expirePsdExport: async (): Promise<PsdExpiryStep> =>
        calls.filter((c) => c.step === 'expirePsdExport').length === 1 ? { outcome: 'not_due', dueAt: completedAt + PSD_EXPORT_TTL_MS + 60_000 } : { outcome: 'expired' },
    }));
    expect(outcome).toBe('expired');
    expect(calls.map((c) => c.step)).toEqual(['startPsdExport', 'buildPsdExport', 'completePsdExport', 'expirePsdExport', 'expirePsdExport']);
    const expiries = calls.filter((c) => c.step === 'expirePsdExport');
    expect(expiries[0]!.at).toBeGreaterThanOrEqual(completedAt + PSD_EXPORT_TTL_MS);
    expect(expiries[1]!.at).toBeGreaterThanOrEqual(completedAt + PSD_EXPORT_TTL_MS + 60_000);
  }, 180_000);

  it('records a build that cannot succeed as failed at once, with its reason, and ends without a timer', async () => {
    const reasons: string[] = [];
    const { outcome, calls } = await run(() => ({
      startPsdExport: async (): Promise<PsdExportStep> => ({ status: 'in_progress' }),
      buildPsdExport: async () => {
        throw ApplicationFailure.nonRetryable('The verification was deleted.', PSD_REJECTED);
      },
      completePsdExport: async () => {
        throw new Error('not expected');
      },
      failPsdExport: async (_v: string, _e: string, reason: string): Promise<PsdExportStep> => {
        reasons.push(reason);
        return { status: 'failed' };
      },
      expirePsdExport: async () => {
        throw new Error('not expected');
      },
    }));
    expect(outcome).toBe('failed');
    expect(calls.map((c) => c.step)).toEqual(['startPsdExport', 'buildPsdExport', 'failPsdExport']);
    expect(reasons).toEqual(['The verification was deleted.']);
  }, 180_000);

  it('ends at once when the export was superseded by a newer one', async () => {
    const { outcome, calls } = await run(() => ({
      startPsdExport: async (): Promise<PsdExportStep> => ({ status: 'superseded' }),
      buildPsdExport: async () => FILE,
      completePsdExport: async () => ({ status: 'superseded' }),
      failPsdExport: async () => ({ status: 'superseded' }),
      expirePsdExport: async () => ({ outcome: 'superseded' }),
    }));
    expect(outcome).toBe('superseded');
    expect(calls.map((c) => c.step)).toEqual(['startPsdExport']);
  }, 180_000);
});
