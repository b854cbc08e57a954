/**
 * `npm run projections:rebuild`: replays the whole event log into new read models and swaps them
 * in with their checkpoints in one transaction (ProjectionRunner.rebuild). A service running on
 * the same PostgreSQL database answers from the old read models until the swap, then catches up.
 */
import { pino } from 'pino';
import { loadConfig } from '../core/config.js';
import { openStores } from '../service.js';

const log = pino({ level: process.env.LOG_LEVEL ?? 'info' });
const config = loadConfig();
const started = Date.now();
const { db, store, projections } = await openStores(config, log);
try {
  const head = await store.headPosition();
  log.info({ events: String(head), projectors: projections.projectors.map((p) => p.name) }, 'rebuilding read models');
  await projections.rebuild();
  for (const status of projections.status()) log.info(status, 'read model rebuilt');
  log.info({ ms: Date.now() - started }, 'rebuild complete');
} finally {
  await store.close();
  await db.close();
}
