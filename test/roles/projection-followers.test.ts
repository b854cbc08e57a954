import crypto from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../../src/adapters/db/database.js';
import { ProjectionRunner } from '../../src/adapters/db/projection-runner.js';
import { migrateEventStore, PostgresEventStore } from '../../src/adapters/eventstore/postgres.js';
import type { NewEvent } from '../../src/core/es/event-store.js';
import { allProjectors } from '../../src/modules.js';
import { databaseTargets } from '../support/databases.js';

/**
 * A runner that finds the read models already advanced by another (another process on the same
 * database) must still hand every event to its own listeners (the credential cache empties on
 * account and key events) before its waits resolve: it may skip applying, never reading.
 * Two runners over two store instances on one database, as two processes have.
 */
const event = (i: number): NewEvent => ({
  id: crypto.randomUUID(),
  type: 'RoleTestNoted', // a type no projector handles: applying it changes nothing
  version: 1,
  data: { i },
  metadata: {
    account_id: null,
    actor: { type: 'system', id: 'test' },
    causation_id: crypto.randomUUID(),
    correlation_id: crypto.randomUUID(),
    processing_region: 'eu-central-1',
    occurred_at: new Date(0).toISOString(),
  },
});

for (const target of databaseTargets) {
  describe(`projection runners sharing one database (${target.name})`, () => {
    let db: Database;
    const runners: ProjectionRunner[] = [];
    beforeEach(async () => {
      db = await target.open();
      await migrateEventStore(db.knex);
    });
    afterEach(async () => {
      for (const runner of runners.splice(0)) await runner.stop();
      await db.close();
    });

    it('a runner behind another reads and announces every event the other applied', { timeout: 300_000 }, async () => {
      const leading = new ProjectionRunner(db.knex, new PostgresEventStore(db.knex), allProjectors);
      const following = new ProjectionRunner(db.knex, new PostgresEventStore(db.knex), allProjectors);
      runners.push(leading, following);
      await leading.migrate();
      await following.migrate(); // both start at the same checkpoints, as two processes do

      // More than two of the runner's pages, across several streams, one of them an account's.
      const writer = new PostgresEventStore(db.knex);
      for (let batch = 0; batch < 12; batch++) {
        await writer.append(batch % 3 === 0 ? `account-${crypto.randomUUID()}` : `other-${batch}`, Array.from({ length: 50 }, (_, i) => event(batch * 50 + i)), { expectedRevision: 'no_stream' });
      }
      const head = await writer.headPosition();
      expect(head).toBe(600n);

      leading.start();
      expect(await leading.waitFor(head, 120_000)).toBe(true);
      const checkpoints = await db.knex('projection_checkpoints').select('position');
      expect(checkpoints.every((row: { position: string }) => BigInt(row.position) === head)).toBe(true);

      // The follower finds every checkpoint past its position: nothing to apply, all to read.
      const seen: bigint[] = [];
      following.onApplied((events) => seen.push(...events.map((e) => e.position)));
      following.start();
      expect(await following.waitFor(head, 120_000)).toBe(true);
      expect([...new Set(seen)].sort((x, y) => (x < y ? -1 : 1))).toEqual(Array.from({ length: 600 }, (_, i) => BigInt(i + 1)));
      // Nothing was applied twice: every checkpoint is still the head, none moved past it.
      const after = await db.knex('projection_checkpoints').select('position');
      expect(after.every((row: { position: string }) => BigInt(row.position) === head)).toBe(true);
    });
  });
}
