import type { EventEmitter } from 'node:events';
import type { EventStore, StoredEvent, Subscription } from '../../core/event-store.js';

const BATCH = 500;
const POLL_MS = 500;

/**
 * Catch-up by reading pages in global order. Woken at once by local appends; polls so that
 * events appended by another process are picked up too.
 */
export function pollingSubscription(
  store: Pick<EventStore, 'readAll'>,
  appended: EventEmitter,
  after: bigint,
  handler: (event: StoredEvent) => Promise<void>,
  onError: (error: unknown) => void,
): Subscription {
  let stopped = false;
  let wake: (() => void) | undefined;
  // An append that lands while the loop is busy must not be lost as a wake-up.
  let appendedMeanwhile = false;
  const onAppend = () => {
    appendedMeanwhile = true;
    wake?.();
  };
  appended.on('append', onAppend);

  const loop = (async () => {
    let position = after;
    while (!stopped) {
      const page = await store.readAll({ after: position, limit: BATCH });
      for (const event of page) {
        if (stopped) return;
        await handler(event);
        position = event.position;
      }
      if (page.length === BATCH || appendedMeanwhile) {
        appendedMeanwhile = false;
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, POLL_MS);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  })().catch((error) => {
    if (!stopped) onError(error);
  });

  return {
    async stop() {
      stopped = true;
      appended.off('append', onAppend);
      wake?.();
      await loop;
    },
  };
}
