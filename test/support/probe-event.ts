import crypto from 'node:crypto';
import type { NewEvent } from '../../src/core/es/event-store.js';

/**
 * An event of a type no projector reads, for suites about the log itself (the store's contract,
 * how it reaches the read models: positions and pages, not contents): a system actor's, with its own ids.
 */
export function probeEvent(type: string, data: Record<string, unknown>): NewEvent {
  const id = crypto.randomUUID();
  return {
    id,
    type,
    version: 1,
    data,
    metadata: { account_id: null, actor: { type: 'system', id: 'test' }, causation_id: id, correlation_id: id, processing_region: 'eu-central-1', occurred_at: new Date().toISOString() },
  };
}
