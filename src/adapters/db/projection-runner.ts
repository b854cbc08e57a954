import { EventEmitter } from 'node:events';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { EventStore, StoredEvent } from '../../core/es/event-store.js';
import type { Projector, ProjectorStatus, ReadModels } from '../../core/es/projector.js';

const PAGE = 250;
/**
 * Events per transaction while rebuilding: nobody waits on a page of a rebuild, so pages are
 * large (fewer transactions and checkpoint moves; applyAll folds more at once). Bounded so a
 * page's events and the statements folded from them stay small (issue 38).
 */
const REBUILD_PAGE = 2_000;
const POLL_MS = 250;
/** How often a rebuild logs its progress. */
const PROGRESS_MS = 5_000;
/** Where a rebuild makes the new read models before it swaps them in. */
const SHADOW = 'projection_rebuild';

const createCheckpoints = (knex: Knex) =>
  knex.raw(`
    create table if not exists projection_checkpoints (
      name text primary key,
      version integer not null,
      position numeric(20, 0) not null
    )`);

export class ProjectionGapError extends Error {
  constructor(projector: string, expected: bigint, found: bigint) {
    super(`Projector ${projector}: expected the event at position ${expected}, found ${found}. The event log has a hole; the read model stopped rather than skip it.`);
    this.name = 'ProjectionGapError';
  }
}


/** Told, after the transaction that applied them committed, which events the read models now include. */
export type AppliedListener = (events: readonly StoredEvent[]) => void;

/**
 * Runs every projector over the event log with its own checkpoint. One loop reads each page of
 * events once and applies it to every healthy projector in one transaction that also moves their
 * checkpoints, so a crash can neither lose nor double-apply an event, and two processes running
 * the same projectors cannot both apply one: a page is applied only under the lock of the
 * checkpoint rows, each projector from its checkpoint as read under that lock, so several
 * processes on one database project safely, whoever is first applies, the others skip what is
 * applied (D-204, issue 26). Each process still reads every page, so its listeners
 * see every event and its waits resolve only once it has. A projector that
 * fails is found by applying that page to each projector in its own transaction: the failing one
 * stops loudly, the others go on (D-047).
 */
export class ProjectionRunner implements ReadModels {
  private readonly progress = new EventEmitter().setMaxListeners(0);
  private readonly positions = new Map<string, bigint>();
  private readonly failures = new Map<string, Error>();
  private readonly appliedListeners = new Set<AppliedListener>();
  private loopDone: Promise<void> = Promise.resolve();
  private running = false;
  private wake = new Set<() => void>();
  private poked = false;
  /** Events this process appended, by position, not yet applied: the next page when it starts right after the checkpoints (D-065). */
  private readonly appended = new Map<bigint, StoredEvent>();
  /** The log may hold events this process did not append (at start, at each poll, for a waitFor on one): the next page is read. */
  private unseen = true;
  /** While a rebuild fills the shadow schema: the search path the runner's transactions work on. */
  private shadow: string | null = null;
  constructor(
    private readonly knex: Knex,
    private readonly store: EventStore,
    readonly projectors: readonly Projector[],
    private readonly log?: Logger,
  ) {
    store.onAppended((events) => {
      for (const event of events) this.appended.set(event.position, event);
      // Kept only as a shortcut: past a page's worth (projectors stopped, or behind), reading is as good.
      if (this.appended.size > 2 * PAGE) {
        this.appended.clear();
        this.unseen = true;
      }
      this.poke();
    });
  }

  async migrate(): Promise<void> {
    await createCheckpoints(this.knex);
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
    this.loopDone = this.loop();
  }

  async stop(): Promise<void> {
    this.running = false;
    for (const wake of this.wake) wake();
    await this.loopDone;
  }

  /** Tells the loop new events exist (this process's appends), instead of waiting for the next poll. */
  private poke(): void {
    this.poked = true;
    for (const wake of this.wake) wake();
  }

  /** Calls `listener` with every page of events once it is committed to the read models; returns the unsubscribe. */
  onApplied(listener: AppliedListener): () => void {
    this.appliedListeners.add(listener);
    return () => this.appliedListeners.delete(listener);
  }

  /** Resolves true once every read model includes `position`, false after `timeoutMs`. */
  async waitFor(position: bigint, timeoutMs: number): Promise<boolean> {
    if (this.caughtUpTo(position)) return true;
    if (!this.appended.has(position)) this.unseen = true; // not this process's append: read for it
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

  /**
   * Replays the whole log into new read models and swaps them in (issue 38): the projectors'
   * tables and checkpoints are made in the schema SHADOW (each transaction of the rebuild puts it
   * first on its search path), filled a page of REBUILD_PAGE events at a time, each page read
   * once and applied to every projector in one transaction (as the loop does), with the progress
   * logged (events/s, ETA); then one transaction drops the old tables and moves the new ones and
   * their checkpoints in. Until then every read answers from the old read models. A projector that
   * fails leaves them all in place: the shadow is dropped and the rebuild rejects with its error.
   */
  async rebuild(): Promise<void> {
    const wasRunning = this.running;
    await this.stop();
    const live = { positions: new Map(this.positions), failures: new Map(this.failures) };
    await this.knex.raw(`drop schema if exists ${SHADOW} cascade`);
    await this.knex.raw(`create schema ${SHADOW}`);
    // The shadow first, then where the read models live (the events, extensions, the live tables).
    const { rows } = await this.knex.raw<{ rows: { schema: string; path: string }[] }>("select current_schema() as schema, current_setting('search_path') as path");
    const liveSchema = rows[0]!.schema;
    this.shadow = `${SHADOW}, ${rows[0]!.path}`;
    try {
      this.failures.clear();
      await this.transaction(async (trx) => {
        await createCheckpoints(trx);
        for (const projector of this.projectors) {
          await projector.migrate(trx);
          await trx('projection_checkpoints').insert({ name: projector.name, version: projector.version, position: '0' });
          this.positions.set(projector.name, 0n);
        }
      });
      await this.replayAll();
    } finally {
      this.shadow = null;
    }
    const failure = this.failures.values().next();
    if (failure.done) await this.swapIn(liveSchema);
    else {
      for (const [name, position] of live.positions) this.positions.set(name, position);
      this.failures.clear();
      for (const [name, error] of live.failures) this.failures.set(name, error);
    }
    await this.knex.raw(`drop schema if exists ${SHADOW} cascade`);
    // A short page reached the head of the log as it was read; the loop takes what follows.
    if (wasRunning) this.start();
    if (!failure.done) throw failure.value;
  }

  /** Every page of the log, applied (into the shadow during a rebuild), with the progress logged. */
  private async replayAll(): Promise<void> {
    const head = await this.store.headPosition();
    const started = performance.now();
    let logged = started;
    let applied = 0;
    for (;;) {
      this.unseen = true; // read every page: nothing of a rebuild is this process's own appends
      const count = await this.applyNextPage(REBUILD_PAGE);
      applied += count;
      if (count < REBUILD_PAGE) break;
      const now = performance.now();
      if (now - logged >= PROGRESS_MS) {
        logged = now;
        const perSecond = applied / ((now - started) / 1000);
        const at = this.projectors.map((p) => this.positions.get(p.name) ?? 0n).reduce((a, b) => (a < b ? a : b));
        const left = Number(head - at);
        this.log?.info({ position: String(at), head: String(head), events_per_s: Math.round(perSecond), eta_s: left > 0 ? Math.round(left / perSecond) : 0 }, 'rebuilding read models');
      }
    }
  }

  /** One transaction: the old read models dropped, the shadow's tables and checkpoints moved in. */
  private async swapIn(liveSchema: string): Promise<void> {
    await this.knex.transaction(async (trx) => {
      const names = this.projectors.map((p) => p.name);
      for (const projector of this.projectors) for (const table of projector.tables) await trx.schema.withSchema(liveSchema).dropTableIfExists(table);
      for (const projector of this.projectors) {
        for (const table of projector.tables) {
          const { rows } = await trx.raw<{ rows: { exists: boolean }[] }>('select to_regclass(?) is not null as exists', [`${SHADOW}.${table}`]);
          if (rows[0]?.exists) await trx.raw(`alter table ${SHADOW}.?? set schema ??`, [table, liveSchema]);
        }
      }
      await trx('projection_checkpoints').whereIn('name', names).delete();
      await trx.raw(`insert into projection_checkpoints (name, version, position) select name, version, position from ${SHADOW}.projection_checkpoints`);
    });
    this.log?.info({ projectors: this.projectors.length }, 'rebuilt read models swapped in');
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

  /** A transaction of the runner: during a rebuild, on the shadow schema's tables. */
  private transaction<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    return this.knex.transaction(async (trx) => {
      if (this.shadow) await trx.raw(`set local search_path to ${this.shadow}`);
      return work(trx);
    });
  }

  private async reset(projector: Projector): Promise<void> {
    for (const table of projector.tables) await this.knex.schema.dropTableIfExists(table);
    await this.knex('projection_checkpoints').where({ name: projector.name }).delete();
    this.positions.set(projector.name, 0n);
  }

  private async loop(): Promise<void> {
    while (this.running) {
      this.poked = false;
      try {
        // A full page: more may follow at once. A short page reached the head of the log. Every
        // query's answer arrives as I/O (a socket, or PGlite's thread: D-054), so requests and
        // timers run between the statements of a long catch-up.
        if ((await this.applyNextPage()) === PAGE) continue;
      } catch (error) {
        // Reading the log failed (the database is away): try again at the next poll.
        this.log?.warn({ err: error }, 'projection runner could not read the event log');
      }
      if (this.poked) continue; // appended while this page was being applied
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.wake.delete(done);
          resolve();
        };
        const timer = setTimeout(() => {
          this.unseen = true;
          done();
        }, POLL_MS);
        this.wake.add(done);
      });
    }
  }

  /**
   * Reads the page after the furthest-behind healthy projector once and applies it to all of
   * them in one transaction; if that fails, to each in its own transaction, so only the failing
   * projector stops. Returns how many events the page held.
   */
  private async applyNextPage(limit = PAGE): Promise<number> {
    const healthy = this.projectors.filter((p) => !this.failures.has(p.name));
    if (healthy.length === 0) return 0;
    const from = healthy.reduce((min, p) => {
      const at = this.positions.get(p.name) ?? 0n;
      return at < min ? at : min;
    }, this.positions.get(healthy[0]!.name) ?? 0n);
    const page = this.takeAppended(from) ?? (await this.readPage(from, limit));
    if (page.length === 0) return 0;
    const to = page.at(-1)!.position;
    let reached: Map<string, bigint>;
    try {
      reached = await this.transaction(async (trx) => {
        const names = healthy.map((p) => p.name);
        // The checkpoints this transaction holds (locked), by projector.
        const checkpoints = new Map<string, bigint>();
        if (healthy.every((p) => this.positions.get(p.name) === from)) {
          // The usual case, every projector at one position: claiming the page is one statement
          // that locks the checkpoint rows and finds whether another process moved one.
          const claimed: { name: string }[] = await trx('projection_checkpoints').whereIn('name', names).where('position', from.toString()).update({ position: to.toString() }, ['name']);
          if (claimed.length === names.length) {
            for (const projector of healthy) await this.applyEvents(trx, projector, page, from);
            return new Map(names.map((name) => [name, to]));
          }
          // Another runner (another process on this database) applied some of it: those are
          // applied from where it left them, below; the claimed ones from `from`.
          for (const { name } of claimed) checkpoints.set(name, from);
        }
        const others = names.filter((name) => !checkpoints.has(name));
        const rows = await trx('projection_checkpoints').whereIn('name', others).forUpdate().select('name', 'position');
        for (const row of rows as { name: string; position: string }[]) checkpoints.set(row.name, BigInt(row.position));
        const moved = new Map<string, bigint>();
        const result = new Map<string, bigint>();
        for (const projector of healthy) {
          const start = checkpoints.get(projector.name) ?? 0n;
          const position = await this.applyEvents(trx, projector, page, start);
          result.set(projector.name, position);
          // A claimed checkpoint was moved by the claim itself.
          if (position !== start && others.includes(projector.name)) moved.set(projector.name, position);
        }
        await this.saveCheckpoints(trx, moved);
        return result;
      });
    } catch {
      // Which projector failed? Each on its own: the failing one is marked, the others advance.
      for (const projector of healthy) {
        try {
          await this.applyPage(projector, page);
        } catch (error) {
          this.fail(projector, error as Error);
        }
      }
      this.announce(page);
      return page.length;
    }
    for (const [name, position] of reached) this.reach(name, position, to);
    this.announce(page);
    return page.length;
  }

  /**
   * Moves a projector's position to `position`, but never past `pageEnd`, the last event this
   * process has read and announced: another runner may have applied further, and those events
   * must still reach this process's listeners (the credential cache empties on them) before its
   * waits on their positions resolve. The loop reads on from `pageEnd`.
   */
  private reach(name: string, position: bigint, pageEnd: bigint): void {
    if (position > pageEnd) this.unseen = true;
    this.positions.set(name, position > pageEnd ? pageEnd : position);
  }

  /**
   * The events this process appended right after `from`, when it holds them: positions have no
   * holes (the store says so), so the run of them from `from`+1 on is exactly what reading the log
   * would return. Null when it must be read (another process appended in between, or none held).
   */
  private takeAppended(from: bigint): StoredEvent[] | null {
    if (!this.store.contiguousPositions) return null;
    for (const position of this.appended.keys()) if (position <= from) this.appended.delete(position);
    const page: StoredEvent[] = [];
    for (let next = this.appended.get(from + 1n); next && page.length < PAGE; next = this.appended.get(next.position + 1n)) page.push(next);
    return page.length > 0 ? page : null;
  }

  /**
   * The page after `from` from the log, when it may hold something this process does not: a wake
   * by a local append whose events were applied already (appended during the last pass) reads
   * nothing. A store without contiguous positions is always read.
   */
  private async readPage(from: bigint, limit = PAGE): Promise<StoredEvent[]> {
    if (!this.unseen && this.appended.size === 0 && this.store.contiguousPositions) return [];
    this.unseen = false; // before the read: a poll or waitFor during it sets it again
    const page = await this.store.readAll({ after: from, limit });
    if (page.length === limit) this.unseen = true; // more to read
    return page;
  }

  /** Applies the page's events beyond `from` to one projector; returns the position reached. */
  private async applyEvents(trx: Knex.Transaction, projector: Projector, page: readonly StoredEvent[], from: bigint): Promise<bigint> {
    let position = from;
    const fresh: StoredEvent[] = [];
    for (const event of page) {
      if (event.position <= position) continue; // applied already (by this runner or another process)
      if (this.store.contiguousPositions && event.position !== position + 1n) {
        throw new ProjectionGapError(projector.name, position + 1n, event.position);
      }
      fresh.push(event);
      position = event.position;
    }
    if (fresh.length > 1 && projector.applyAll) await projector.applyAll(trx, fresh);
    else for (const event of fresh) await projector.apply(trx, event);
    return position;
  }

  /** One statement per distinct position (usually one: the projectors move together). */
  private async saveCheckpoints(trx: Knex.Transaction, moved: Map<string, bigint>): Promise<void> {
    const byPosition = new Map<bigint, string[]>();
    for (const [name, position] of moved) byPosition.set(position, [...(byPosition.get(position) ?? []), name]);
    for (const [position, names] of byPosition) {
      await trx('projection_checkpoints').whereIn('name', names).update({ position: position.toString() });
    }
  }

  private fail(projector: Projector, error: Error): void {
    // Loud and final: a read model that silently skipped an event would lie forever.
    this.failures.set(projector.name, error);
    this.log?.error({ err: error, projector: projector.name }, 'projector stopped');
  }

  /** Listeners first (they may hold caches of what changed), then the waiters for positions. */
  private announce(page: readonly StoredEvent[]): void {
    for (const listener of this.appliedListeners) {
      try {
        listener(page);
      } catch (error) {
        this.log?.error({ err: error }, 'a read-model listener failed');
      }
    }
    this.progress.emit('progress');
  }

  /** Applies a page of events (the next one when none is given) to one projector in one transaction; returns how many events the page held. */
  private async applyPage(projector: Projector, given?: readonly StoredEvent[]): Promise<number> {
    const from = this.positions.get(projector.name) ?? 0n;
    const page = given ?? (await this.store.readAll({ after: from, limit: PAGE }));
    if (page.length === 0) return 0;
    const reached = await this.transaction(async (trx) => {
      const row = await trx('projection_checkpoints').where({ name: projector.name }).forUpdate().first();
      const position = await this.applyEvents(trx, projector, page, BigInt(row.position));
      await trx('projection_checkpoints').where({ name: projector.name }).update({ position: position.toString() });
      return position;
    });
    this.reach(projector.name, reached, page.at(-1)!.position);
    if (!given) this.announce(page);
    return page.length;
  }
}
