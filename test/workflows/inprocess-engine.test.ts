import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/adapters/db/database.js';
import type { Clock } from '../../src/adapters/workflows/clock.js';
import { InProcessWorkflowEngine, type InProcessEngineOptions } from '../../src/adapters/workflows/inprocess/engine.js';
import { ActivityFailed, isDeadlineExceeded, type ActivityOptions, type WorkflowDefinition } from '../../workflows/definition.js';
import { ActivityError, registerWorkflow, type ActivityImplementations } from '../../src/core/es/workflow.js';
import { databaseTargets } from '../support/databases.js';
import { waitFor } from '../support/poll.js';

/**
 * The in-process engine with fake activities and definitions made for the test (no server, no
 * analysis): retries, non-retryable failures, a deadline cancelling a running activity, and
 * durable sleeps across an engine restart. Time is a hand-moved clock: no wall-clock assertions.
 */

/** A clock that moves only when told to; timers fire in order as it passes them. */
class ManualClock implements Clock {
  private readonly timers: { at: number; fire: () => void }[] = [];
  constructor(private nowMs: number) {}

  now(): Date {
    return new Date(this.nowMs);
  }

  waitUntil(atMs: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      if (atMs <= this.nowMs) return resolve();
      const timer = {
        at: atMs,
        fire: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.timers.splice(this.timers.indexOf(timer), 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.timers.push(timer);
    });
  }

  /** Moves time forward, firing every timer due by then. */
  advance(ms: number): void {
    this.nowMs += ms;
    const due = this.timers.filter((t) => t.at <= this.nowMs).sort((a, b) => a.at - b.at);
    for (const timer of due) {
      this.timers.splice(this.timers.indexOf(timer), 1);
      timer.fire();
    }
  }
}

const log = pino({ level: 'silent' });
const T0 = Date.parse('2026-03-01T12:00:00Z');
const DAY = 24 * 3600_000;
/** The engine's runs here take milliseconds: ask often, give up after ten seconds. */
const promptly = { everyMs: 5, timeoutMs: 10_000 };

const retry = (overrides: Partial<ActivityOptions['retry']> = {}): ActivityOptions['retry'] => ({
  initialIntervalMs: 1_000,
  backoffCoefficient: 2,
  maximumIntervalMs: 30_000,
  maximumAttempts: 4,
  nonRetryableErrorTypes: ['Rejected'],
  ...overrides,
});

for (const target of databaseTargets) {
  describe(`in-process workflow engine on ${target.name}`, () => {
    let db: Database;
    const engines: InProcessWorkflowEngine[] = [];
    beforeAll(async () => {
      db = await target.open();
    });
    afterAll(async () => {
      for (const engine of engines) await engine.stop();
      await db?.close();
    });

    function engine(registrations: ConstructorParameters<typeof InProcessWorkflowEngine>[0], options: InProcessEngineOptions) {
      const created = new InProcessWorkflowEngine(registrations, db.knex, log, { sweepMs: 3_600_000, ...options });
      engines.push(created);
      return created;
    }

    const runRow = (type: string, id: string) => db.knex('workflow_runs').where({ type, id }).first();

    // --- retries -------------------------------------------------------------------------

    interface FlakyActivities {
      flaky(label: string): Promise<string>;
      record(outcome: string): Promise<void>;
    }
    const flakyWorkflow: WorkflowDefinition<{ label: string }, FlakyActivities, string> = {
      type: 'flaky',
      activities: {
        flaky: { startToCloseTimeoutMs: 60_000, retry: retry() },
        record: { startToCloseTimeoutMs: 60_000, retry: retry() },
      },
      async run(ctx, input) {
        try {
          const value = await ctx.activities.flaky(input.label);
          await ctx.activities.record(`ok ${value}`);
          return 'completed';
        } catch (error) {
          if (ctx.isCancellation(error)) throw error;
          const failure = error as ActivityFailed;
          await ctx.activities.record(`failed ${failure.activity} ${failure.type} ${failure.message} nonRetryable=${failure.nonRetryable}`);
          return 'failed';
        }
      },
    };

    /** A clock whose retry back-off waits are skipped as soon as they are asked for. */
    function autoAdvancingClock(): Clock & { waited: number[] } {
      const clock = new ManualClock(T0);
      const waited: number[] = [];
      return {
        waited,
        now: () => clock.now(),
        waitUntil(atMs, signal) {
          const wait = clock.waitUntil(atMs, signal);
          const delay = atMs - clock.now().getTime();
          // Back-off waits are short; start-to-close timers (60 s here) are left pending.
          if (delay < 60_000) {
            waited.push(delay);
            queueMicrotask(() => clock.advance(delay));
          }
          return wait;
        },
      };
    }

    it('retries a transient failure per the policy, then succeeds', async () => {
      const attempts: number[] = [];
      const outcomes: string[] = [];
      const clock = autoAdvancingClock();
      const activities: ActivityImplementations<FlakyActivities> = {
        async flaky({ attempt }, label) {
          attempts.push(attempt);
          if (attempt < 3) throw new Error('connection reset');
          return `${label}#${attempt}`;
        },
        async record(_, outcome) {
          outcomes.push(outcome);
        },
      };
      const e = engine([registerWorkflow(flakyWorkflow, activities)], { clock });
      await e.open();
      await e.start('flaky', 'f1', { label: 'x' });
      await e.idle();
      expect(attempts).toEqual([1, 2, 3]);
      expect(clock.waited).toEqual([1_000, 2_000]); // 1 s, then ×2
      expect(outcomes).toEqual(['ok x#3']);
      expect(await runRow('flaky', 'f1')).toMatchObject({ status: 'completed', result: JSON.stringify('completed') });

      // Starting a finished run again is a no-op.
      await e.start('flaky', 'f1', { label: 'x' });
      await e.idle();
      expect(attempts).toEqual([1, 2, 3]);
    });

    it('gives up after the last attempt with the failure type and message', async () => {
      const attempts: number[] = [];
      const outcomes: string[] = [];
      const activities: ActivityImplementations<FlakyActivities> = {
        async flaky({ attempt }) {
          attempts.push(attempt);
          throw new TypeError('disk on fire');
        },
        async record(_, outcome) {
          outcomes.push(outcome);
        },
      };
      const e = engine([registerWorkflow(flakyWorkflow, activities)], { clock: autoAdvancingClock() });
      await e.start('flaky', 'f2', { label: 'x' });
      await e.idle();
      expect(attempts).toEqual([1, 2, 3, 4]);
      expect(outcomes).toEqual(['failed flaky TypeError disk on fire nonRetryable=false']);
    });

    it('fails a non-retryable failure at once (by the policy’s types and by the error’s own flag)', async () => {
      const calls: string[] = [];
      const outcomes: string[] = [];
      const activities: ActivityImplementations<FlakyActivities> = {
        async flaky(_, label) {
          calls.push(label);
          if (label === 'by-type') throw new ActivityError('Rejected', 'The file is not a photograph.');
          throw new ActivityError('Other', 'Never again.', { nonRetryable: true });
        },
        async record(_, outcome) {
          outcomes.push(outcome);
        },
      };
      const e = engine([registerWorkflow(flakyWorkflow, activities)], { clock: autoAdvancingClock() });
      await e.start('flaky', 'n1', { label: 'by-type' });
      await e.start('flaky', 'n2', { label: 'by-flag' });
      await e.idle();
      expect(calls.sort()).toEqual(['by-flag', 'by-type']);
      expect(outcomes.sort()).toEqual(['failed flaky Other Never again. nonRetryable=true', 'failed flaky Rejected The file is not a photograph. nonRetryable=true']);
    });

    // --- deadline ------------------------------------------------------------------------

    interface DeadlineActivities {
      slow(): Promise<void>;
      fail(reason: string): Promise<void>;
    }
    const deadlineWorkflow: WorkflowDefinition<{ deadlineAt: number }, DeadlineActivities, string> = {
      type: 'deadlineTest',
      activities: {
        slow: { startToCloseTimeoutMs: 3_600_000, retry: retry() },
        fail: { startToCloseTimeoutMs: 60_000, retry: retry() },
      },
      async run(ctx, { deadlineAt }) {
        try {
          await ctx.withDeadline(new Date(deadlineAt), () => ctx.activities.slow());
          return 'completed';
        } catch (error) {
          if (ctx.isCancellation(error)) throw error;
          await ctx.nonCancellable(() => ctx.activities.fail(isDeadlineExceeded(error) ? 'deadline' : String(error)));
          return 'failed';
        }
      },
    };

    it('cancels a running activity when the deadline passes: its signal aborts and the run records the deadline', async () => {
      const clock = new ManualClock(T0);
      let signal: AbortSignal | undefined;
      const failures: string[] = [];
      const activities: ActivityImplementations<DeadlineActivities> = {
        // Never finishes, and does not even listen to its signal: the deadline must end the run anyway.
        slow: async (context) => {
          signal = context.signal;
          await new Promise(() => undefined);
        },
        fail: async (_, reason) => void failures.push(reason),
      };
      const e = engine([registerWorkflow(deadlineWorkflow, activities)], { clock });
      await e.start('deadlineTest', 'd1', { deadlineAt: T0 + 10 * 60_000 });
      await waitFor(() => signal !== undefined, 'the slow activity to start', promptly);
      clock.advance(10 * 60_000 - 1);
      await new Promise((r) => setTimeout(r, 20));
      expect(signal!.aborted).toBe(false);
      expect(failures).toEqual([]);

      clock.advance(1);
      await waitFor(async () => (await runRow('deadlineTest', 'd1'))?.status === 'completed', 'the run to finish', promptly);
      expect(signal!.aborted).toBe(true);
      expect(isDeadlineExceeded(signal!.reason)).toBe(true);
      expect(failures).toEqual(['deadline']);
      expect((await runRow('deadlineTest', 'd1')).result).toBe(JSON.stringify('failed'));
    });

    it('fails at once, without starting the work, when the deadline has already passed', async () => {
      const clock = new ManualClock(T0);
      let started = false;
      const failures: string[] = [];
      const activities: ActivityImplementations<DeadlineActivities> = {
        slow: async () => void (started = true),
        fail: async (_, reason) => void failures.push(reason),
      };
      const e = engine([registerWorkflow(deadlineWorkflow, activities)], { clock });
      await e.start('deadlineTest', 'd2', { deadlineAt: T0 - 1 });
      await e.idle();
      expect(started).toBe(false);
      expect(failures).toEqual(['deadline']);
    });

    // --- durable sleeps --------------------------------------------------------------------

    interface ReminderActivities {
      mark(step: string, at: string): Promise<void>;
    }
    const marks: [string, string, string][] = [];
    const reminderActivities: ActivityImplementations<ReminderActivities> = {
      mark: async (_, step, at) => void marks.push([step, at, '']),
    };
    /** Sleeps a relative time (recorded by position) between two marks. */
    const reminderWorkflow: WorkflowDefinition<{ ms: number }, ReminderActivities, string> = {
      type: 'reminder',
      activities: { mark: { startToCloseTimeoutMs: 60_000, retry: retry() } },
      async run(ctx, { ms }) {
        await ctx.activities.mark(`before ${ctx.id}`, ctx.now().toISOString());
        await ctx.sleep(ms);
        await ctx.activities.mark(`after ${ctx.id}`, ctx.now().toISOString());
        return 'woke';
      },
    };
    /** Expires 30 days after a recorded completion (the PSD export's shape): an absolute wake time. */
    const expiryWorkflow: WorkflowDefinition<{ completedAt: number }, ReminderActivities, string> = {
      type: 'expiry',
      activities: { mark: { startToCloseTimeoutMs: 60_000, retry: retry() } },
      async run(ctx, { completedAt }) {
        await ctx.activities.mark(`built ${ctx.id}`, ctx.now().toISOString());
        await ctx.sleepUntil(new Date(completedAt + 30 * DAY));
        await ctx.activities.mark(`expired ${ctx.id}`, ctx.now().toISOString());
        return 'expired';
      },
    };
    const steps = (id: string) => marks.filter(([step]) => step.endsWith(` ${id}`)).map(([step, at]) => `${step.split(' ')[0]}@${at}`);
    const iso = (ms: number) => new Date(ms).toISOString();

    it('keeps a durable sleep’s wake time across an engine restart', async () => {
      const clock = new ManualClock(T0);
      const first = engine([registerWorkflow(reminderWorkflow, reminderActivities)], { clock, holdSleepsUpToMs: DAY });
      await first.open();
      await first.start('reminder', 's1', { ms: 60_000 });
      await first.idle(); // sleeping counts as idle
      expect(steps('s1')).toEqual([`before@${iso(T0)}`]);
      await first.stop();
      expect(await runRow('reminder', 's1')).toMatchObject({ status: 'running', timers: JSON.stringify([T0 + 60_000]) });

      // A new engine on the same database, 10 s later: the run resumes from the top (its first
      // activity runs again: activities are idempotent) and sleeps until the original wake time.
      clock.advance(10_000);
      const second = engine([registerWorkflow(reminderWorkflow, reminderActivities)], { clock, holdSleepsUpToMs: DAY });
      await second.open();
      await waitFor(() => steps('s1').length === 2, 'the resumed run', promptly);
      await second.idle();
      clock.advance(49_000); // T0 + 59 s
      await new Promise((r) => setTimeout(r, 20));
      await second.idle();
      expect(steps('s1')).toEqual([`before@${iso(T0)}`, `before@${iso(T0 + 10_000)}`]);

      clock.advance(1_000); // T0 + 60 s: the original wake time, not 60 s after the restart
      await waitFor(async () => (await runRow('reminder', 's1'))?.status === 'completed', 'the run to finish', promptly);
      expect(steps('s1')).toEqual([`before@${iso(T0)}`, `before@${iso(T0 + 10_000)}`, `after@${iso(T0 + 60_000)}`]);
      expect((await runRow('reminder', 's1')).result).toBe(JSON.stringify('woke'));
    });

    it('suspends a 30-day sleep out of memory and resumes it from the sweep when it is due', async () => {
      const clock = new ManualClock(T0);
      const e = engine([registerWorkflow(expiryWorkflow, reminderActivities)], { clock, holdSleepsUpToMs: 60_000, sweepMs: 10 });
      await e.open();
      await e.start('expiry', 'p1', { completedAt: T0 });
      // Suspended: the row exists and has its wake time (before the row is written, `?.` gives undefined, not null).
      await waitFor(async () => ((await runRow('expiry', 'p1'))?.wake_at_ms ?? null) !== null, 'the run to be suspended', promptly);
      await e.idle();
      expect(steps('p1')).toEqual([`built@${iso(T0)}`]);
      expect(Number((await runRow('expiry', 'p1')).wake_at_ms)).toBe(T0 + 30 * DAY);

      clock.advance(30 * DAY - 30_000); // within the hold horizon: the sweep brings it back into memory
      await waitFor(() => steps('p1').length === 2, 'the sweep to resume the run', promptly);
      expect((await runRow('expiry', 'p1')).status).toBe('running');
      clock.advance(30_000);
      await waitFor(async () => (await runRow('expiry', 'p1'))?.status === 'completed', 'the run to finish', promptly);
      expect(steps('p1').at(-1)).toBe(`expired@${iso(T0 + 30 * DAY)}`);
    });

    // --- stop ------------------------------------------------------------------------------

    it('stop() lets the running activity finish, then the run pauses until the next open()', async () => {
      const clock = new ManualClock(T0);
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const seen: string[] = [];
      interface TwoSteps {
        one(): Promise<void>;
        two(): Promise<void>;
      }
      const twoSteps: WorkflowDefinition<object, TwoSteps, string> = {
        type: 'twoSteps',
        activities: { one: { startToCloseTimeoutMs: 3_600_000, retry: retry() }, two: { startToCloseTimeoutMs: 60_000, retry: retry() } },
        async run(ctx) {
          await ctx.activities.one();
          await ctx.activities.two();
          return 'done';
        },
      };
      const activities: ActivityImplementations<TwoSteps> = {
        one: async () => {
          seen.push('one started');
          await gate;
          seen.push('one finished');
        },
        two: async () => void seen.push('two'),
      };
      const first = engine([registerWorkflow(twoSteps, activities)], { clock });
      await first.start('twoSteps', 't1', {});
      await waitFor(() => seen.length === 1, 'the first step', promptly);
      let stopped = false;
      const stopping = first.stop().then(() => (stopped = true));
      await new Promise((r) => setTimeout(r, 20));
      expect(stopped).toBe(false); // draining the running step
      release();
      await stopping;
      expect(seen).toEqual(['one started', 'one finished']);
      expect((await runRow('twoSteps', 't1')).status).toBe('running');

      const second = engine([registerWorkflow(twoSteps, activities)], { clock });
      await second.open();
      await waitFor(async () => (await runRow('twoSteps', 't1'))?.status === 'completed', 'the resumed run', promptly);
      expect(seen).toEqual(['one started', 'one finished', 'one started', 'one finished', 'two']);
    });
  });
}
