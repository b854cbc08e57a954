import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { CommandContext } from '../../src/core/es/decider.js';
import type { SweepSource } from '../../src/core/es/workflow.js';
import type { TestService } from './service.js';

/**
 * What the suites about mail a crash left unqueued read of a running service (`service()`, once
 * started): its outbox's raw messages, the log's events of a type, the context a killed request
 * had built, a wait for the sweeps to have mailed what was owed, and the check that nothing is
 * owed any more.
 */
export function mailRecovery(service: () => TestService) {
  const outbox = (): string[] => {
    const dir = path.join(service().dataDir, 'outbox');
    return fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.eml')).map((f) => fs.readFileSync(path.join(dir, f), 'utf8')) : [];
  };
  const events = async (type: string) => (await service().service.deps.store.readAll({ after: 0n, limit: 1_000_000 })).filter((e) => e.type === type);
  /** What the killed request had recorded: its context, as the use case builds it. */
  const context = (by: { accountId: string; userId: string }): CommandContext => ({
    accountId: by.accountId,
    actor: { type: 'user', id: by.userId },
    correlationId: crypto.randomUUID(),
    causationId: crypto.randomUUID(),
    processingRegion: service().service.deps.config.PROCESSING_REGION,
    now: new Date(),
  });
  /** Waits until the outbox holds `count` messages and the log as many MailSent. */
  async function mailed(count: number) {
    for (let i = 0; i < 600 && (outbox().length < count || (await events('MailSent')).length < count); i++) await new Promise((r) => setTimeout(r, 100));
    await service().settled();
  }
  /**
   * Nothing is owed any more: `sweep` finds nothing now, and the sweeps of the next while (ten
   * periods of `sweepMs`) queue nothing, so the log and the outbox still hold `count` mails.
   */
  async function nothingOwed(sweep: (source: SweepSource) => Promise<unknown[]>, count: number, sweepMs: number) {
    expect(await sweep({ knex: service().service.deps.knex, now: new Date() })).toEqual([]);
    await new Promise((r) => setTimeout(r, 10 * sweepMs));
    await service().settled();
    expect(await events('MailQueued')).toHaveLength(count);
    expect(outbox()).toHaveLength(count);
  }
  return { outbox, events, context, mailed, nothingOwed };
}
