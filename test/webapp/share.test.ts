import crypto from 'node:crypto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { appendFacts } from '../../src/core/es/decider.js';
import { shareEvents } from '../../src/features/sharing/events.js';
import { databaseTargets } from '../support/databases.js';
import { addMember } from '../support/members.js';
import { outbox, to } from '../support/outbox.js';
import { uploadImage, uploadPair } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';
import { appRequest, signIn, type AppSignIn } from '../support/webapp.js';
import { seedVerification } from '../http/psd-export-support.js';
import type { StubPsdDeps } from '../support/psd-stub.js';

/**
 * The verification page's sharing, files and delete sections (issue 27, must-work 2) over HTTP,
 * as a browser without JavaScript: each form's effect seen through the REST API (the same use
 * cases), the invitation's e-mail in the file outbox, the views chart's numbers equal to the
 * API's, refused input shown again (role="alert", 4xx) with nothing stored, CSRF, another
 * account's ids 404, a member as well as an admin. The PSD builder is a stub, as in the PSD
 * export suites (its own tests build real files): this suite is about the pages around it.
 */
vi.mock('../../src/features/psd-export/psd-file.js', async (importOriginal) => {
  const { CANVAS_30D, storeStubPsd } = await import('../support/psd-stub.js');
  return { ...(await importOriginal<object>()), buildPsdExport: (deps: StubPsdDeps, verificationId: string) => storeStubPsd(deps, verificationId, { canvas: CANVAS_30D }) };
});


/** The text of the page's role="alert" paragraphs. */
const alertsOf = (page: string) => [...page.matchAll(/<p class="alert" role="alert"[^>]*>([^<]*)<\/p>/g)].map((m) => m[1]);

/** A file behind a redirect: where it went, and its bytes. */
async function followed(url: string, location: string | null) {
  expect(location).toBeTruthy();
  const response = await fetch(new URL(location!, url), { redirect: 'follow' });
  return { status: response.status, type: response.headers.get('content-type') ?? '', bytes: Buffer.from(await response.arrayBuffer()) };
}

for (const target of databaseTargets) {
  describe(`web app sharing, files and delete on ${target.name}`, () => {
    const { t, call, newAccount } = serviceSuite(target, { MAX_UPLOAD_BYTES: String(16 * 1024 * 1024) });
    const owner = newAccount({ name: 'Harbour Picture Desk', plan: 'professional' });
    const basic = newAccount({ plan: 'basic' });
    const other = newAccount();
    let pair: string;
    let mine: AppSignIn;
    let theirs: AppSignIn;

    const share = (token: string, id: string) => call('GET', `/v1/verifications/${id}/share`, { token });
    /** Events in any stream of the verification (its own, its share's, its PSD export's, …). */
    const eventsAbout = async (id: string) => Number(((await t.service.deps.knex('events').where('stream', 'like', `%${id}`).count('* as n').first()) as { n: string | number }).n);
    const shareEventsOf = async (id: string) => (await t.service.deps.store.readStream(`share-${id}`)).map((e) => e.type);
    const page = (session: AppSignIn, id: string) => appRequest(t.url, 'GET', `/app/verifications/${id}`, { cookie: session.cookie });
    const post = (session: AppSignIn, id: string, route: string, form: Record<string, string> = {}) =>
      appRequest(t.url, 'POST', `/app/verifications/${id}${route}`, { cookie: session.cookie, form: { csrf_token: session.csrf, ...form } });

    beforeAll(async () => {
      pair = await uploadPair(t.url, owner.token);
      await t.settled();
      mine = await signIn(t.url, owner.email, owner.password);
      theirs = await signIn(t.url, other.email, other.password);
    }, 300_000);

    it('shares restricted, invites an address (its e-mail arrives), removes it, switches to a link, stops sharing: the API sees each', async () => {
      const id = await uploadImage(t.url, owner.token, 'images/rs_sample1.webp', 'harbour.webp');
      const before = await page(mine, id);
      expect(before.status).toBe(200);
      expect(before.text).toContain('id="sharing"');
      expect(before.text).toContain('Not shared: only the people of your account can see this verification.');

      const shared = await post(mine, id, '/share', { access_type: 'restricted' });
      expect([shared.status, shared.location]).toEqual([303, `/app/verifications/${id}?notice=share-saved#sharing`]);
      const api = (await share(owner.token, id)).body;
      expect(api).toMatchObject({ access_type: 'restricted', invited_emails: [] });
      const after = await appRequest(t.url, 'GET', shared.location!, { cookie: mine.cookie });
      expect(after.text).toContain('<p class="notice" role="status">Sharing saved.</p>');
      expect(after.text).toContain('Restricted: only the invited e-mail addresses can open the report.');
      // The URL the API gives, in a field one can select without JavaScript, and the copy button's script under the page's nonce.
      expect(after.text).toContain(`<input id="share-url" type="url" readonly value="${api.share_url}">`);
      const nonce = /script-src 'nonce-([^']+)'/.exec(after.headers['content-security-policy'] ?? '')?.[1];
      expect(nonce).toBeTruthy();
      expect(after.text).toContain(`<script nonce="${nonce}">`);

      const invited = await post(mine, id, '/share/invites', { email: '  Judge.Rossi@Contest.example ' });
      expect([invited.status, invited.location]).toEqual([303, `/app/verifications/${id}?notice=invited#sharing`]);
      // The API's normalisation (trimmed, lower case), as the API stores it.
      expect((await share(owner.token, id)).body.invited_emails).toEqual(['judge.rossi@contest.example']);
      await t.settled();
      const mail = (await outbox(t.dataDir)).find((m) => to(m) === 'judge.rossi@contest.example');
      expect(mail, 'the invitation e-mail').toBeDefined();
      expect(mail!.text).toContain('harbour.webp');
      expect(mail!.text).toContain(api.share_url);
      expect((await page(mine, id)).text).toContain('aria-label="Remove the invitation of judge.rossi@contest.example"');

      const removed = await post(mine, id, '/share/invites/remove', { email: 'judge.rossi@contest.example' });
      expect([removed.status, removed.location]).toEqual([303, `/app/verifications/${id}?notice=invite-removed#sharing`]);
      expect((await share(owner.token, id)).body.invited_emails).toEqual([]);

      expect((await post(mine, id, '/share', { access_type: 'anyone_with_link' })).status).toBe(303);
      const link = (await share(owner.token, id)).body;
      // The URL is kept when the access type changes (the use case's rule).
      expect(link).toMatchObject({ access_type: 'anyone_with_link', share_url: api.share_url });
      const linkPage = await page(mine, id);
      expect(linkPage.text).toContain('Anyone with the link can open the report.');
      expect(linkPage.text).toContain('To invite addresses, choose “Only invited e-mail addresses” above.');

      // Stopping asks to be confirmed (a stopped link cannot be brought back): without the box ticked, the page again, still shared.
      const unconfirmed = await post(mine, id, '/share/stop');
      expect(unconfirmed.status).toBe(422);
      expect(unconfirmed.text).toContain('Tick the box to confirm: a link that stops working cannot be brought back.');
      expect((await share(owner.token, id)).body.share_url).toBe(api.share_url);
      const stopped = await post(mine, id, '/share/stop', { confirm: 'stop' });
      expect([stopped.status, stopped.location]).toEqual([303, `/app/verifications/${id}?notice=share-stopped#sharing`]);
      expect((await share(owner.token, id)).body.detail.error_code).toBe('NOT_SHARED');
      expect((await fetch(api.share_url.replace(/^https?:\/\/[^/]+/, t.url))).status).toBe(404);
      expect((await page(mine, id)).text).toContain('Not shared: only the people of your account can see this verification.');
      expect(await shareEventsOf(id)).toEqual(['ShareEnabled', 'ShareInvited', 'ShareInviteRevoked', 'ShareAccessChanged', 'ShareDisabled']);
    });

    it('shows refused input again (role="alert", 4xx) with nothing stored: malformed and look-alike addresses, no restricted share, too many invitations', async () => {
      const id = await uploadImage(t.url, owner.token, 'images/rs_sample1.webp', 'refusals.webp');
      // No share yet: an invitation needs a restricted one (the use case's 400 SHARE_NOT_FOUND, in words).
      const unshared = await post(mine, id, '/share/invites', { email: 'judge@contest.example' });
      expect(unshared.status).toBe(400);
      expect(alertsOf(unshared.text)).toEqual(['Invitations need a restricted share, and this verification has none.']);
      expect(await shareEventsOf(id)).toEqual([]);
      const noChoice = await post(mine, id, '/share', { access_type: 'public' });
      expect(noChoice.status).toBe(422);
      expect(alertsOf(noChoice.text)).toEqual(['Choose who can open the report: anyone with the link, or only invited e-mail addresses.']);
      expect(await shareEventsOf(id)).toEqual([]);

      expect((await post(mine, id, '/share', { access_type: 'restricted' })).status).toBe(303);
      const refusedAddresses = [
        'not an address',
        '',
        'jürgen@example.eu', // not in the API's address rule (ASCII only)
        'judge@exаmple.eu', // a Cyrillic а posing as a Latin a
        'jud\u200bge@example.eu', // a zero-width space
        'judge@example.eu\u202e', // a right-to-left override
        `${'a'.repeat(250)}@example.eu`, // longer than 254
        '"<script>"@example.eu',
      ];
      for (const email of refusedAddresses) {
        const refused = await post(mine, id, '/share/invites', { email });
        expect(refused.status, JSON.stringify(email)).toBe(422);
        expect(alertsOf(refused.text)[0], JSON.stringify(email)).toMatch(/^This is not an e-mail address the service can send to/);
        // The page again, the section's field keeping what was typed (escaped), marked invalid.
        expect(refused.text).toContain('aria-invalid="true" aria-describedby="sharing-error"');
        expect(refused.text).not.toContain('<script>"@');
      }
      expect((await share(owner.token, id)).body.invited_emails).toEqual([]);
      expect(await shareEventsOf(id)).toEqual(['ShareEnabled']);

      // Removing an address that is not invited: the use case's 404 INVITE_NOT_FOUND, in the section.
      const notInvited = await post(mine, id, '/share/invites/remove', { email: 'nobody@example.eu' });
      expect(notInvited.status).toBe(404);
      expect(alertsOf(notInvited.text)).toEqual(['This address is not invited to the share.']);

      // A share with the most invitations a share may hold (recorded directly: 200 e-mails are not the point): the 201st is refused.
      const at = new Date().toISOString();
      const invitations = Array.from({ length: 200 }, (_, i) => ({ type: 'ShareInvited' as const, data: { email: `juror${i}@contest.example`, nonce: crypto.randomBytes(16).toString('base64url'), token_sha256: crypto.randomBytes(32).toString('hex'), invited_at: at } }));
      const context = { accountId: owner.account.id, actor: { type: 'system' as const, id: 'seed' }, correlationId: id, causationId: id, processingRegion: 'eu', now: new Date(at) };
      const { position } = await appendFacts(t.service.deps.store, `share-${id}`, shareEvents, invitations, context);
      expect(await t.service.deps.readModels.waitFor(position, 30_000)).toBe(true);
      const full = await post(mine, id, '/share/invites', { email: 'one.more@contest.example' });
      expect(full.status).toBe(400);
      expect(alertsOf(full.text)).toEqual(['A share can have at most 200 invited addresses. Revoke invitations that are no longer needed.']);
      expect(full.text).toContain('value="one.more@contest.example"');
      expect((await share(owner.token, id)).body.invited_emails).toHaveLength(200);
      expect((await shareEventsOf(id)).filter((type) => type === 'ShareInvited')).toHaveLength(200);
    });

    it('draws the views by day with the API’s numbers, as bars and as a table', async () => {
      const id = await uploadImage(t.url, owner.token, 'images/rs_sample1.webp', 'viewed.webp');
      expect((await post(mine, id, '/share', { access_type: 'anyone_with_link' })).status).toBe(303);
      // Before any view: a sentence, not an empty chart.
      const unseen = (await page(mine, id)).text;
      expect(unseen).toMatch(/<p>No views yet, from \d+ \w+ to \d+ \w+\.<\/p>/);
      expect(unseen).not.toContain('<rect ');
      const url = (await share(owner.token, id)).body.share_url.replace(/^https?:\/\/[^/]+/, t.url);
      // Three visitors (no cookie each time: each is a new one), one of them twice (counted once a day).
      const first = await fetch(url);
      expect(first.status).toBe(200);
      const visitor = first.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
      expect((await fetch(url, { headers: { cookie: visitor } })).status).toBe(200);
      expect((await fetch(url)).status).toBe(200);
      expect((await fetch(url)).status).toBe(200);

      const api = (await call('GET', `/v1/verifications/${id}/analytics/views`, { token: owner.token })).body as { total_views: number; daily_views: { date: string; count: number }[] };
      expect(api.total_views).toBe(3);
      const text = (await page(mine, id)).text;
      const bars = [...text.matchAll(/<rect [^>]*data-date="([^"]+)" data-count="(\d+)"/g)].map((m) => ({ date: m[1], count: Number(m[2]) }));
      const rows = [...text.matchAll(/<tr><td>(\d{4}-\d{2}-\d{2})<\/td><td>(\d+)<\/td><\/tr>/g)].map((m) => ({ date: m[1], count: Number(m[2]) }));
      expect(bars).toEqual(api.daily_views);
      expect(rows).toEqual(api.daily_views);
      expect(text).toContain('<figcaption id="views-summary">3 views from');
      expect(text).toContain('role="img" aria-labelledby="views-summary"');
    });

    it('serves the image and the badge rendition to the owner under /app, as the API’s routes do', async () => {
      const api = (await call('GET', `/v1/verifications/${pair}`, { token: owner.token })).body;
      expect(api, JSON.stringify(api.failure_reason)).toMatchObject({ status: 'completed', result: true, verification_mode: 'raw_pair' });
      const text = (await page(mine, pair)).text;
      expect(text).toContain(`href="/app/verifications/${pair}/download/badge" download`);
      expect(text).toContain(`href="/app/verifications/${pair}/download/image" download`);
      for (const [kind, apiRoute] of [['badge', 'renditions/signed/original'], ['image', 'image']] as const) {
        const viaApp = await appRequest(t.url, 'GET', `/app/verifications/${pair}/download/${kind}`, { cookie: mine.cookie });
        expect(viaApp.status, kind).toBe(302);
        const viaApi = await call('GET', `/v1/verifications/${pair}/${apiRoute}`, { token: owner.token });
        const [app, rest] = [await followed(t.url, viaApp.location), await followed(t.url, viaApi.headers.get('location'))];
        expect(app.status).toBe(200);
        expect(app.type).toBe(rest.type);
        expect(app.type).toMatch(/^image\//);
        expect(app.bytes.equals(rest.bytes), kind).toBe(true);
      }
      // An image-only verification has no badge: the page says so and the route is the use case's 404, in words.
      const imageOnly = await uploadImage(t.url, owner.token, 'images/rs_sample1.webp', 'no-badge.webp');
      await t.settled();
      expect((await page(mine, imageOnly)).text).toContain('No badge rendition: one is made only for a photo and camera RAW pair found authentic.');
      const noBadge = await appRequest(t.url, 'GET', `/app/verifications/${imageOnly}/download/badge`, { cookie: mine.cookie });
      expect(noBadge.status).toBe(404);
      expect(noBadge.text).toContain('a badge is made only for a RAW+JPEG pair graded verified');
      // Signed out: to sign in, no file.
      const signedOut = await appRequest(t.url, 'GET', `/app/verifications/${pair}/download/image`);
      expect([signedOut.status, signedOut.location]).toEqual([303, '/app/login']);
    });

    it('requests the PSD export (Professional), shows its status, downloads it counting one download; refuses a Basic plan in words', async () => {
      const id = await seedVerification(t, owner.account.id);
      expect((await page(mine, id)).text).toContain('Request the PSD export');
      const requested = await post(mine, id, '/psd-export');
      expect([requested.status, requested.location]).toEqual([303, `/app/verifications/${id}?notice=psd-requested#files`]);
      await t.settled();
      const status = (await call('GET', `/v1/verifications/${id}/psd-export`, { token: owner.token })).body;
      expect(status).toMatchObject({ status: 'completed', downloads_used: 0, downloads_limit: 5 });
      const ready = (await page(mine, id)).text;
      expect(ready).toContain('<strong>Ready.</strong>');
      expect(ready).toContain('0 of 5 used');
      expect(ready).toContain('Download the PSD (5 downloads left)');

      const download = await post(mine, id, '/psd-export/download');
      expect(download.status).toBe(303);
      const file = await followed(t.url, download.location);
      expect(file.bytes.toString()).toBe(`8BPS stub export of ${id}`);
      expect((await call('GET', `/v1/verifications/${id}/psd-export`, { token: owner.token })).body.downloads_used).toBe(1);
      expect((await page(mine, id)).text).toContain('1 of 5 used');
      // The download limit is the use case's: after the fifth, the page says so (403 DOWNLOAD_LIMIT_REACHED).
      for (let i = 2; i <= 5; i++) expect((await post(mine, id, '/psd-export/download')).status).toBe(303);
      const spent = await post(mine, id, '/psd-export/download');
      expect(spent.status).toBe(403);
      expect(alertsOf(spent.text)).toEqual(['All 5 downloads of this PSD export have been used. Keep the downloaded file; an export can be downloaded 5 times.']);
      expect((await call('GET', `/v1/verifications/${id}/psd-export`, { token: owner.token })).body.downloads_used).toBe(5);

      const basicSession = await signIn(t.url, basic.email, basic.password);
      const theirPair = await seedVerification(t, basic.account.id);
      // The section says the plan does not include it, with no button; a forged post gets the use case's words.
      const offered = (await page(basicSession, theirPair)).text;
      expect(offered).toContain('Your account’s plan does not include it.');
      expect(offered).not.toContain('Request the PSD export');
      const refused = await post(basicSession, theirPair, '/psd-export');
      expect(refused.status).toBe(403);
      expect(alertsOf(refused.text)[0]).toContain('Layered PSD exports are part of the Professional and Enterprise plans; this account is on the Basic plan.');
      expect((await call('GET', `/v1/verifications/${theirPair}/psd-export`, { token: basic.token })).status).toBe(404);
      // An image-only verification: the section says no export is possible, and the use case's 409 if posted anyway.
      const imageOnly = await seedVerification(t, owner.account.id, 'image_only');
      expect((await page(mine, imageOnly)).text).toContain('Only a photo verified together with its camera RAW can be exported as a layered PSD.');
      const notExportable = await post(mine, imageOnly, '/psd-export');
      expect(notExportable.status).toBe(409);
      expect(alertsOf(notExportable.text)[0]).toContain('this one is image-only');
      // A download of an export never requested: the section says so, at the API's 404 (a user error: the page again, issue 37).
      const neverRequested = await seedVerification(t, owner.account.id);
      const nothing = await post(mine, neverRequested, '/psd-export/download');
      expect(nothing.status).toBe(404);
      expect(nothing.text).toContain('Request the PSD export');
      expect(alertsOf(nothing.text)).toEqual(['No PSD export was requested for this verification.']);
    });

    it('deletes with the confirmation ticked only; a member may, as through the API; then to the list, which says so', async () => {
      const id = await uploadImage(t.url, owner.token, 'images/rs_sample1.webp', 'to-delete.webp');
      const unticked = await post(mine, id, '/delete');
      expect(unticked.status).toBe(422);
      expect(alertsOf(unticked.text)).toEqual(['Tick the box to confirm: the verification and its files are deleted for good.']);
      expect((await call('GET', `/v1/verifications/${id}`, { token: owner.token })).status).toBe(200);

      const member = await addMember(call, owner, 'member', 'Mara Member');
      const memberSession = await signIn(t.url, member.email, member.password);
      const deleted = await post(memberSession, id, '/delete', { confirm: 'delete' });
      expect([deleted.status, deleted.location]).toEqual([303, '/app/verifications?notice=deleted']);
      expect((await call('GET', `/v1/verifications/${id}`, { token: owner.token })).status).toBe(404);
      const list = await appRequest(t.url, 'GET', deleted.location!, { cookie: memberSession.cookie });
      expect(list.status).toBe(200);
      expect(list.text).toContain('<p class="notice" role="status">The verification was deleted, with its files.</p>');
      expect(list.text).not.toContain('to-delete.webp');
      // Gone: its page is the use case's 404.
      expect((await page(mine, id)).status).toBe(404);
    });

    it('refuses a form without the session’s token, and another session’s token (403), storing nothing', async () => {
      const id = await uploadImage(t.url, owner.token, 'images/rs_sample1.webp', 'csrf.webp');
      const forms: [string, Record<string, string>][] = [
        ['/share', { access_type: 'anyone_with_link' }],
        ['/share/stop', { confirm: 'stop' }],
        ['/share/invites', { email: 'judge@contest.example' }],
        ['/share/invites/remove', { email: 'judge@contest.example' }],
        ['/psd-export', {}],
        ['/psd-export/download', {}],
        ['/delete', { confirm: 'delete' }],
      ];
      await t.settled();
      const before = await eventsAbout(id);
      for (const [route, form] of forms) {
        const none = await appRequest(t.url, 'POST', `/app/verifications/${id}${route}`, { cookie: mine.cookie, form });
        expect(none.status, route).toBe(403);
        const foreign = await appRequest(t.url, 'POST', `/app/verifications/${id}${route}`, { cookie: mine.cookie, form: { ...form, csrf_token: theirs.csrf } });
        expect(foreign.status, route).toBe(403);
        expect(foreign.text).toContain('This form was not accepted');
      }
      expect(await eventsAbout(id)).toBe(before);
      expect((await call('GET', `/v1/verifications/${id}`, { token: owner.token })).status).toBe(200);
    });

    it('answers 404 for another account’s verification on every route, showing and storing nothing', async () => {
      const id = await uploadImage(t.url, owner.token, 'images/rs_sample1.webp', 'secret-of-the-desk.webp');
      expect((await post(mine, id, '/share', { access_type: 'restricted' })).status).toBe(303);
      expect((await post(mine, id, '/share/invites', { email: 'judge@contest.example' })).status).toBe(303);
      await t.settled();
      const [before, pairBefore] = [await eventsAbout(id), await eventsAbout(pair)];
      const forms: [string, Record<string, string>][] = [
        ['/share', { access_type: 'anyone_with_link' }],
        ['/share/stop', { confirm: 'stop' }],
        ['/share/invites', { email: 'intruder@example.eu' }],
        ['/share/invites', { email: 'not an address' }],
        ['/share/invites/remove', { email: 'judge@contest.example' }],
        ['/psd-export', {}],
        ['/psd-export/download', {}],
        ['/delete', { confirm: 'delete' }],
        ['/delete', {}],
      ];
      for (const [route, form] of forms) {
        const res = await post(theirs, id, route, form);
        expect(res.status, route).toBe(404);
        expect(res.text).not.toContain('secret-of-the-desk');
        expect(res.text).not.toContain('judge@contest.example');
      }
      for (const kind of ['image', 'badge']) {
        const res = await appRequest(t.url, 'GET', `/app/verifications/${pair}/download/${kind}`, { cookie: theirs.cookie });
        expect([res.status, res.location], kind).toEqual([404, null]);
      }
      expect(await eventsAbout(id)).toBe(before);
      expect(await eventsAbout(pair)).toBe(pairBefore);
      expect((await share(owner.token, id)).body).toMatchObject({ access_type: 'restricted', invited_emails: ['judge@contest.example'] });
    });
  });
}
