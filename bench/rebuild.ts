/**
 * Rebuild figures (issue 38; alone: `npx tsx bench/rebuild.ts <DATA_DIR>`, e.g. the directory
 * bench/service.ts seeded, `$TMPDIR/pv-bench-reads-pglite-100000`): the time of
 * `projections.rebuild()` over the whole log against one plain sequential read of the same events
 * (`readAll` page by page, nothing applied) measured in the same run, and where the rebuild's
 * time goes: each projector's share of the time spent in `apply`/`applyAll`, and its statements.
 * With DATABASE_URL set it rebuilds that PostgreSQL database instead.
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import type { Projector } from '../src/core/es/projector.js';

const load1 = () => Number(os.loadavg()[0]!.toFixed(2));

export async function benchRebuild(dataDir: string): Promise<Record<string, unknown>> {
  const { loadConfig } = await import('../src/core/config.js');
  const { openStores } = await import('../src/service.js');
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, DATABASE_URL: process.env.DATABASE_URL ?? '', EVENTSTORE_URL: '', LOG_LEVEL: 'warn' });
  const { db, store, projections } = await openStores(config, pino({ level: process.env.LOG_LEVEL ?? 'warn' }));
  try {
    const head = await store.headPosition();
    // The plain read: every event once, in pages of the rebuild's size.
    const readLoad = load1();
    const r0 = performance.now();
    let read = 0;
    for (let after = 0n; ; ) {
      const page = await store.readAll({ after, limit: 2_000 });
      if (page.length === 0) break;
      read += page.length;
      after = page.at(-1)!.position;
    }
    const readMs = performance.now() - r0;

    // Each projector's handlers timed, and the statements issued while they ran.
    const spent = new Map<string, { ms: number; statements: number }>();
    let current: string | undefined;
    db.knex.on('query', () => {
      if (current) spent.get(current)!.statements++;
    });
    for (const projector of projections.projectors as Projector[]) {
      spent.set(projector.name, { ms: 0, statements: 0 });
      const timed = <A extends unknown[]>(fn: (...args: A) => Promise<void>) =>
        async (...args: A) => {
          const t0 = performance.now();
          current = projector.name;
          try {
            await fn(...args);
          } finally {
            current = undefined;
            spent.get(projector.name)!.ms += performance.now() - t0;
          }
        };
      projector.apply = timed(projector.apply.bind(projector));
      if (projector.applyAll) projector.applyAll = timed(projector.applyAll.bind(projector));
    }
    const rebuildLoad = load1();
    const t0 = performance.now();
    await projections.rebuild();
    const rebuildMs = performance.now() - t0;
    const handlersMs = [...spent.values()].reduce((sum, s) => sum + s.ms, 0);
    return {
      what: `projections.rebuild() of every read model over the whole log (${db.kind}), against one plain sequential read of the same events; load averages are 1-minute`,
      cores: os.cpus().length,
      events: Number(head),
      plain_read: { ms: Math.round(readMs), events: read, events_per_s: Math.round(read / (readMs / 1000)), load_average: readLoad },
      rebuild: { ms: Math.round(rebuildMs), events_per_s: Math.round(Number(head) / (rebuildMs / 1000)), load_average: { before: rebuildLoad, after: load1() } },
      rebuild_to_plain_read: Math.round((rebuildMs / readMs) * 10) / 10,
      in_handlers_ms: Math.round(handlersMs),
      by_projector: Object.fromEntries(
        [...spent].sort((a, b) => b[1].ms - a[1].ms).map(([name, s]) => [name, { ms: Math.round(s.ms), share: Math.round((s.ms / rebuildMs) * 1000) / 1000, statements: s.statements }]),
      ),
    };
  } finally {
    await store.close();
    await db.close();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: npx tsx bench/rebuild.ts <DATA_DIR>');
  console.log(JSON.stringify(await benchRebuild(dir), null, 2));
}
