import { EventEmitter } from 'node:events';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { EventStore } from '../../core/event-store.js';
import type { Projector, ProjectorStatus, ReadModels } from '../../core/projector.js';

const PAGE = 250;
const POLL_MS = 250;

export class ProjectionGapError extends Error {
  constructor(projector: string, expected: bigint, found: bigint) {
    super(`Projector ${projector}: expected the event at position ${expected}, found ${found}. The event log has a hole; the read model stopped rather than skip it.`);
    this.name = 'ProjectionGapError';
  }
}


/**
 * Runs every projector in its own catch-up loop with its own checkpoint. Each page of events
 * is applied in one transaction together with the checkpoint, so a crash can neither lose nor
 * double-apply an event, and two processes running the same projector cannot both apply one
 * (the checkpoint row is locked).
 */
export class ProjectionRunner implements ReadModels {
  private readonly progress = new EventEmitter().setMaxListeners(0);
  private readonly positions = new Map<string, bigint>();
  private readonly failures = new Map<string, Error>();
  private loops: Promise<void>[] = [];
  private running = false;
  private wake = new Set<() => void>();

  constructor(
    private readonly knex: Knex,
    private readonly store: EventStore,
    readonly projectors: readonly Projector[],
    private readonly log?: Logger,
  ) {}

  async migrate(): Promise<void> {
    await this.knex.raw(`
      create table if not exists projection_checkpoints (
        name text primary key,
        version integer not null,
        position numeric(20, 0) not null
      )`);
    for (const projector of this.projectors) {
      const row = await this.knex('projection_checkpoints').where({ name: projector.name }).first();
      if (row && Number(row.version) !== projector.version) {
        this.log?.warn({ projector: projector.name, from: row.version, to: projector.version }, 'read model version changed: rebuilding it');
        await this.reset(projector);
      }
      await projector.migrate(this.knex);
      await this.knex('projection_checkpoints')
        .insert({ name: projector.name, version: projector.version, position: '0' })
        .onConflict('name')
        .ignore();
      const current = await this.knex('projection_checkpoints').where({ name: projector.name }).first();
      this.positions.set(projector.name, BigInt(current.position));
    }
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loops = this.projectors.map((projector) => this.loop(projector));
  }

  async stop(): Promise<void> {
    this.running = false;
    for (const wake of this.wake) wake();
    await Promise.all(this.loops);
    this.loops = [];
  }

  /** Tell the loops new events exist (local appends), instead of waiting for the next poll. */
  poke(): void {
    for (const wake of this.wake) wake();
  }

  /** Resolves true once every read model includes `position`, false after `timeoutMs`. */
  async waitFor(position: bigint, timeoutMs: number): Promise<boolean> {
    if (this.caughtUpTo(position)) return true;
    this.poke();
    return new Promise((resolve) => {
      const onProgress = () => {
        if (!this.caughtUpTo(position)) return;
        cleanup();
        resolve(true);
      };
      const timer = setTimeout(() => {
        cleanup();
        resolve(false);
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.progress.off('progress', onProgress);
      };
      this.progress.on('progress', onProgress);
    });
  }

  /** Drops every read model and replays the whole log into it. */
  async rebuild(): Promise<void> {
    const wasRunning = this.running;
    await this.stop();
    for (const projector of this.projectors) await this.reset(projector);
    this.failures.clear();
    await this.migrate();
    await Promise.all(this.projectors.map((projector) => this.catchUp(projector)));
    if (wasRunning) this.start();
  }

  /** Applies everything currently in the log, then returns (used by rebuild and tests). */
  async catchUp(projector: Projector): Promise<void> {
    while ((await this.applyPage(projector)) > 0);
  }

  status(): ProjectorStatus[] {
    return this.projectors.map((p) => {
      const failure = this.failures.get(p.name);
      return {
        name: p.name,
        position: String(this.positions.get(p.name) ?? 0n),
        state: failure ? 'failed' : this.running ? 'running' : 'stopped',
        ...(failure ? { error: failure.message } : {}),
      };
    });
  }

  private caughtUpTo(position: bigint): boolean {
    return this.projectors.every((p) => (this.positions.get(p.name) ?? 0n) >= position);
  }

  private async reset(projector: Projector): Promise<void> {
    for (const table of projector.tables) await this.knex.schema.dropTableIfExists(table);
    await this.knex('projection_checkpoints').where({ name: projector.name }).delete();
    this.positions.set(projector.name, 0n);
  }

  private async loop(projector: Projector): Promise<void> {
    while (this.running) {
      try {
        const applied = await this.applyPage(projector);
        if (applied > 0) continue;
      } catch (error) {
        // Loud and final: a read model that silently skipped an event would lie forever.
        this.failures.set(projector.name, error as Error);
        this.log?.error({ err: error, projector: projector.name }, 'projector stopped');
        this.progress.emit('progress');
        return;
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.wake.delete(done);
          resolve();
        };
        const timer = setTimeout(done, POLL_MS);
        this.wake.add(done);
      });
    }
  }

  /** Applies the next page of events in one transaction; returns how many events it consumed. */
  private async applyPage(projector: Projector): Promise<number> {
    const from = this.positions.get(projector.name) ?? 0n;
    const page = await this.store.readAll({ after: from, limit: PAGE });
    if (page.length === 0) return 0;
    const reached = await this.knex.transaction(async (trx) => {
      const row = await trx('projection_checkpoints').where({ name: projector.name }).forUpdate().first();
      let position = BigInt(row.position);
      for (const event of page) {
        if (event.position <= position) continue; // applied by another process meanwhile
        if (this.store.contiguousPositions && event.position !== position + 1n) {
          throw new ProjectionGapError(projector.name, position + 1n, event.position);
        }
        await projector.apply(trx, event);
        position = event.position;
      }
      await trx('projection_checkpoints').where({ name: projector.name }).update({ position: position.toString() });
      return position;
    });
    this.positions.set(projector.name, reached);
    this.progress.emit('progress');
    return page.length;
  }
}
