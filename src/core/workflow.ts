/**
 * The workflow engine port. Two adapters: in-process (default) and Temporal (TEMPORAL_ADDRESS).
 * Both drive the same activities (workflows/verification/activities.ts).
 */
export interface WorkflowEngine {
  readonly kind: 'inprocess' | 'temporal';
  /** Resumes unfinished work and starts accepting submissions. */
  start(): Promise<void>;
  /** Schedules the verification workflow; submitting one already scheduled or finished is a no-op. */
  submit(verificationId: string): void;
  /** Stops taking work; running workflows finish (in-process) or stay with the server (Temporal). */
  stop(): Promise<void>;
  /** Resolves when nothing this process started is still running (tests, benchmarks). */
  idle(): Promise<void>;
  /** The engine as a dependency in GET /v1/public/health (absent: always ok, nothing external). */
  health?(): Promise<EngineHealth>;
}

export interface EngineHealth {
  status: 'ok' | 'degraded' | 'down';
  adapter: string;
  detail?: string;
}
