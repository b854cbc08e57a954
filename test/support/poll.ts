/**
 * Polling for the suites: ask again until the answer comes, bounded generously (machine load up
 * to 10), never a timing assertion. The one copy of what a dozen files each wrote for themselves.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { client } from './service.js';

export interface PollOptions {
  /** How long to keep asking before giving up (default 5 minutes, the most generous of the old copies). */
  timeoutMs?: number;
  /** The pause between two questions (default 100 ms). */
  everyMs?: number;
}

/**
 * Calls `probe` until it answers something truthy and returns that answer (a condition that
 * answers `true` works too); throws `timed out waiting for <what>` after `timeoutMs`.
 */
export async function waitFor<T>(probe: () => T | undefined | null | false | Promise<T | undefined | null | false>, what: string, options: PollOptions = {}): Promise<T> {
  const { timeoutMs = 300_000, everyMs = 100 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

/**
 * The verification `id` once it is completed or failed, read over the API as its owner (`token`).
 * Bounded by the verification's own deadline (10 minutes from upload, then it fails), not by a
 * minute of polling: a pair on a machine at load 10 takes minutes.
 */
export function waitForTerminal(call: ReturnType<typeof client>, token: string, id: string) {
  return waitFor(
    async () => {
      const res = await call('GET', `/v1/verifications/${id}`, { token });
      return res.body.status === 'completed' || res.body.status === 'failed' ? res.body : undefined;
    },
    `verification ${id} to finish`,
    { timeoutMs: 11 * 60_000, everyMs: 250 },
  );
}
