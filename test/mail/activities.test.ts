import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FileBlobStore } from '../../src/adapters/blobs/file-store.js';
import { migrateEventStore, PostgresEventStore } from '../../src/adapters/eventstore/postgres.js';
import { runCommand, type CommandContext } from '../../src/core/es/decider.js';
import { MailSendError, type Mailer, type MailMessage } from '../../src/core/mail.js';
import type { RetryPolicy } from '../../workflows/definition.js';
import type { ActivityContext } from '../../src/core/es/workflow.js';
import type { Database } from '../../src/adapters/db/database.js';
import { createMailActivities } from '../../src/features/mail/activities.js';
import { contentBytes, contentKey, sha256Hex } from '../../src/features/mail/content.js';
import { mailDecider, mailStream } from '../../src/features/mail/decider.js';
import { databaseTargets } from '../support/databases.js';

/** The deliver activity alone, on a real event store and blob store, with a scripted mailer and a hand-moved clock. */
describe('mail delivery activity', () => {
  let db: Database;
  let store: PostgresEventStore;
  let blobs: FileBlobStore;
  let dir: string;
  let now = new Date('2026-03-01T12:00:00.000Z');
  const sent: MailMessage[] = [];
  let failNext: MailSendError[] = [];
  const mailer: Mailer = {
    kind: 'smtp',
    async send(message) {
      const failure = failNext.shift();
      if (failure) throw failure;
      sent.push(message);
      return { response: '250 OK' };
    },
    async close() {},
  };
  const policy: RetryPolicy = { initialIntervalMs: 30_000, backoffCoefficient: 2, maximumIntervalMs: 3_600_000, maximumAttempts: 3 };
  const activity: ActivityContext = { signal: new AbortController().signal, attempt: 1, heartbeat: () => undefined };
  let deliver: (id: string) => ReturnType<ReturnType<typeof createMailActivities>['deliver']>;
  let counter = 0;

  beforeAll(async () => {
    db = await databaseTargets[0]!.open();
    await migrateEventStore(db.knex);
    store = new PostgresEventStore(db.knex);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-mail-activity-'));
    blobs = new FileBlobStore(dir);
    const activities = createMailActivities({ store, blobs, mailer, log: pino({ level: 'silent' }), now: () => now, config: { PROCESSING_REGION: 'eu-central-1' }, policy });
    deliver = (id) => activities.deliver(activity, id);
  });
  afterAll(async () => {
    await db?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    sent.length = 0;
    failNext = [];
  });

  const context = (): CommandContext => ({ accountId: null, actor: { type: 'system', id: 'test' }, correlationId: 'c', causationId: 'c', processingRegion: 'eu-central-1', now });
  /** Queues a message as queueMail does (bodies stored, then MailQueued); returns its id and content key. */
  async function queued(options: { storeContent?: boolean } = {}) {
    const id = `activity-${++counter}`;
    const bytes = contentBytes({ text: `text ${id}`, html: `<p>${id}</p>` });
    const sha = sha256Hex(bytes);
    if (options.storeContent !== false) await blobs.put(contentKey(id, sha), bytes);
    await runCommand(store, mailStream(id), mailDecider, { type: 'QueueMail', mail_id: id, message_id: `<${id}@x.eu>`, account_id: null, from: 'x@x.eu', to: 'to@example.eu', subject: 's', content_sha256: sha, now }, context());
    return { id, key: contentKey(id, sha) };
  }
  const types = async (id: string) => (await store.readStream(mailStream(id))).map((e) => e.type);

  it('sends the stored bodies, records MailSent, then deletes them', async () => {
    const { id, key } = await queued();
    expect(await deliver(id)).toEqual({ outcome: 'sent' });
    expect(sent.map((m) => [m.messageId, m.text, m.html])).toEqual([[`<${id}@x.eu>`, `text ${id}`, `<p>${id}</p>`]]);
    expect(await types(id)).toEqual(['MailQueued', 'MailSendAttempted', 'MailSent']);
    expect(await blobs.exists(key)).toBe(false);
  });

  it('does nothing for a message already sent: re-reads the stream, sends nothing, records nothing', async () => {
    const { id } = await queued();
    await deliver(id);
    sent.length = 0;
    expect(await deliver(id)).toEqual({ outcome: 'sent' });
    expect(sent).toHaveLength(0);
    expect(await types(id)).toEqual(['MailQueued', 'MailSendAttempted', 'MailSent']);
  });

  it('a transient failure schedules a retry; before it is due nothing is sent; at retry_at the next attempt sends', async () => {
    const { id } = await queued();
    failNext = [new MailSendError('ECONNECTION: refused', { permanent: false, responseCode: null, command: 'CONN' })];
    const first = await deliver(id);
    expect(first).toEqual({ outcome: 'retry', retryAt: now.getTime() + 30_000 });
    now = new Date(now.getTime() + 29_999);
    expect(await deliver(id)).toEqual(first);
    expect(sent).toHaveLength(0);
    now = new Date(now.getTime() + 1);
    expect(await deliver(id)).toEqual({ outcome: 'sent' });
    expect(await types(id)).toEqual(['MailQueued', 'MailSendAttempted', 'MailAttemptFailed', 'MailSendAttempted', 'MailSent']);
  });

  it('an attempt left open by a crash is followed by a new attempt that sends (at-least-once in that window)', async () => {
    const { id } = await queued();
    await runCommand(store, mailStream(id), mailDecider, { type: 'StartAttempt', expected_attempts: 0, transport: 'smtp', policy, now }, context());
    expect(await deliver(id)).toEqual({ outcome: 'sent' });
    expect(sent).toHaveLength(1);
    const events = await store.readStream(mailStream(id));
    expect(events.map((e) => [e.type, e.data.attempt])).toEqual([['MailQueued', undefined], ['MailSendAttempted', 1], ['MailSendAttempted', 2], ['MailSent', 2]]);
  });

  it('bodies that are missing or altered fail the message (content_lost) without sending', async () => {
    const missing = await queued({ storeContent: false });
    expect(await deliver(missing.id)).toEqual({ outcome: 'failed' });
    const altered = await queued();
    await blobs.put(altered.key, Buffer.from('{"text":"changed","html":""}'));
    expect(await deliver(altered.id)).toEqual({ outcome: 'failed' });
    expect(sent).toHaveLength(0);
    for (const { id } of [missing, altered]) {
      const last = (await store.readStream(mailStream(id))).at(-1)!;
      expect(last).toMatchObject({ type: 'MailDeliveryFailed', data: { reason: 'content_lost', attempts: 0 } });
    }
    expect(await blobs.exists(altered.key)).toBe(false);
  });

  it('a permanent refusal fails the message and deletes the bodies', async () => {
    const { id, key } = await queued();
    failNext = [new MailSendError('EENVELOPE: 550 no such user', { permanent: true, responseCode: 550, command: 'RCPT TO' })];
    expect(await deliver(id)).toEqual({ outcome: 'failed' });
    expect(await blobs.exists(key)).toBe(false);
    expect((await store.readStream(mailStream(id))).at(-1)).toMatchObject({ type: 'MailDeliveryFailed', data: { reason: 'rejected', smtp_code: 550, attempts: 1 } });
  });

  it('a cancelled attempt (signal aborted) records no outcome: the attempt stays open for the next run', async () => {
    const { id } = await queued();
    const controller = new AbortController();
    const activities = createMailActivities({
      store,
      blobs,
      mailer: { ...mailer, send: async () => (controller.abort(), Promise.reject(new MailSendError('aborted', { permanent: false, responseCode: null, command: null }))) },
      log: pino({ level: 'silent' }),
      now: () => now,
      config: { PROCESSING_REGION: 'eu-central-1' },
      policy,
    });
    await expect(activities.deliver({ ...activity, signal: controller.signal }, id)).rejects.toThrow('aborted');
    expect(await types(id)).toEqual(['MailQueued', 'MailSendAttempted']);
  });
});
