import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { appendFacts } from '../../src/core/es/decider.js';
import { commentsStream, MAX_COMMENT_LENGTH, MAX_COMMENTS_PER_VERIFICATION } from '../../src/features/comments/decider.js';
import { commentEvents } from '../../src/features/comments/events.js';
import { openSharedReport } from '../../src/features/sharing/use-cases.js';
import { databaseTargets } from '../support/databases.js';
import { addMember, type Member } from '../support/members.js';
import { registerAccount, uploadImage } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

type Account = Awaited<ReturnType<typeof registerAccount>>;

const upload = (url: string, token: string) => uploadImage(url, token, 'images/rs_sample1.webp', 'harbour.webp');

for (const target of databaseTargets) {
  describe(`comments over HTTP on ${target.name}`, () => {
    const { t, call, newAccount } = serviceSuite(target);
    const admin = newAccount();
    let member: Member;
    let colleague: Member;
    let other: Account;
    let id: string;
    let second: string;
    let otherId: string;

    const comments = (verificationId: string) => `/v1/verifications/${verificationId}/comments`;
    const comment = (verificationId: string, commentId: string) => `${comments(verificationId)}/${commentId}`;
    const post = (token: string, body: string, verificationId = id) => call('POST', comments(verificationId), { token, json: { body } });
    const expectError = (res: { status: number; body: any }, status: number, code: string) => {
      expect([res.status, res.body?.detail?.error_code]).toEqual([status, code]);
      expect(res.body.detail.suggestion ?? res.body.detail.message).toEqual(expect.any(String));
    };

    beforeAll(async () => {
      member = await addMember(call, admin, 'member', 'Maya Member');
      colleague = await addMember(call, admin, 'member', 'Colin Colleague');
      other = await registerAccount(call);
      id = await upload(t.url, admin.token);
      second = await upload(t.url, member.token);
      otherId = await upload(t.url, other.token);
      await t.settled();
    });

    it('a member comments: the author is the calling user; listed oldest first with total; comment_count on the Verification', async () => {
      const first = await post(member.token, '  The horizon looks tilted.\n\nCheck the RAW.  ');
      expect(first.status).toBe(201);
      expect(first.body).toEqual({
        id: expect.any(String),
        verification_id: id,
        author_user_id: member.user.id,
        author_name: 'Maya Member',
        body: 'The horizon looks tilted.\n\nCheck the RAW.',
        created_at: expect.stringMatching(ISO),
        updated_at: first.body.created_at,
        edited_at: null,
      });
      const byAdmin = await post(admin.token, 'Agreed, flag it.');
      expect(byAdmin.body).toMatchObject({ author_user_id: admin.user.id, author_name: admin.user.name });
      // An API key carries the user who created it.
      const key = await call('POST', '/v1/apikeys/', { token: colleague.token, json: { account_id: admin.account.id } });
      const byKey = await call('POST', comments(id), { apiKey: key.body.raw_key, json: { body: 'Third.' } });
      expect(byKey.status).toBe(201);
      expect(byKey.body).toMatchObject({ author_user_id: colleague.user.id, author_name: 'Colin Colleague' });

      for (const reader of [member.token, admin.token]) {
        const list = await call('GET', comments(id), { token: reader });
        expect(list.status).toBe(200);
        expect(list.body.total).toBe(3);
        expect(list.body.items.map((c: { id: string }) => c.id)).toEqual([first.body.id, byAdmin.body.id, byKey.body.id]);
        expect(list.body.items[0]).toEqual(first.body);
      }
      expect((await call('GET', comments(id), { apiKey: key.body.raw_key })).body.total).toBe(3);
      expect((await call('GET', `/v1/verifications/${id}`, { token: member.token })).body.comment_count).toBe(3);
      const listed = await call('GET', '/v1/verifications/?size=100', { token: admin.token });
      const counts = Object.fromEntries(listed.body.items.map((v: { id: string; comment_count: number }) => [v.id, v.comment_count]));
      expect(counts).toEqual({ [id]: 3, [second]: 0 });
      const empty = await call('GET', comments(second), { token: admin.token });
      expect(empty.body).toEqual({ items: [], total: 0 });

      const history = await call('GET', `/v1/audit/streams/comments-${id}`, { token: admin.token });
      expect(history.status).toBe(200);
      expect(history.body.events.map((e: { type: string }) => e.type)).toEqual(['CommentAdded', 'CommentAdded', 'CommentAdded']);
      expect(history.body.events[0].metadata.actor).toEqual({ type: 'user', id: member.user.id });
      expect(history.body.events[2].metadata.actor).toEqual({ type: 'api_key', id: key.body.id });
      expect(history.body.events[2].data).toMatchObject({ author_user_id: colleague.user.id });
    });

    it('only the author edits: edited_at is stamped; the same body changes nothing', async () => {
      const mine = (await post(member.token, 'Draft note.')).body;
      for (const [token, who] of [[colleague.token, 'a colleague'], [admin.token, 'an admin']] as const) {
        const res = await call('PATCH', comment(id, mine.id), { token, json: { body: 'Hijacked.' } });
        expectError(res, 403, 'ACCESS_DENIED');
        expect(res.body.detail.message, who).toMatch(/Only the author/);
      }
      const edited = await call('PATCH', comment(id, mine.id), { token: member.token, json: { body: 'Final note.' } });
      expect(edited.status).toBe(200);
      expect(edited.body).toMatchObject({ id: mine.id, body: 'Final note.', created_at: mine.created_at, edited_at: expect.stringMatching(ISO) });
      expect(edited.body.updated_at).toBe(edited.body.edited_at);
      expect(new Date(edited.body.edited_at).getTime()).toBeGreaterThanOrEqual(new Date(mine.created_at).getTime());
      const before = await t.eventCount();
      const same = await call('PATCH', comment(id, mine.id), { token: member.token, json: { body: ' Final note. ' } });
      expect(same.body).toEqual(edited.body);
      expect(await t.eventCount()).toBe(before);
      const listed = (await call('GET', comments(id), { token: colleague.token })).body.items.find((c: { id: string }) => c.id === mine.id);
      expect(listed).toEqual(edited.body);
      const history = await call('GET', `/v1/audit/streams/comments-${id}`, { token: admin.token });
      expect(history.body.events.at(-1)).toMatchObject({ type: 'CommentEdited', data: { comment_id: mine.id, body: 'Final note.' } });
    });

    it('the author or an account admin deletes (204); a colleague cannot; then 404 COMMENT_NOT_FOUND', async () => {
      const a = (await post(member.token, 'Delete me (author).')).body;
      const b = (await post(member.token, 'Delete me (admin).')).body;
      const count = (await call('GET', comments(id), { token: admin.token })).body.total;
      expectError(await call('DELETE', comment(id, a.id), { token: colleague.token }), 403, 'ACCESS_DENIED');
      const byAuthor = await call('DELETE', comment(id, a.id), { token: member.token });
      expect([byAuthor.status, byAuthor.body]).toEqual([204, null]);
      const byAdmin = await call('DELETE', comment(id, b.id), { token: admin.token });
      expect(byAdmin.status).toBe(204);
      const list = await call('GET', comments(id), { token: member.token });
      expect(list.body.total).toBe(count - 2);
      expect(list.body.items.map((c: { id: string }) => c.id)).not.toContain(a.id);
      expect((await call('GET', `/v1/verifications/${id}`, { token: member.token })).body.comment_count).toBe(count - 2);
      expectError(await call('DELETE', comment(id, a.id), { token: member.token }), 404, 'COMMENT_NOT_FOUND');
      expectError(await call('PATCH', comment(id, b.id), { token: member.token, json: { body: 'too late' } }), 404, 'COMMENT_NOT_FOUND');
      const history = await call('GET', `/v1/audit/streams/comments-${id}`, { token: admin.token });
      const deletions = history.body.events.filter((e: { type: string }) => e.type === 'CommentDeleted');
      expect(deletions.map((e: { data: { comment_id: string }; metadata: { actor: { id: string } } }) => [e.data.comment_id, e.metadata.actor.id])).toEqual([
        [a.id, member.user.id],
        [b.id, admin.user.id],
      ]);
    });

    it('another account gets 404 VERIFICATION_NOT_FOUND on every comment route, and comments of another verification are COMMENT_NOT_FOUND', async () => {
      const target = (await post(member.token, 'Internal only.')).body;
      const before = await t.eventCount();
      const routes: [string, string, unknown?][] = [
        ['GET', comments(id)],
        ['POST', comments(id), { body: 'Intruding.' }],
        ['PATCH', comment(id, target.id), { body: 'Intruding.' }],
        ['DELETE', comment(id, target.id)],
      ];
      for (const [method, route, json] of routes) {
        const res = await call(method, route, { token: other.token, ...(json ? { json } : {}) });
        expectError(res, 404, 'VERIFICATION_NOT_FOUND');
        expect(JSON.stringify(res.body)).not.toContain('Internal only');
      }
      // The other account's own verification: the first account's users get the same 404.
      for (const token of [member.token, admin.token]) {
        expectError(await call('GET', comments(otherId), { token }), 404, 'VERIFICATION_NOT_FOUND');
        expectError(await post(token, 'x', otherId), 404, 'VERIFICATION_NOT_FOUND');
      }
      // A comment id of one verification under another of the same account, or unknown, is not found.
      for (const token of [member.token, admin.token]) {
        expectError(await call('PATCH', comment(second, target.id), { token, json: { body: 'moved?' } }), 404, 'COMMENT_NOT_FOUND');
        expectError(await call('DELETE', comment(second, target.id), { token }), 404, 'COMMENT_NOT_FOUND');
        expectError(await call('DELETE', comment(id, UNKNOWN), { token }), 404, 'COMMENT_NOT_FOUND');
      }
      expectError(await call('GET', comments(UNKNOWN), { token: admin.token }), 404, 'VERIFICATION_NOT_FOUND');
      expect(await t.eventCount()).toBe(before);
      expect((await call('GET', comments(id), { token: member.token })).body.items.map((c: { id: string }) => c.id)).toContain(target.id);
    });

    it('validates bodies and ids (422), requires credentials (401), refuses read-only keys (403), and writes nothing', async () => {
      const target = (await post(member.token, 'Valid.')).body;
      const key = await call('POST', '/v1/apikeys/', { token: member.token, json: { account_id: admin.account.id, scope: 'read' } });
      await call('GET', comments(id), { apiKey: key.body.raw_key }); // its use is recorded before the count
      const before = await t.eventCount();
      // The comment rules the spec names answer its envelope with VALIDATION_ERROR, as the tag rules do (D-092) ...
      const broken: [unknown, RegExp][] = [
        [{ body: '' }, /empty/],
        [{ body: ' \n\t ' }, /empty/],
        [{ body: 'x'.repeat(MAX_COMMENT_LENGTH + 1) }, /at most 5000 characters/],
        [{ body: 'bell \u0007' }, /Control characters/],
      ];
      // ... and a body of the wrong shape the 422 list form.
      const misshapen: [unknown, string][] = [
        [{ body: 'nul \u0000 byte' }, 'string_unrepresentable'],
        [{}, 'missing'],
        [{ body: 42 }, 'string_type'],
        [{ body: 'ok', author_user_id: admin.user.id }, 'extra_forbidden'],
      ];
      for (const [method, route] of [['POST', comments(id)], ['PATCH', comment(id, target.id)]] as const) {
        for (const [json, message] of broken) {
          const res = await call(method, route, { token: member.token, json });
          expect([method, JSON.stringify(json).slice(0, 40), res.status, res.body.detail.error_code]).toEqual([method, JSON.stringify(json).slice(0, 40), 422, 'VALIDATION_ERROR']);
          expect(res.body.detail.message).toMatch(message);
          expect(res.body.detail.suggestion).toEqual(expect.any(String));
        }
        for (const [json, type] of misshapen) {
          const res = await call(method, route, { token: member.token, json });
          expect(res.status, `${method} ${JSON.stringify(json).slice(0, 40)}`).toBe(422);
          expect(res.body.detail[0]).toMatchObject({ loc: expect.arrayContaining(['body']), type });
        }
      }
      expect((await call('GET', comments('not-a-uuid'), { token: member.token })).status).toBe(422);
      expect((await call('PATCH', comment(id, 'not-a-uuid'), { token: member.token, json: { body: 'x' } })).status).toBe(422);
      expect((await call('DELETE', comment(id, 'not-a-uuid'), { token: member.token })).status).toBe(422);
      for (const [method, route, json] of [['GET', comments(id)], ['POST', comments(id), { body: 'x' }], ['PATCH', comment(id, target.id), { body: 'x' }], ['DELETE', comment(id, target.id)]] as const) {
        const anonymous = await call(method, route, json ? { json } : {});
        expect([anonymous.status, anonymous.body.detail.error_code]).toEqual([401, 'AUTHENTICATION_REQUIRED']);
        if (method === 'GET') continue;
        const readOnly = await call(method, route, { apiKey: key.body.raw_key, ...(json ? { json } : {}) });
        expect([readOnly.status, readOnly.body.detail.error_code]).toEqual([403, 'ACCESS_DENIED']);
      }
      expect(await t.eventCount()).toBe(before);
      // The longest allowed body is accepted.
      const longest = await post(member.token, 'é'.repeat(MAX_COMMENT_LENGTH));
      expect([longest.status, longest.body.body.length]).toEqual([201, MAX_COMMENT_LENGTH]);
    });

    it(`refuses a comment beyond ${MAX_COMMENTS_PER_VERIFICATION} per verification (422 VALIDATION_ERROR) until one is deleted`, async () => {
      const full = await upload(t.url, admin.token);
      await t.settled(); // the upload's own workflow appends in the background: the event count below must not see it
      // The history of a busy discussion, appended directly (as the command would): 499 comments of the last minute.
      const context = { accountId: admin.account.id, actor: { type: 'user' as const, id: member.user.id }, correlationId: 'bulk', causationId: 'bulk', processingRegion: t.service.deps.config.PROCESSING_REGION, now: new Date() };
      const events = Array.from({ length: MAX_COMMENTS_PER_VERIFICATION - 1 }, (_, i) => ({
        type: 'CommentAdded' as const,
        data: { comment_id: crypto.randomUUID(), author_user_id: member.user.id, author_name: 'Maya Member', body: `Note ${i}`, added_at: new Date(Date.now() - 60_000 + i).toISOString() },
      }));
      await appendFacts(t.service.deps.store, commentsStream(full), commentEvents, events, context);
      const last = await post(colleague.token, 'The 500th.', full);
      expect(last.status).toBe(201);
      const before = await t.eventCount();
      const refused = await post(admin.token, 'One too many.', full);
      expect(refused.status).toBe(422);
      expect(refused.body.detail).toMatchObject({ error_code: 'VALIDATION_ERROR', message: expect.stringMatching(/maximum of 500 comments/), suggestion: expect.stringMatching(/Delete one/), details: { limit: 500 } });
      expect(await t.eventCount()).toBe(before);
      const listed = await call('GET', comments(full), { token: admin.token });
      expect([listed.body.total, listed.body.items.length, listed.body.items.at(-1).body]).toEqual([500, 500, 'The 500th.']);
      expect((await call('DELETE', comment(full, last.body.id), { token: admin.token })).status).toBe(204);
      expect((await post(admin.token, 'Room again.', full)).status).toBe(201);
    });

    // Three writers on one stream: commands on it take turns within the process (D-081), so all land.
    it('concurrent comments on one verification are all kept (the command is decided again after a concurrent append)', async () => {
      const busy = await upload(t.url, admin.token);
      const results = await Promise.all([member, colleague, member].map((who, i) => post(who.token, `Parallel ${i}`, busy)));
      expect(results.map((r) => r.status)).toEqual([201, 201, 201]);
      const listed = await call('GET', comments(busy), { token: admin.token });
      expect(listed.body.total).toBe(3);
      expect(new Set(listed.body.items.map((c: { body: string }) => c.body))).toEqual(new Set(['Parallel 0', 'Parallel 1', 'Parallel 2']));
    });

    it('comments never appear on a shared report, and go with a deleted verification', async () => {
      const shared = await upload(t.url, admin.token);
      await t.settled();
      await post(member.token, 'Secret newsroom remark 7f3a.', shared);
      const link = await call('POST', `/v1/verifications/${shared}/share`, { token: admin.token, json: { access_type: 'anyone_with_link' } });
      const token = link.body.share_url.split('/').pop();
      const page = await fetch(`${t.url}/shared/${token}`);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('harbour.webp');
      expect(html).not.toContain('7f3a');
      expect(html.toLowerCase()).not.toContain('comment');
      const report = await openSharedReport(t.service.deps, { token, viewer: null, visitorKey: 'v' });
      expect(JSON.stringify(report)).not.toContain('7f3a');
      expect(JSON.stringify(report)).not.toContain('comment');

      expect((await call('DELETE', `/v1/verifications/${shared}`, { token: admin.token })).status).toBe(200);
      expectError(await call('GET', comments(shared), { token: member.token }), 404, 'VERIFICATION_NOT_FOUND');
      expectError(await post(member.token, 'After deletion.', shared), 404, 'VERIFICATION_NOT_FOUND');
      await t.settled();
      expect(await t.service.deps.knex('comments').where({ verification_id: shared })).toEqual([]);
    });

    it("a removed author's comments stay, under their name; an admin can still delete them", async () => {
      const leaving = await addMember(call, admin, 'member', 'Lena Leaving');
      const left = (await post(leaving.token, 'Written before leaving.')).body;
      expect((await call('DELETE', `/v1/accounts/${admin.account.id}/users/${leaving.user.id}`, { token: admin.token })).status).toBe(204);
      expectError(await call('PATCH', comment(id, left.id), { token: leaving.token, json: { body: 'x' } }), 401, 'INVALID_TOKEN');
      const listed = (await call('GET', comments(id), { token: member.token })).body.items.find((c: { id: string }) => c.id === left.id);
      expect(listed).toMatchObject({ author_user_id: leaving.user.id, author_name: 'Lena Leaving', body: 'Written before leaving.' });
      expectError(await call('DELETE', comment(id, left.id), { token: member.token }), 403, 'ACCESS_DENIED');
      expect((await call('DELETE', comment(id, left.id), { token: admin.token })).status).toBe(204);
    });
  });
}
