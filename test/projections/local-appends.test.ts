import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PostgresEventStore } from '../../src/adapters/eventstore/postgres.js';
import { databaseTargets } from '../support/databases.js';
import { probeEvent } from '../support/probe-event.js';
import { serviceSuite } from '../support/suite.js';

/**
 * The read models take a page from the events this process appended when it starts right after
 * their checkpoints, and read the log otherwise (D-065). Another process's append between two
 * of ours must neither be skipped nor stop a projector at a "hole".
 */
const event = (stream: string) => probeEvent('LocalAppendProbe', { stream });

for (const target of databaseTargets) {
  describe(`read models and this process's appends on ${target.name}`, () => {
    const { t } = serviceSuite(target);

    /** stream_owners (the audit read model) counts every event of every stream. */
    const counted = async (stream: string) => Number((await t.service.deps.knex('stream_owners').where({ stream }).first())?.event_count ?? 0);

    it('applies another process’s appends that fall between its own, in order, with every projector running', async () => {
      const { store, knex } = t.service.deps;
      // Another process: the same database, but this process's read models never hear of its appends.
      const elsewhere = new PostgresEventStore(knex);
      const ours = `probe-ours-${crypto.randomUUID()}`;
      const theirs = `probe-theirs-${crypto.randomUUID()}`;
      let last = 0n;
      for (let round = 0; round < 5; round++) {
        await store.append(ours, [event(ours)], { expectedRevision: round === 0 ? 'no_stream' : round * 2 - 1 });
        await elsewhere.append(theirs, [event(theirs), event(theirs)], { expectedRevision: round === 0 ? 'no_stream' : round * 2 - 1 });
        ({ position: last } = await store.append(ours, [event(ours)], { expectedRevision: round * 2 }));
      }
      expect(await t.service.projections.waitFor(last, 30_000)).toBe(true);
      expect(t.service.projections.status().filter((p) => p.state !== 'running')).toEqual([]);
      expect(await counted(ours)).toBe(10);
      expect(await counted(theirs)).toBe(10);
    });

    it('finds another process’s append on its own, with nothing appended here', async () => {
      const { knex } = t.service.deps;
      const theirs = `probe-alone-${crypto.randomUUID()}`;
      const { position } = await new PostgresEventStore(knex).append(theirs, [event(theirs)], { expectedRevision: 'no_stream' });
      expect(await t.service.projections.waitFor(position, 30_000)).toBe(true);
      expect(await counted(theirs)).toBe(1);
    });
  });
}
