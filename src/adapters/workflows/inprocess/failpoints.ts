/**
 * Crash failpoints (`CRASH_AT`) for the crash tests (test/workflows/crash-points.test.ts): the
 * durability claim is only worth what a process killed mid-run shows. Kept apart from the
 * engine so the one place that may kill the process is plain to see.
 */
import type { Logger } from 'pino';

/**
 * A function called at every failpoint a run passes (`<type>.<activity>:before|after`). When the
 * point is `crashAt`, the process kills itself with SIGKILL: no drain, no cleanup, as a power cut.
 */
export function failpoints(crashAt: string | undefined, log: Logger): (point: string) => void {
  return (point) => {
    if (crashAt !== point) return;
    log.warn({ crash_at: point }, 'CRASH_AT reached: killing this process');
    process.kill(process.pid, 'SIGKILL');
  };
}
