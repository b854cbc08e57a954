import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { CommandContext } from '../../src/core/es/decider.js';
import type { TestService } from './service.js';

/**
 * What the suites about mail a crash left unqueued read of a running service (`service()`, once
 * started): its outbox's raw messages, the log's events of a type, the context a killed request
 * had built, and a wait for the sweeps to have mailed what was owed.
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
  return { outbox, events, context, mailed };
}
