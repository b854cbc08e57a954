/**
 * The engine's execution slots (WORKFLOW_RUN_CONCURRENCY): how many runs execute at the same
 * time. A run waiting on a durable timer gives its slot back, and a wait for a slot ends when
 * the engine stops, so the semaphore's waits must be abandonable.
 */

/** A counting semaphore whose waits can be abandoned (abort: the waiter leaves the queue). */
export class Slots {
  private used = 0;
  private readonly queue: { grant: () => void }[] = [];

  constructor(private readonly size: number) {}

  acquire(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      if (this.used < this.size) {
        this.used++;
        return resolve();
      }
      const onAbort = () => {
        const index = this.queue.indexOf(waiter);
        if (index >= 0) this.queue.splice(index, 1);
        reject(signal.reason);
      };
      const waiter = {
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
    });
  }

  /** Hands the slot to the next waiter, or frees it. */
  release(): void {
    const next = this.queue.shift();
    if (next) next.grant();
    else this.used--;
  }
}
