import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { pino } from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.js';
import type { Principal } from '../../src/core/principal.js';
import { startService } from '../../src/service.js';
import { principalFromJwt } from '../../src/features/accounts/sessions.js';
import { findInvite } from '../../projections/sharing/queries.js';
import { linkKey, linkToken } from '../../src/features/sharing/tokens.js';
import { openSharedFile, openSharedReport, type SharedReportRequest } from '../../src/features/sharing/use-cases.js';
import { databaseTargets } from '../support/databases.js';
import { callTool, connectMcp, keylessVerify } from '../support/mcp.js';
import { outbox, to } from '../support/outbox.js';
import { serviceSuite } from '../support/suite.js';

const fixtures = path.resolve(import.meta.dirname, '../../../shared/fixtures');
const webp = fs.readFileSync(path.join(fixtures, 'images/rs_sample1.webp'));
const BASE = 'https://photos.example.eu';
const SHARE_URL = /^https:\/\/photos\.example\.eu\/shared\/([A-Za-z0-9_-]{32})$/;

async function upload(url: string, headers: Record<string, string>) {
  const form = new FormData();
  form.append('image', new Blob([new Uint8Array(webp)]), 'harbour.webp');
  const res = await fetch(`${url}/v1/verifications/`, { method: 'POST', headers, body: form });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; anonymous_user_id?: string };
}

const tokenOf = (shareUrl: string) => SHARE_URL.exec(shareUrl)![1]!;

async function drain(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

for (const target of databaseTargets) {
  describe(`sharing over HTTP on ${target.name}`, () => {
    const { t, call, newAccount } = serviceSuite(target, { PUBLIC_BASE_URL: BASE });
    const owner = newAccount();
    const other = newAccount();
    const invitee = newAccount();
    let inviteePrincipal: Principal;
    let otherPrincipal: Principal;
    let ownerPrincipal: Principal;
    let id: string;
    let second: string;
    let anonymous: { id: string; anonymous_user_id?: string };

    const share = (verificationId: string) => `/v1/verifications/${verificationId}/share`;
    const invites = (verificationId: string) => `/v1/verifications/${verificationId}/share/invites`;
    const analytics = (verificationId: string, query = '') => `/v1/verifications/${verificationId}/analytics/views${query}`;
    const open = (request: Partial<SharedReportRequest> & { token: string }) =>
      openSharedReport(t.service.deps, { viewer: null, visitorKey: 'test-visitor', ...request });
    const refused = async (request: Partial<SharedReportRequest> & { token: string }) => {
      const error = await open(request).then(() => null, (e: unknown) => e as { code: string });
      expect(error, 'the report must be refused').not.toBeNull();
      return error!.code;
    };
    /** The invitation's personal-link proof, derived as the service derives it for the mail. */
    const proofOf = async (verificationId: string, email: string) => {
      const invite = await findInvite(t.service.deps.knex, verificationId, email);
      return linkToken(linkKey(t.dataDir), 'invite', verificationId, invite!.nonce);
    };

    beforeAll(async () => {
      ownerPrincipal = await principalFromJwt(t.service.deps, owner.token);
      otherPrincipal = await principalFromJwt(t.service.deps, other.token);
      inviteePrincipal = await principalFromJwt(t.service.deps, invitee.token);
      id = (await upload(t.url, { authorization: `Bearer ${owner.token}` })).id;
      second = (await upload(t.url, { authorization: `Bearer ${owner.token}` })).id;
      const keyless = await keylessVerify(t.url, { image: webp });
      anonymous = { id: keyless.output.verification_id, anonymous_user_id: keyless.output.anonymous_user_id };
      await t.settled();
    });

    it('answers for a verification that is not shared: 404 NOT_SHARED, 400 SHARE_NOT_FOUND, 404 INVITE_NOT_FOUND, empty analytics', async () => {
      const got = await call('GET', share(id), { token: owner.token });
      expect(got.status).toBe(404);
      expect(got.body.detail.error_code).toBe('NOT_SHARED');
      expect((await call('DELETE', share(id), { token: owner.token })).body.detail.error_code).toBe('NOT_SHARED');
      const invite = await call('POST', invites(id), { token: owner.token, json: { email: 'judge@contest.example' } });
      expect(invite.status).toBe(400);
      expect(invite.body.detail.error_code).toBe('SHARE_NOT_FOUND');
      const revoke = await call('DELETE', invites(id), { token: owner.token, json: { email: 'judge@contest.example' } });
      expect(revoke.status).toBe(404);
      expect(revoke.body.detail.error_code).toBe('INVITE_NOT_FOUND');
      const views = await call('GET', analytics(id), { token: owner.token });
      expect(views.status).toBe(200);
      expect(views.body.total_views).toBe(0);
      expect(views.body.daily_views).toHaveLength(30);
      expect(views.body.daily_views.at(-1)).toEqual({ date: new Date().toISOString().slice(0, 10), count: 0 });
    });

    it('validates requests (422), requires credentials (401) and refuses read-only keys (403)', async () => {
      const key = await call('POST', '/v1/apikeys/', { token: owner.token, json: { account_id: owner.account.id, scope: 'read' } });
      const before = await t.eventCount();
      for (const body of [{}, { access_type: 'public' }, { access_type: 'restricted', extra: 1 }]) {
        const res = await call('POST', share(id), { token: owner.token, json: body });
        expect(res.status, JSON.stringify(body)).toBe(422);
      }
      const badEmail = await call('POST', invites(id), { token: owner.token, json: { email: 'not an address' } });
      expect(badEmail.status).toBe(422);
      expect(badEmail.body.detail[0]).toMatchObject({ loc: ['body', 'email'] });
      expect((await call('DELETE', invites(id), { token: owner.token, json: {} })).status).toBe(422);
      expect((await call('GET', share('not-a-uuid'), { token: owner.token })).status).toBe(422);
      expect((await call('GET', analytics(id, '?days=3'), { token: owner.token })).status).toBe(422);
      expect((await call('GET', share(id))).status).toBe(401);
      expect((await call('POST', share(id), { json: { access_type: 'restricted' } })).status).toBe(401);
      const readOnly = await call('POST', share(id), { apiKey: key.body.raw_key, json: { access_type: 'restricted' } });
      expect(readOnly.status).toBe(403);
      expect((await call('GET', share(id), { apiKey: key.body.raw_key })).body.detail.error_code).toBe('NOT_SHARED');
      // Nothing but the key's use (ApiKeyUsed) was recorded.
      expect(await t.eventCount()).toBeLessThanOrEqual(before + 1);
      expect(await t.service.deps.knex('events').where('stream', 'like', 'share%')).toHaveLength(0);
    });

    it('hides another account’s verification (404) and refuses anonymous ones (403; keyless use is MCP only), on every endpoint', async () => {
      const before = await t.eventCount();
      const endpoints: [string, string, unknown?][] = [
        ['GET', share(id)],
        ['POST', share(id), { access_type: 'anyone_with_link' }],
        ['DELETE', share(id)],
        ['POST', invites(id), { email: 'x@example.eu' }],
        ['DELETE', invites(id), { email: 'x@example.eu' }],
        ['GET', analytics(id)],
      ];
      for (const [method, route, json] of endpoints) {
        const foreign = await call(method, route, { token: other.token, json });
        expect([method, route, foreign.status, foreign.body.detail.error_code]).toEqual([method, route, 404, 'VERIFICATION_NOT_FOUND']);
        const missing = await call(method, route.replace(id, '00000000-0000-4000-8000-000000000000'), { token: owner.token, json });
        expect([method, route, missing.status, missing.body.detail.error_code]).toEqual([method, route, 404, 'VERIFICATION_NOT_FOUND']);
        const anonymousRoute = route.replace(id, anonymous.id);
        const own = await call(method, anonymousRoute, { headers: { 'x-anonymous-user-id': anonymous.anonymous_user_id! }, json });
        expect([method, anonymousRoute, own.status, own.body.detail.error_code]).toEqual([method, anonymousRoute, 401, 'AUTHENTICATION_REQUIRED']);
        // To an account an unclaimed anonymous verification is the spec's 403: it is no account's, so nothing of another account shows (D-091).
        const byAccount = await call(method, anonymousRoute, { token: owner.token, json });
        expect([method, anonymousRoute, byAccount.status, byAccount.body.detail.error_code]).toEqual([method, anonymousRoute, 403, 'ACCESS_DENIED']);
      }
      // Its keyless owner, over MCP, is refused: anonymous verifications cannot be shared (403).
      const agent = await connectMcp(t.url);
      try {
        for (const [tool, extra] of [['get_share', {}], ['share_verification', { access_type: 'anyone_with_link' }], ['unshare_verification', {}]] as const) {
          const own = await callTool(agent, tool, { verification_id: anonymous.id, anonymous_user_id: anonymous.anonymous_user_id, ...extra });
          expect([tool, own.error?.error_code]).toEqual([tool, 'ACCESS_DENIED']);
          const stranger = await callTool(agent, tool, { verification_id: anonymous.id, anonymous_user_id: `anon_${'B'.repeat(43)}`, ...extra });
          expect([tool, stranger.error?.error_code]).toEqual([tool, 'VERIFICATION_NOT_FOUND']);
        }
      } finally {
        await agent.close();
      }
      expect(await t.eventCount()).toBe(before);
    });

    let token: string;

    it('shares with anyone who has the link; the report hides account information and internal ids', async () => {
      const res = await call('POST', share(id), { token: owner.token, json: { access_type: 'anyone_with_link' } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ verification_id: id, access_type: 'anyone_with_link', share_url: expect.stringMatching(SHARE_URL), invited_emails: [] });
      token = tokenOf(res.body.share_url);
      const got = await call('GET', share(id), { token: owner.token });
      expect(got.body).toEqual(res.body);

      const report = await open({ token });
      expect(report).toMatchObject({ name: 'harbour.webp', status: 'completed', verification_mode: 'image_only', access_type: 'anyone_with_link', viewer: 'link', processing_region: 'eu-central-1' });
      expect(report.image_photo_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(report.files.image).toBe(true);
      expect(report.results.length).toBeGreaterThan(0);
      const text = JSON.stringify(report);
      for (const secret of [id, owner.account.id, owner.user.id, owner.email, 'blob_key', 'verifications/', '"id"', 'account_id']) {
        expect(text, `the public report must not contain ${secret}`).not.toContain(secret);
      }
      // Someone from another account, signed in or not, opens it too.
      expect((await open({ token, viewer: otherPrincipal })).viewer).toBe('link');
      const file = await openSharedFile(t.service.deps, { token, viewer: null, kind: 'image' });
      expect(file.contentType).toBe('image/webp');
      expect((await drain(file.stream)).equals(webp)).toBe(true);
      // The verification itself is unchanged by sharing.
      const v = await call('GET', `/v1/verifications/${id}`, { token: owner.token });
      expect(v.status).toBe(200);
      expect(v.body.id).toBe(id);
      expect((await call('GET', '/v1/verifications/', { token: owner.token })).body.total).toBe(2);
    });

    it('refuses unknown and malformed links (404 NOT_SHARED)', async () => {
      expect(await refused({ token: 'A'.repeat(32) })).toBe('NOT_SHARED');
      expect(await refused({ token: `${token}x` })).toBe('NOT_SHARED');
      expect(await refused({ token: '' })).toBe('NOT_SHARED');
    });

    it('changes the access type to restricted keeping the URL; nobody uninvited gets the report', async () => {
      const res = await call('POST', share(id), { token: owner.token, json: { access_type: 'restricted' } });
      expect(res.status).toBe(200);
      expect(res.body.share_url).toBe(`${BASE}/shared/${token}`);
      expect(res.body.access_type).toBe('restricted');
      // Repeating it changes nothing.
      const before = await t.eventCount();
      expect((await call('POST', share(id), { token: owner.token, json: { access_type: 'restricted' } })).body).toEqual(res.body);
      expect(await t.eventCount()).toBe(before);

      expect(await refused({ token })).toBe('ACCESS_DENIED');
      expect(await refused({ token, viewer: otherPrincipal })).toBe('ACCESS_DENIED');
      expect(await refused({ token, viewer: inviteePrincipal })).toBe('ACCESS_DENIED');
      expect(await refused({ token, inviteProof: 'B'.repeat(32) })).toBe('ACCESS_DENIED');
      await expect(openSharedFile(t.service.deps, { token, viewer: null, kind: 'image' })).rejects.toMatchObject({ code: 'ACCESS_DENIED' });
      // The owner's account always sees its own report.
      expect((await open({ token, viewer: ownerPrincipal })).viewer).toBe('owner');
    });

    it('invites addresses (user_exists, normalised, repeatable) who then prove them by link or by signing in', async () => {
      const registered = await call('POST', invites(id), { token: owner.token, json: { email: invitee.email.toUpperCase() } });
      expect(registered.status).toBe(200);
      expect(registered.body).toEqual({ email: invitee.email.toLowerCase(), user_exists: true });
      const guest = await call('POST', invites(id), { token: owner.token, json: { email: ' Guest@Example.EU ' } });
      expect(guest.status).toBe(422); // surrounding spaces are not an e-mail address
      const guest2 = await call('POST', invites(id), { token: owner.token, json: { email: 'Guest@Example.EU' } });
      expect(guest2.body).toEqual({ email: 'guest@example.eu', user_exists: false });
      const proof = await proofOf(id, 'guest@example.eu');
      const shareEvents = () => t.service.deps.store.readStream(`share-${id}`).then((events) => events.length);
      const before = await shareEvents();
      expect((await call('POST', invites(id), { token: owner.token, json: { email: 'guest@example.eu' } })).body).toEqual({ email: 'guest@example.eu', user_exists: false });
      expect(await proofOf(id, 'guest@example.eu')).toBe(proof);
      expect(await shareEvents()).toBe(before);

      const got = await call('GET', share(id), { token: owner.token });
      expect(got.body.invited_emails).toEqual([invitee.email.toLowerCase(), 'guest@example.eu']);

      expect((await open({ token, inviteProof: proof })).viewer).toBe('invitation');
      expect((await open({ token, viewer: inviteePrincipal })).viewer).toBe('invitation');
      // A proof belongs to its share: it opens no other.
      expect(await refused({ token: 'C'.repeat(32), inviteProof: proof })).toBe('NOT_SHARED');
      // Another account still gets nothing, and neither does a proof for a link of another share.
      expect(await refused({ token, viewer: otherPrincipal })).toBe('ACCESS_DENIED');
      expect(await refused({ token, inviteProof: linkToken(linkKey(t.dataDir), 'invite', second, 'x'.repeat(22)) })).toBe('ACCESS_DENIED');

      // Each invitee got one e-mail (a repeated invite sends none): its personal link, who shared it, the date, basic details.
      await t.settled();
      const mails = await outbox(t.dataDir);
      const toGuest = mails.filter((m) => to(m) === 'guest@example.eu');
      expect(toGuest).toHaveLength(1);
      const mail = toGuest[0]!;
      const link = `${BASE}/shared/${token}?invite=${proof}`;
      expect(mail.subject).toBe(`${owner.user.name} shared a photo verification with you: harbour.webp`);
      expect(mail.text).toContain(`Open the report: ${link}`);
      expect(mail.text).toContain(`${owner.user.name} (${owner.account.name}) shared`);
      expect(mail.text).toContain(`Verification date: ${new Date().toISOString().slice(0, 10)} (UTC)`);
      expect(mail.text).toMatch(/Photo: harbour\.webp/);
      expect(mail.text).toMatch(/Result: /);
      expect(mail.html).toContain(`href="${link}"`);
      expect(mail.html).toContain(owner.account.name);
      expect(mails.filter((m) => to(m) === invitee.email.toLowerCase())).toHaveLength(1);
      expect(mails.find((m) => to(m) === invitee.email.toLowerCase())!.text).toContain(`?invite=${await proofOf(id, invitee.email.toLowerCase())}`);
      // The mail's history is in the audit, its body (which holds the link) redacted.
      const mailStreams = (await call('GET', '/v1/audit/streams?size=100', { token: owner.token })).body.items.filter((i: { stream: string }) => i.stream.startsWith('mail-'));
      expect(mailStreams).toHaveLength(2);
      const queued = (await call('GET', `/v1/audit/streams/${mailStreams[0].stream}`, { token: owner.token })).body.events[0];
      expect(queued.type).toBe('MailQueued');
      expect(queued.data).not.toHaveProperty('text'); // the bodies (links) are in no event (D-030)
      expect(queued.data).not.toHaveProperty('html');

      // Invitations need a restricted share.
      const open2 = await call('POST', share(second), { token: owner.token, json: { access_type: 'anyone_with_link' } });
      expect(open2.status).toBe(200);
      const refusedInvite = await call('POST', invites(second), { token: owner.token, json: { email: 'guest@example.eu' } });
      expect([refusedInvite.status, refusedInvite.body.detail.error_code]).toEqual([400, 'SHARE_NOT_FOUND']);
    });

    it('revoking an invitation closes access at once', async () => {
      const proof = await proofOf(id, 'guest@example.eu');
      const res = await call('DELETE', invites(id), { token: owner.token, json: { email: 'GUEST@example.eu' } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ detail: expect.any(String) });
      expect(await refused({ token, inviteProof: proof })).toBe('ACCESS_DENIED');
      const again = await call('DELETE', invites(id), { token: owner.token, json: { email: 'guest@example.eu' } });
      expect([again.status, again.body.detail.error_code]).toEqual([404, 'INVITE_NOT_FOUND']);

      expect((await call('DELETE', invites(id), { token: owner.token, json: { email: invitee.email } })).status).toBe(200);
      expect(await refused({ token, viewer: inviteePrincipal })).toBe('ACCESS_DENIED');
      expect((await call('GET', share(id), { token: owner.token })).body.invited_emails).toEqual([]);

      // Invited again: a new personal link; the revoked one stays dead.
      await call('POST', invites(id), { token: owner.token, json: { email: 'guest@example.eu' } });
      const renewed = await proofOf(id, 'guest@example.eu');
      expect(renewed).not.toBe(proof);
      expect((await open({ token, inviteProof: renewed })).viewer).toBe('invitation');
      expect(await refused({ token, inviteProof: proof })).toBe('ACCESS_DENIED');
    });

    it('tells the invited addresses when the access type changes, once per change', async () => {
      const proof = await proofOf(id, 'guest@example.eu');
      await t.settled();
      const before = (await outbox(t.dataDir)).filter((m) => to(m) === 'guest@example.eu').length;
      expect((await call('POST', share(id), { token: owner.token, json: { access_type: 'anyone_with_link' } })).body.share_url).toBe(`${BASE}/shared/${token}`);
      // Repeating it (a client's retry) queues the same message again: not sent twice.
      await call('POST', share(id), { token: owner.token, json: { access_type: 'anyone_with_link' } });
      await t.settled();
      let toGuest = (await outbox(t.dataDir)).filter((m) => to(m) === 'guest@example.eu');
      expect(toGuest).toHaveLength(before + 1);
      const notice = toGuest.find((m) => m.subject?.includes('changed the sharing'))!;
      expect(notice.text).toContain('Anyone with the link can now open this report.');
      expect(notice.text).toContain(`${BASE}/shared/${token}?invite=${proof}`);
      // The invitations stay while the share is open to anyone, and count again once it is restricted.
      expect((await call('GET', share(id), { token: owner.token })).body.invited_emails).toEqual(['guest@example.eu']);
      await call('POST', share(id), { token: owner.token, json: { access_type: 'restricted' } });
      await t.settled();
      toGuest = (await outbox(t.dataDir)).filter((m) => to(m) === 'guest@example.eu');
      expect(toGuest).toHaveLength(before + 2);
      expect((await open({ token, inviteProof: proof })).viewer).toBe('invitation');
      expect(await refused({ token })).toBe('ACCESS_DENIED');
    });

    it('counts one view per visitor per UTC day, never the owner’s, and answers per day', async () => {
      const deps = t.service.deps;
      const realNow = deps.now;
      const third = (await upload(t.url, { authorization: `Bearer ${owner.token}` })).id;
      await t.settled();
      const linkToThird = tokenOf((await call('POST', share(third), { token: owner.token, json: { access_type: 'anyone_with_link' } })).body.share_url);
      try {
        deps.now = () => new Date('2026-01-10T09:00:00Z');
        await open({ token: linkToThird, visitorKey: 'alice' });
        await open({ token: linkToThird, visitorKey: 'alice' });
        await open({ token: linkToThird, visitorKey: 'bob' });
        await open({ token: linkToThird, visitorKey: 'owner-browser', viewer: ownerPrincipal });
        deps.now = () => new Date('2026-01-10T23:59:59Z');
        await open({ token: linkToThird, visitorKey: 'alice' });
        deps.now = () => new Date('2026-01-11T00:00:01Z');
        await open({ token: linkToThird, visitorKey: 'alice', viewer: otherPrincipal });
        deps.now = () => new Date('2026-01-12T12:00:00Z');
        await open({ token: linkToThird, visitorKey: 'carol' });
      } finally {
        deps.now = realNow;
      }
      await t.settled();
      const res = await call('GET', analytics(third, '?start_date=2026-01-09&end_date=2026-01-12'), { token: owner.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        total_views: 4,
        daily_views: [
          { date: '2026-01-09', count: 0 },
          { date: '2026-01-10', count: 2 },
          { date: '2026-01-11', count: 1 },
          { date: '2026-01-12', count: 1 },
        ],
      });
      // Date-times name their UTC day; one day; defaults end today.
      const one = await call('GET', analytics(third, '?start_date=2026-01-10T10:00:00%2B02:00&end_date=2026-01-10'), { token: owner.token });
      expect(one.body).toEqual({ total_views: 2, daily_views: [{ date: '2026-01-10', count: 2 }] });
      const fromStart = await call('GET', analytics(third, '?start_date=2026-01-11'), { token: owner.token });
      expect(fromStart.body.daily_views[0]).toEqual({ date: '2026-01-11', count: 1 });
      expect(fromStart.body.daily_views.at(-1).date).toBe(new Date().toISOString().slice(0, 10));
      expect(fromStart.body.total_views).toBe(2);

      for (const bad of ['?start_date=yesterday', '?end_date=2026-02-30', '?start_date=2026-1-5', '?end_date=2026-01-10T25:00:00Z']) {
        const r = await call('GET', analytics(third, bad), { token: owner.token });
        expect([bad, r.status, r.body.detail.error_code]).toEqual([bad, 400, 'INVALID_FORMAT']);
      }
      const inverted = await call('GET', analytics(third, '?start_date=2026-01-12&end_date=2026-01-10'), { token: owner.token });
      expect([inverted.status, inverted.body.detail.error_code]).toEqual([400, 'VALIDATION_ERROR']);
      const tooLong = await call('GET', analytics(third, '?start_date=2024-01-01&end_date=2026-01-10'), { token: owner.token });
      expect([tooLong.status, tooLong.body.detail.error_code]).toEqual([400, 'VALIDATION_ERROR']);
      expect((await call('GET', analytics(third), { token: other.token })).status).toBe(404);

      // The views are events (visitor pseudonyms redacted in the audit history), and the read model is rebuilt from them.
      const audit = await call('GET', `/v1/audit/streams/shareviews-${third}`, { token: owner.token });
      expect(audit.status).toBe(200);
      expect(audit.body.events.map((e: { type: string }) => e.type)).toEqual(Array(4).fill('ShareViewed'));
      expect(audit.body.events.every((e: { data: { visitor: string } }) => e.data.visitor === '[redacted]')).toBe(true);
      expect(audit.body.events[0].metadata.actor).toEqual({ type: 'anonymous', id: 'anonymous' });
      await t.service.projections.rebuild();
      const rebuilt = await call('GET', analytics(third, '?start_date=2026-01-09&end_date=2026-01-12'), { token: owner.token });
      expect(rebuilt.body).toEqual(res.body);
    });

    it('answers HEAD like GET without a body, and a HEAD is not a view (no count, no visitor cookie)', async () => {
      const fourth = (await upload(t.url, { authorization: `Bearer ${owner.token}` })).id;
      await t.settled();
      const link = tokenOf((await call('POST', share(fourth), { token: owner.token, json: { access_type: 'anyone_with_link' } })).body.share_url);
      const totalViews = async () => {
        await t.settled();
        const res = await call('GET', analytics(fourth), { token: owner.token });
        expect(res.status).toBe(200);
        return res.body.total_views as number;
      };
      const events = await t.eventCount();
      // A link previewer and a monitor: each a fresh visitor without a cookie.
      for (const path of [`/shared/${link}`, `/shared/${link}/files/image`]) {
        const head = await fetch(`${t.url}${path}`, { method: 'HEAD' });
        expect([path, head.status]).toEqual([path, 200]);
        expect(head.headers.get('set-cookie')).toBeNull();
        expect(await head.text()).toBe('');
      }
      const head = await fetch(`${t.url}/shared/${link}`, { method: 'HEAD' });
      expect(head.headers.get('content-type')).toMatch(/^text\/html/);
      expect(head.headers.get('content-security-policy')).toEqual(expect.any(String));
      const unknown = await fetch(`${t.url}/shared/${'x'.repeat(32)}`, { method: 'HEAD' });
      expect(unknown.status).toBe(404);
      expect(await t.eventCount()).toBe(events);
      expect(await totalViews()).toBe(0);

      const get = await fetch(`${t.url}/shared/${link}`);
      expect(get.status).toBe(200);
      expect(get.headers.get('set-cookie')).toMatch(/^pv_visitor=/);
      expect(await get.text()).toContain('<html');
      expect(await totalViews()).toBe(1);
    });

    it('records every change in the audit history with no token material in clear', async () => {
      const res = await call('GET', `/v1/audit/streams/share-${id}`, { token: owner.token });
      expect(res.status).toBe(200);
      expect(res.body.events.map((e: { type: string }) => e.type)).toEqual([
        'ShareEnabled',
        'ShareAccessChanged',
        'ShareInvited',
        'ShareInvited',
        'ShareInviteRevoked',
        'ShareInviteRevoked',
        'ShareInvited',
        'ShareAccessChanged',
        'ShareAccessChanged',
      ]);
      expect(res.body.events[0].data).toMatchObject({ access_type: 'anyone_with_link', nonce: '[redacted]', token_sha256: '[redacted]' });
      expect(res.body.events[2].data).toMatchObject({ email: invitee.email.toLowerCase(), nonce: '[redacted]', token_sha256: '[redacted]' });
      expect(res.body.events[0].metadata.actor).toEqual({ type: 'user', id: owner.user.id });
      expect((await call('GET', `/v1/audit/streams/share-${id}`, { token: other.token })).status).toBe(404);

      // No token is stored by sharing, in its events or read models, and no audit stream shows one.
      // (Nor does the mail feature: the bodies wait in the blob store until delivery ends, D-030.)
      const proof = await proofOf(id, 'guest@example.eu');
      const { knex } = t.service.deps;
      for (const secret of [token, proof]) {
        expect(await knex('events').where('stream', 'like', 'share%').whereRaw('data::text like ?', [`%${secret}%`])).toHaveLength(0);
        for (const table of ['shares', 'share_invites']) expect(JSON.stringify(await knex(table).select('*'))).not.toContain(secret);
      }
      const streams = await call('GET', '/v1/audit/streams?size=100', { token: owner.token });
      for (const { stream } of streams.body.items as { stream: string }[]) {
        const history = JSON.stringify((await call('GET', `/v1/audit/streams/${stream}?limit=1000`, { token: owner.token })).body);
        for (const secret of [token, proof]) expect(history, `${stream} shows a link token`).not.toContain(secret);
      }
    });

    it('DELETE removes the share and every invitation at once; sharing again gives a new URL', async () => {
      const proof = await proofOf(id, 'guest@example.eu');
      const res = await call('DELETE', share(id), { token: owner.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ detail: expect.any(String) });
      // Read-your-writes: the very next use of the link is refused.
      expect(await refused({ token })).toBe('NOT_SHARED');
      expect(await refused({ token, inviteProof: proof })).toBe('NOT_SHARED');
      expect(await refused({ token, viewer: ownerPrincipal })).toBe('NOT_SHARED');
      expect((await call('GET', share(id), { token: owner.token })).body.detail.error_code).toBe('NOT_SHARED');
      const revokeGone = await call('DELETE', invites(id), { token: owner.token, json: { email: 'guest@example.eu' } });
      expect(revokeGone.body.detail.error_code).toBe('INVITE_NOT_FOUND');
      const audit = await call('GET', `/v1/audit/streams/share-${id}`, { token: owner.token });
      expect(audit.body.events.at(-1)).toMatchObject({ type: 'ShareDisabled', data: { revoked_emails: ['guest@example.eu'] } });

      const again = await call('POST', share(id), { token: owner.token, json: { access_type: 'restricted' } });
      expect(again.status).toBe(200);
      expect(again.body.invited_emails).toEqual([]);
      expect(tokenOf(again.body.share_url)).not.toBe(token);
      expect(await refused({ token })).toBe('NOT_SHARED');
      expect(await refused({ token: tokenOf(again.body.share_url), inviteProof: proof })).toBe('ACCESS_DENIED');
    });

    it('a deleted verification’s share stops working', async () => {
      const link = tokenOf((await call('GET', share(second), { token: owner.token })).body.share_url);
      expect((await open({ token: link })).viewer).toBe('link');
      expect((await call('DELETE', `/v1/verifications/${second}`, { token: owner.token })).status).toBe(200);
      expect(await refused({ token: link })).toBe('NOT_SHARED');
      expect((await call('GET', share(second), { token: owner.token })).body.detail.error_code).toBe('VERIFICATION_NOT_FOUND');
      expect((await call('POST', share(second), { token: owner.token, json: { access_type: 'anyone_with_link' } })).status).toBe(404);
      expect(await t.service.deps.knex('shares').where({ verification_id: second })).toHaveLength(0);
    });
  });
}

describe('share links in the request log', () => {
  it('never logs a link token or an invitation proof', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-test-'));
    const service = await startService(loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, PASSWORD_HASH_COST: '10' }), { logger, inMemoryDatabase: true });
    try {
      const token = 'T0kEn'.repeat(6) + 'xy';
      const proof = 'Pr00f'.repeat(6) + 'zz';
      const res = await fetch(`${service.url}/shared/${token}?invite=${proof}`);
      await res.text();
      await fetch(`${service.url}/v1/public/health`, { headers: { referer: `https://photos.example.eu/shared/${token}?invite=${proof}` } }).then((r) => r.text());
      const logged = lines.join('');
      expect(logged).toContain('/v1/public/health');
      expect(logged).toContain('/shared/[redacted]');
      expect(logged).not.toContain(token);
      expect(logged).not.toContain(proof);
    } finally {
      await service.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
