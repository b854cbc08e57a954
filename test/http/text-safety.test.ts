import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { systemContext } from '../../src/core/es/commands.js';
import type { EventStore } from '../../src/core/es/event-store.js';
import { queueMail } from '../../src/features/mail/use-cases.js';
import { runCommand } from '../../src/core/es/decider.js';
import { emailClaimDecider, emailClaimStream } from '../../src/features/accounts/decider.js';
import { ABANDONED_EMAIL_CLAIM_MS } from '../../src/features/accounts/use-cases.js';
import { databaseTargets } from '../support/databases.js';
import { callTool, connectMcp, inline } from '../support/mcp.js';
import { outbox } from '../support/outbox.js';
import { serviceSuite } from '../support/suite.js';

/**
 * Issue 21, defects 2, 9 and 11: text PostgreSQL's JSON cannot hold (NUL, unpaired surrogates)
 * is refused with 422 at every door and never leaves half-written state; UTF-8 file names
 * arrive intact; controls and bidi characters never reach a name shown on a page or in a mail.
 */
const webp = fs.readFileSync(path.resolve(import.meta.dirname, '../../../shared/fixtures/images/rs_sample1.webp'));
const BASE = 'https://photos.example.eu';

/** Text PostgreSQL's json/jsonb refuses (`invalid input syntax for type json`). */
const UNSTORABLE = ['x\ud800', '\udc00x', 'x\u0000y'];
/** Characters shown raw before: right-to-left override, BEL, ESC, a line break. */
const UNSAFE = ['evil\u202Egpj.exe', 'bell\u0007', 'esc\u001b[31mred', 'two\r\nlines', 'isolate\u2067x\u2069'];

const newEmail = () => `text-${crypto.randomUUID()}@example.eu`;
const PASSWORD = 'a long enough password';

/** A multipart body written byte by byte, so the file name's header is exactly what a client sends. */
function multipart(disposition: string): { body: Buffer; contentType: string } {
  const boundary = `----text-safety-${crypto.randomUUID()}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="image"; ${disposition}\r\nContent-Type: application/octet-stream\r\n\r\n`, 'utf8'),
    webp,
    Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8'),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

for (const target of databaseTargets) {
  describe(`text safety on ${target.name}`, () => {
    const { t, call, newAccount } = serviceSuite(target, { PUBLIC_BASE_URL: BASE });
    const owner = newAccount();

    /** Uploads with a hand-written Content-Disposition; the verification's stored name. */
    const uploadNamed = async (disposition: string): Promise<{ id: string; name: string }> => {
      const { body, contentType } = multipart(disposition);
      const res = await fetch(`${t.url}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${owner.token}`, 'content-type': contentType }, body: new Uint8Array(body) });
      const created = (await res.json()) as { id: string };
      expect(res.status, JSON.stringify(created)).toBe(201);
      const got = await call('GET', `/v1/verifications/${created.id}`, { token: owner.token });
      return { id: created.id, name: got.body.name };
    };

    it('refuses unstorable account and user names at registration with 422, and the address stays free', async () => {
      for (const bad of UNSTORABLE) {
        const email = newEmail();
        const before = await t.eventCount();
        for (const body of [
          { name: bad, admin: { email, name: 'Ada', password: PASSWORD } },
          { name: 'Studio', admin: { email, name: bad, password: PASSWORD } },
        ]) {
          const res = await call('POST', '/v1/accounts', { json: body });
          expect(res.status, `${JSON.stringify(bad)}: ${JSON.stringify(res.body)}`).toBe(422);
        }
        expect(await t.eventCount(), 'a refused registration records nothing').toBe(before);
        const retry = await call('POST', '/v1/accounts', { json: { name: 'Studio', admin: { email, name: 'Ada', password: PASSWORD } } });
        expect(retry.status, JSON.stringify(retry.body)).toBe(201);
        expect((await call('POST', '/v1/accounts/login', { json: { email, password: PASSWORD } })).status).toBe(200);
      }
    });

    it('refuses control and bidi characters in account and user names with 422, naming the field', async () => {
      const member = newEmail();
      for (const bad of UNSAFE) {
        const email = newEmail();
        const account = await call('POST', '/v1/accounts', { json: { name: bad, admin: { email, name: 'Ada', password: PASSWORD } } });
        expect(account.status, JSON.stringify(bad)).toBe(422);
        expect(account.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'name'], msg: expect.stringContaining('bidirectional') })]);
        const user = await call('POST', '/v1/accounts', { json: { name: 'Studio', admin: { email, name: bad, password: PASSWORD } } });
        expect(user.status, JSON.stringify(bad)).toBe(422);
        expect(user.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'admin', 'name'] })]);
        const added = await call('POST', `/v1/accounts/${owner.account.id}/users`, { token: owner.token, json: { email: member, name: bad, role: 'member' } });
        expect(added.status, JSON.stringify(bad)).toBe(422);
        expect(added.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'name'] })]);
      }
      // Letters of every script, emoji with joiners, and surrounding spaces (trimmed) are names.
      const fine = await call('POST', '/v1/accounts', { json: { name: '  Ateliér שלום 写真 👩‍💻 ', admin: { email: newEmail(), name: 'Zoë', password: PASSWORD } } });
      expect(fine.status, JSON.stringify(fine.body)).toBe(201);
      expect(fine.body.account.name).toBe('Ateliér שלום 写真 👩‍💻');
    });

    it('holds request instructions to the comment rule: controls, bidi and invisible characters refused with 422 naming the field (POST and PATCH), tab and line breaks kept', async () => {
      const expires_at = new Date(Date.now() + 86_400_000).toISOString();
      const created = await call('POST', '/v1/requests', { token: owner.token, json: { subject: 'Finalist', expires_at, instructions: 'Line one\n\tLine two\r\nLine three' } });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body.instructions).toBe('Line one\n\tLine two\r\nLine three');
      for (const bad of ['see https://ex.example/\u202Egpj.exe', 'bell\u0007', 'esc\u001b[31mred', 'isolate\u2067x\u2069', 'zero\u200Bwidth', 'bom\uFEFF', 'c1\u0085']) {
        const before = await t.eventCount();
        const posted = await call('POST', '/v1/requests', { token: owner.token, json: { subject: 'Finalist', expires_at, instructions: bad } });
        expect(posted.status, JSON.stringify(bad)).toBe(422);
        expect(posted.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'instructions'] })]);
        const patched = await call('PATCH', `/v1/requests/${created.body.id}`, { token: owner.token, json: { instructions: bad } });
        expect(patched.status, JSON.stringify(bad)).toBe(422);
        expect(patched.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'instructions'] })]);
        expect(await t.eventCount(), JSON.stringify(bad)).toBe(before);
      }
    });

    it('releases the e-mail claim when recording the new user fails after it', async () => {
      const store = t.service.deps.store as EventStore & { append: EventStore['append'] };
      const append = store.append;
      // The account stream's append fails once, as a lost connection would, after the address was claimed.
      const failAccountAppend = () => {
        let failed = false;
        store.append = (async (stream, ...rest) => {
          if (!failed && stream.startsWith('account-')) {
            failed = true;
            throw new Error('injected: the database went away');
          }
          return append.call(store, stream, ...rest);
        }) as EventStore['append'];
      };
      try {
        const email = newEmail();
        failAccountAppend();
        expect((await call('POST', '/v1/accounts', { json: { name: 'Studio', admin: { email, name: 'Ada', password: PASSWORD } } })).status).toBe(500);
        store.append = append;
        const retry = await call('POST', '/v1/accounts', { json: { name: 'Studio', admin: { email, name: 'Ada', password: PASSWORD } } });
        expect(retry.status, JSON.stringify(retry.body)).toBe(201);
        expect((await call('POST', '/v1/accounts/login', { json: { email, password: PASSWORD } })).status).toBe(200);

        const memberEmail = newEmail();
        failAccountAppend();
        expect((await call('POST', `/v1/accounts/${owner.account.id}/users`, { token: owner.token, json: { email: memberEmail, name: 'Bo', password: PASSWORD } })).status).toBe(500);
        store.append = append;
        const added = await call('POST', `/v1/accounts/${owner.account.id}/users`, { token: owner.token, json: { email: memberEmail, name: 'Bo', password: PASSWORD } });
        expect(added.status, JSON.stringify(added.body)).toBe(201);
      } finally {
        store.append = append;
      }
    });

    it('frees an address a process killed between its claim and the new user\'s write left claimed, once that claim is older than the grace period', async () => {
      /** What the killed registration recorded: EmailClaimed at `now`, and nothing of its account. */
      const killedAfterClaim = (email: string, now: Date) =>
        runCommand(t.service.deps.store, emailClaimStream(email), emailClaimDecider, { type: 'ClaimEmail', email, user_id: crypto.randomUUID(), account_id: crypto.randomUUID() },
          { accountId: null, actor: { type: 'user', id: crypto.randomUUID() }, correlationId: 'killed', causationId: 'killed', processingRegion: t.service.deps.config.PROCESSING_REGION, now });
      const register = (email: string) => call('POST', '/v1/accounts', { json: { name: 'Studio', admin: { email, name: 'Ada', password: PASSWORD } } });

      const abandoned = newEmail();
      await killedAfterClaim(abandoned, new Date(Date.now() - ABANDONED_EMAIL_CLAIM_MS - 60_000));
      const registered = await register(abandoned);
      expect(registered.status, JSON.stringify(registered.body)).toBe(201);
      expect((await call('POST', '/v1/accounts/login', { json: { email: abandoned, password: PASSWORD } })).status).toBe(200);
      // The address is the new user's now: claiming it again is refused.
      expect((await register(abandoned)).body.detail.error_code).toBe('EMAIL_TAKEN');

      // A claim younger than the grace period may be a registration still under way: it keeps the address.
      const recent = newEmail();
      await killedAfterClaim(recent, new Date());
      const refused = await register(recent);
      expect(refused.status).toBe(409);
      expect(refused.body.detail.error_code).toBe('EMAIL_TAKEN');
    });

    it('refuses unstorable text in user names, key descriptions, tag names and comment bodies with 422, recording nothing', async () => {
      const id = await uploadNamed('filename="harbour.webp"').then((v) => v.id);
      await t.settled();
      for (const bad of UNSTORABLE) {
        const before = await t.eventCount();
        const attempts: [string, string, unknown][] = [
          ['POST', `/v1/accounts/${owner.account.id}/users`, { email: newEmail(), name: bad, password: PASSWORD }],
          ['POST', `/v1/accounts/${owner.account.id}/users`, { email: newEmail(), name: bad }],
          ['POST', '/v1/apikeys/', { account_id: owner.account.id, description: bad }],
          ['POST', '/v1/tags/', { name: bad }],
          ['PUT', `/v1/verifications/${id}/tags`, { tags: [bad] }],
          ['POST', `/v1/verifications/${id}/comments`, { body: bad }],
        ];
        for (const [method, route, json] of attempts) {
          const res = await call(method, route, { token: owner.token, json });
          expect(res.status, `${method} ${route} ${JSON.stringify(json)}: ${JSON.stringify(res.body)}`).toBe(422);
        }
        expect(await t.eventCount(), JSON.stringify(bad)).toBe(before);
      }
    });

    it('refuses unstorable MCP file names as VALIDATION_ERROR and cleans unsafe ones', async () => {
      const agent = await connectMcp(t.url);
      try {
        for (const bad of UNSTORABLE) {
          for (const [tool, args] of [
            ['verify_image', { image: inline(bad, webp), wait_seconds: 0 }],
            ['create_upload', { filename: bad }],
          ] as const) {
            const outcome = await callTool(agent, tool, args).catch((error: unknown) => ({ error: { error_code: 'REFUSED', message: String(error) } }));
            expect(outcome.error?.error_code, `${tool} ${JSON.stringify(bad)}`).toMatch(/^(VALIDATION_ERROR|REFUSED)$/);
          }
        }
        const named = await callTool(agent, 'verify_image', { image: inline('night\u202Egpj.webp\u0007', webp), wait_seconds: 0 });
        expect(named.error).toBeUndefined();
        expect(named.output.verification.name).toBe('nightgpj.webp');
      } finally {
        await agent.close();
      }
    });

    it('keeps UTF-8 multipart file names (plain and RFC 5987 filename*) on the verification, the report page and the share mail', async () => {
      const plain = await uploadNamed('filename="café ☕.webp"');
      expect(plain.name).toBe('café ☕.webp');
      const extended = await uploadNamed(`filename="cafe.webp"; filename*=UTF-8''${encodeURIComponent('Ørsted å.webp')}`);
      expect(extended.name).toBe('Ørsted å.webp');

      const shared = await call('POST', `/v1/verifications/${plain.id}/share`, { token: owner.token, json: { access_type: 'anyone_with_link' } });
      expect(shared.status, JSON.stringify(shared.body)).toBe(200);
      await t.settled();
      const page = await fetch(new URL(new URL(shared.body.share_url as string).pathname, t.url));
      const html = await page.text();
      expect(page.status).toBe(200);
      expect(html).toContain('café ☕.webp');
      expect(html).not.toContain('cafÃ');

      // Invitations need a restricted share: the other upload's name goes into the invitation's subject.
      expect((await call('POST', `/v1/verifications/${extended.id}/share`, { token: owner.token, json: { access_type: 'restricted' } })).status).toBe(200);
      const guest = `guest-${crypto.randomUUID()}@example.eu`;
      const invited = await call('POST', `/v1/verifications/${extended.id}/share/invites`, { token: owner.token, json: { email: guest } });
      expect(invited.status, JSON.stringify(invited.body)).toBeLessThan(300);
      await t.settled();
      const mail = (await outbox(t.dataDir)).find((m) => (Array.isArray(m.to) ? m.to[0] : m.to)?.text === guest);
      expect(mail?.subject).toContain('Ørsted å.webp');
      expect(mail?.text).toContain('Ørsted å.webp');
    });

    it('sends and records mail subjects as one line without controls or bidi characters, whatever names they carry', async () => {
      // Names recorded before the doors refused or cleaned them can still reach a subject.
      const deps = t.service.deps;
      const id = `text-safety-${crypto.randomUUID()}`;
      const to = `reader-${crypto.randomUUID()}@example.eu`;
      const context = systemContext(deps, { actor: { type: 'system', id: 'test' }, correlationId: crypto.randomUUID(), accountId: null });
      await queueMail(deps, context, { id, to, subject: 'Ada\u202E shared\r\nBcc: x@example.eu \u001b[31mphoto\u0007', text: 'x', html: '<p>x</p>', accountId: null });
      await t.settled();
      const recorded = await deps.knex('events').where({ type: 'MailQueued' }).whereRaw("data->>'to' = ?", [to]).first();
      expect(recorded.data.subject).toBe('Ada shared Bcc: x@example.eu [31mphoto');
      const mail = (await outbox(t.dataDir)).find((m) => (Array.isArray(m.to) ? m.to[0] : m.to)?.text === to);
      expect(mail?.subject).toBe('Ada shared Bcc: x@example.eu [31mphoto');
      expect(mail?.headers.has('bcc')).toBe(false);
    });

    it('stores multipart file names without controls and bidi characters, and takes the photo', async () => {
      expect((await uploadNamed('filename="night\u202Egpj.webp"')).name).toBe('nightgpj.webp');
      // Raw control bytes in a part header are a malformed header to busboy (422); RFC 5987 encoding carries them.
      expect((await uploadNamed(`filename*=UTF-8''${encodeURIComponent('bell\u0007\u001b[0m nul\u0000.webp')}`)).name).toBe('bell[0m nul.webp');
      expect((await uploadNamed('filename="isolate\u2066x\u2069 \u200b.webp"')).name).toBe('isolatex .webp');
      // Browsers escape a line break as %0A (WHATWG); multer decodes it: it becomes a space.
      expect((await uploadNamed('filename="two%0Alines.webp"')).name).toBe('two lines.webp');
      const long = `${'é'.repeat(300)}.webp`;
      const cut = (await uploadNamed(`filename="${long}"`)).name;
      expect(cut.length).toBeLessThanOrEqual(255);
      expect(cut.endsWith('é.webp')).toBe(true);
    });
  });
}
