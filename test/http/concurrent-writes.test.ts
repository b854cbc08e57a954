import fs from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.js';
import { COMMAND_ATTEMPTS } from '../../src/core/es/decider.js';
import { WrongExpectedRevisionError } from '../../src/core/errors.js';
import { startService, type Service } from '../../src/service.js';
import { databaseTargets } from '../support/databases.js';
import { requires } from '../support/requires.js';
import { client, registerAccount, startTestService, uploadImage, type CallResult, type TestService } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';

/**
 * Independent writes to one record sent at once all succeed (DESIGN.md, robustness rules):
 * commands on a stream take turns within a process and are decided again on a fresh stream when
 * another process wins, so none answers 409 and each is recorded exactly once.
 */

const statuses = (answers: CallResult[]) => answers.map((res) => res.status);
const all = (n: number, status: number) => Array<number>(n).fill(status);

for (const target of databaseTargets) {
  describe(`concurrent independent writes on ${target.name}`, { timeout: 240_000 }, () => {
    const { t, call, newAccount } = serviceSuite(target);
    const owner = newAccount();
    const events = async (stream: string, type: string) => (await t.service.deps.store.readStream(stream)).filter((e) => e.type === type);

    for (const n of [10, 20]) {
      it(`records ${n} concurrent comments on one verification, each once`, async () => {
        const id = await uploadImage(t.url, owner.token);
        const bodies = Array.from({ length: n }, (_, i) => `Comment number ${i}.`);
        const answers = await Promise.all(bodies.map((body) => call('POST', `/v1/verifications/${id}/comments`, { token: owner.token, json: { body } })));
        expect(statuses(answers), JSON.stringify(answers.find((res) => res.status !== 201)?.body)).toEqual(all(n, 201));
        const added = await events(`comments-${id}`, 'CommentAdded');
        expect(added.map((e) => e.data.body).sort()).toEqual([...bodies].sort());
        const listed = await call('GET', `/v1/verifications/${id}/comments`, { token: owner.token });
        expect(listed.body.total).toBe(n);
      });
    }

    it('records 10 concurrent invitations to one share and mails each invitee once', async () => {
      const id = await uploadImage(t.url, owner.token);
      expect((await call('POST', `/v1/verifications/${id}/share`, { token: owner.token, json: { access_type: 'restricted' } })).status).toBe(200);
      const addresses = Array.from({ length: 10 }, (_, i) => `invitee${i}-${id.slice(0, 8)}@example.eu`);
      const answers = await Promise.all(addresses.map((email) => call('POST', `/v1/verifications/${id}/share/invites`, { token: owner.token, json: { email } })));
      expect(statuses(answers), JSON.stringify(answers.find((res) => res.status !== 200)?.body)).toEqual(all(10, 200));
      expect((await events(`share-${id}`, 'ShareInvited')).map((e) => e.data.email).sort()).toEqual([...addresses].sort());
      expect((await call('GET', `/v1/verifications/${id}/share`, { token: owner.token })).body.invited_emails.sort()).toEqual([...addresses].sort());
      await t.settled();
      const outbox = path.join(t.dataDir, 'outbox');
      const mails = await Promise.all(fs.readdirSync(outbox).filter((f) => f.endsWith('.eml')).map((f) => simpleParser(fs.readFileSync(path.join(outbox, f)))));
      const recipients = mails.map((m) => (Array.isArray(m.to) ? m.to[0] : m.to)?.text).filter((address) => address?.endsWith(`-${id.slice(0, 8)}@example.eu`));
      expect(recipients.sort()).toEqual([...addresses].sort());
    });

    it('applies 10 concurrent tag sets on one verification one after another; each new name is created once', async () => {
      const id = await uploadImage(t.url, owner.token);
      const sets = Array.from({ length: 10 }, (_, i) => [`shared ${id.slice(0, 8)}`, `own ${id.slice(0, 8)} ${i}`]);
      const answers = await Promise.all(sets.map((tags) => call('PUT', `/v1/verifications/${id}/tags`, { token: owner.token, json: { tags } })));
      expect(statuses(answers), JSON.stringify(answers.find((res) => res.status !== 200)?.body)).toEqual(all(10, 200));
      // The last one decided wins; it is one of the ten, whole.
      const final = (await call('GET', `/v1/verifications/${id}`, { token: owner.token })).body.tags.map((tag: { name: string }) => tag.name).sort();
      expect(sets.map((tags) => [...tags].sort())).toContainEqual(final);
      const created = (await events(`tags-${owner.account.id}`, 'TagCreated')).map((e) => String(e.data.name)).filter((name) => name.includes(id.slice(0, 8)));
      expect(created.sort()).toEqual([...new Set(sets.flat())].sort());
    });

    it('applies concurrent share updates; the link stays the same', async () => {
      const id = await uploadImage(t.url, owner.token);
      const first = await call('POST', `/v1/verifications/${id}/share`, { token: owner.token, json: { access_type: 'anyone_with_link' } });
      const types = Array.from({ length: 10 }, (_, i) => (i % 2 ? 'anyone_with_link' : 'restricted'));
      const answers = await Promise.all(types.map((access_type) => call('POST', `/v1/verifications/${id}/share`, { token: owner.token, json: { access_type } })));
      expect(statuses(answers), JSON.stringify(answers.find((res) => res.status !== 200)?.body)).toEqual(all(10, 200));
      for (const res of answers) expect(res.body.share_url).toBe(first.body.share_url);
      const changes = (await t.service.deps.store.readStream(`share-${id}`)).filter((e) => e.type !== 'ShareInvited');
      // One event opens the share; each later change is recorded only when it changes the access type.
      expect(changes.length).toBeGreaterThanOrEqual(2);
      expect(changes.length).toBeLessThanOrEqual(11);
    });

    it('answers 503 with Retry-After, naming no stream, when other instances keep winning past the retries', async () => {
      const id = await uploadImage(t.url, owner.token);
      const store = t.service.deps.store;
      const original = store.append;
      let attempts = 0;
      // Another instance appends first every time: each append of this one finds the stream moved.
      store.append = async (stream, events, options) => {
        if (stream !== `comments-${id}`) return original.call(store, stream, events, options);
        attempts += 1;
        throw new WrongExpectedRevisionError(stream, 0n, BigInt(attempts));
      };
      try {
        const busy = await call('POST', `/v1/verifications/${id}/comments`, { token: owner.token, json: { body: 'Never recorded.' } });
        expect([busy.status, busy.body.detail.error_code]).toEqual([503, 'SERVICE_UNAVAILABLE']);
        expect(busy.headers.get('retry-after')).toBe('1');
        expect(busy.body.detail.message).not.toMatch(/stream|comments-/i);
        expect(attempts).toBe(COMMAND_ATTEMPTS);
        expect(await events(`comments-${id}`, 'CommentAdded')).toEqual([]);
      } finally {
        store.append = original;
      }
      expect((await call('POST', `/v1/verifications/${id}/comments`, { token: owner.token, json: { body: 'Recorded.' } })).status).toBe(201);
    });
  });
}

/** Two service processes on one PostgreSQL database: an append lost to the other is decided again. */
const postgres = databaseTargets.find((target) => target.name === 'postgres');
const twoInstances = requires(
  { server: 'PostgreSQL server', variable: 'DATABASE_URL', available: Boolean(postgres), how: 'scripts/start-postgres.sh starts one and prints its URL' },
  'concurrent comments through two service instances (PGlite has one owner process)',
);
twoInstances.describe('concurrent comments through two service instances on one PostgreSQL database', () => {
  let t: TestService;
  let second: Service;

  beforeAll(async () => {
    t = await startTestService(postgres!);
    // The same database and data dir (secrets, blobs), as instances behind one load balancer have.
    // ROLE=api: without Temporal the first process is the database's one workflow engine (D-205).
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: t.dataDir, DATABASE_URL: t.service.deps.config.DATABASE_URL!, PASSWORD_HASH_COST: '10', LOG_LEVEL: 'silent', ROLE: 'api' });
    second = await startService(config, { logger: pino({ level: 'silent' }) });
  }, 120_000);
  afterAll(async () => {
    await second?.stop();
    await t?.stop();
  });

  // A comment loses a race only to a comment of the other instance: 7 each cannot exhaust COMMAND_ATTEMPTS (8).
  it('answers 201 to 14 comments sent at once to both, and records each once', async () => {
    const owner = await registerAccount(client(t.url));
    const id = await uploadImage(t.url, owner.token);
    const calls = [client(t.url), client(second.url)];
    const bodies = Array.from({ length: 14 }, (_, i) => `From instance ${i % 2}, comment ${i}.`);
    const answers = await Promise.all(bodies.map((body, i) => calls[i % 2]!('POST', `/v1/verifications/${id}/comments`, { token: owner.token, json: { body } })));
    expect(statuses(answers), JSON.stringify(answers.find((res) => res.status !== 201)?.body)).toEqual(all(14, 201));
    const added = (await t.service.deps.store.readStream(`comments-${id}`)).filter((e) => e.type === 'CommentAdded');
    expect(added.map((e) => e.data.body).sort()).toEqual([...bodies].sort());
  }, 240_000);
});
