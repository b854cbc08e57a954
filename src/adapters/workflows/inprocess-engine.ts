import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { VERIFICATION_DEADLINE_MS } from '../../features/verifications/decider.js';
import type { WorkflowEngine } from '../../core/workflow.js';
import { failureReason, type VerificationActivities } from '../../features/verifications/activities.js';

const SWEEP_MS = 30_000;

/**
 * Runs verification workflows inside the server process. Durable because the events say what
 * is unfinished: at start-up and on every sweep, each verification still queued or in
 * progress is (re)run, and every step it repeats is a no-op in the decider. Timers are derived
 * from timestamps: the 10-minute deadline is checked against `queued_at`.
 */
export class InProcessWorkflowEngine implements WorkflowEngine {
  readonly kind = 'inprocess' as const;
  private readonly queue: string[] = [];
  private readonly active = new Map<string, Promise<void>>();
  private sweepTimer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly activities: VerificationActivities,
    private readonly knex: Knex,
    private readonly log: Logger,
    private readonly now: () => Date,
    private readonly concurrency = 2,
  ) {}

  async start(): Promise<void> {
    await this.sweep();
    this.sweepTimer = setInterval(() => void this.sweep().catch((error) => this.log.error({ err: error }, 'workflow sweep failed')), SWEEP_MS);
    this.sweepTimer.unref();
  }

  /** Schedules a verification; a no-op when it is already queued or running. */
  submit(id: string): void {
    if (this.stopped || this.active.has(id) || this.queue.includes(id)) return;
    this.queue.push(id);
    this.pump();
  }

  /** Stops taking work and waits for running verifications to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.sweepTimer);
    this.queue.length = 0;
    await Promise.allSettled(this.active.values());
  }

  /** Resolves when no verification is queued or running (tests, benchmarks). */
  async idle(): Promise<void> {
    while (this.queue.length > 0 || this.active.size > 0) await Promise.allSettled(this.active.values());
  }

  private async sweep(): Promise<void> {
    const unfinished = await this.knex('verifications').whereIn('status', ['queued', 'in_progress']).orderBy('created_at').pluck('id');
    for (const id of unfinished) this.submit(id);
  }

  private pump(): void {
    while (!this.stopped && this.active.size < this.concurrency && this.queue.length > 0) {
      const id = this.queue.shift()!;
      const run = this.run(id).finally(() => {
        this.active.delete(id);
        this.pump();
      });
      this.active.set(id, run);
    }
  }

  private async run(id: string): Promise<void> {
    const a = this.activities;
    let state = await a.load(id);
    if (state.status !== 'queued' && state.status !== 'in_progress') return;
    const accountId = state.accountId ?? null;
    const deadline = (state.queuedAt?.getTime() ?? 0) + VERIFICATION_DEADLINE_MS;
    try {
      if (this.now().getTime() >= deadline) throw new DeadlineExceeded();
      state = await a.start(id);
      await withDeadline(a.analyzeAndGrade(id), deadline - this.now().getTime());
      await withDeadline(a.signAndRender(id), deadline - this.now().getTime());
      await a.thumbnail(id);
      await a.complete(id, accountId!);
    } catch (error) {
      const reason = error instanceof DeadlineExceeded ? 'The verification did not complete within 10 minutes.' : failureReason(error);
      if (!(error instanceof DeadlineExceeded)) this.log.error({ err: error, verification: id }, 'verification failed');
      await a.fail(id, accountId, reason);
    }
  }
}

class DeadlineExceeded extends Error {}

function withDeadline<T>(work: Promise<T>, remainingMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceeded()), Math.max(0, remainingMs));
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
