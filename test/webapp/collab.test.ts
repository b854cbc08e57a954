import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../../src/core/text/html.js';
import { databaseTargets } from '../support/databases.js';
import { addMember } from '../support/members.js';
import { registerAccount, uploadImage } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';
import { appRequest, csrfIn, signIn } from '../support/webapp.js';

/**
 * The verification page's tags and comments (issue 27, must-work 2), over HTTP as a browser
 * without JavaScript: each form's effect seen through the REST API (the same use cases), refused
 * input shown again with nothing stored, CSRF, the account boundary, a member against an admin.
 */
for (const target of databaseTargets) {
  describe(`web app tags and comments on ${target.name}`, () => {
    const { t, call } = serviceSuite(target);

    const tagsOf = async (token: string, id: string) => ((await call('GET', `/v1/verifications/${id}`, { token })).body.tags as { id: string; name: string }[]).map((tag) => tag.name);
    const accountTags = async (token: string) => ((await call('GET', '/v1/tags/', { token })).body.items as { name: string }[]).map((tag) => tag.name);
    const commentsOf = async (token: string, id: string) => (await call('GET', `/v1/verifications/${id}/comments`, { token })).body.items as { id: string; body: string; author_name: string; edited_at: string | null }[];
    /** The text of the page's role="alert" paragraph. */
    const alertOf = (page: string) => /<p class="alert" role="alert"[^>]*>([^<]*)<\/p>/.exec(page)?.[1];

    it('adds one of the account’s tags, creates and adds a new one, removes one: the API sees each', async () => {
      const a = await registerAccount(call);
      const id = await uploadImage(t.url, a.token, 'images/rs_sample1.webp', 'harbour.webp');
      expect((await call('POST', '/v1/tags/', { token: a.token, json: { name: 'Contest' } })).status).toBe(201);
      const { cookie, csrf } = await signIn(t.url, a.email, a.password);
      const page = () => appRequest(t.url, 'GET', `/app/verifications/${id}`, { cookie });
      const post = (path: string, form: Record<string, string>) => appRequest(t.url, 'POST', `/app/verifications/${id}${path}`, { cookie, form: { csrf_token: csrf, ...form } });

      const before = await page();
      expect(before.status).toBe(200);
      expect(before.text).toContain('id="tags"');
      expect(before.text).toContain('No tags yet.');
      // The account's tags are offered.
      expect(before.text).toContain('<option value="Contest">Contest</option>');

      const added = await post('/tags', { name: 'Contest' });
      expect([added.status, added.location]).toEqual([303, `/app/verifications/${id}#tags`]);
      expect(await tagsOf(a.token, id)).toEqual(['Contest']);

      const created = await post('/tags/new', { name: '  Quai d’Orsay 🌊 ' });
      expect(created.status).toBe(303);
      // The use case's normalisation (trimmed), as the API stores it.
      expect(await tagsOf(a.token, id)).toEqual(['Contest', 'Quai d’Orsay 🌊']);
      expect(await accountTags(a.token)).toEqual(['Contest', 'Quai d’Orsay 🌊']);

      const shown = await page();
      expect(shown.text).toContain('aria-label="Remove the tag Quai d’Orsay 🌊"');
      // A tag it carries is no longer offered to add; with none left, the add form is gone.
      expect(shown.text).not.toContain('<option value="Contest">');
      const contestId = ((await call('GET', `/v1/verifications/${id}`, { token: a.token })).body.tags as { id: string; name: string }[]).find((tag) => tag.name === 'Contest')!.id;
      const removed = await post('/tags/remove', { tag_id: contestId });
      expect([removed.status, removed.location]).toEqual([303, `/app/verifications/${id}#tags`]);
      expect(await tagsOf(a.token, id)).toEqual(['Quai d’Orsay 🌊']);
      // Removed from the verification, kept in the account's vocabulary (the API's detach).
      expect(await accountTags(a.token)).toEqual(['Contest', 'Quai d’Orsay 🌊']);
      expect((await page()).text).toContain('<option value="Contest">Contest</option>');
    });

    it('refuses a taken, an invalid and a too-long tag name with the page again and stores nothing', async () => {
      const a = await registerAccount(call);
      const id = await uploadImage(t.url, a.token, 'images/rs_sample1.webp', 'pier.webp');
      expect((await call('POST', '/v1/tags/', { token: a.token, json: { name: 'Sports' } })).status).toBe(201);
      const { cookie, csrf } = await signIn(t.url, a.email, a.password);
      const post = (path: string, form: Record<string, string>) => appRequest(t.url, 'POST', `/app/verifications/${id}${path}`, { cookie, form: { csrf_token: csrf, ...form } });

      const taken = await post('/tags/new', { name: 'sports' });
      expect(taken.status).toBe(409);
      expect(alertOf(taken.text)).toMatch(/sports/i);
      // The whole page again, the typed name kept in its field.
      expect(taken.text).toContain('<h1>pier.webp</h1>');
      expect(taken.text).toMatch(/<input id="tag-new" name="name"[^>]*value="sports"/);

      const comma = await post('/tags/new', { name: 'a,b' });
      expect(comma.status).toBe(422);
      expect(alertOf(comma.text)).toContain('cannot contain a comma');
      const long = await post('/tags/new', { name: 'x'.repeat(41) });
      expect(long.status).toBe(422);
      expect(alertOf(long.text)).toContain('1-40 characters');
      const empty = await post('/tags', { name: '   ' });
      expect(empty.status).toBe(422);
      expect(alertOf(empty.text)).toContain('1-40 characters');
      const bidi = await post('/tags/new', { name: 'evil\u202Eeman' });
      expect(bidi.status).toBe(422);

      expect(await tagsOf(a.token, id)).toEqual([]);
      expect(await accountTags(a.token)).toEqual(['Sports']);
    });

    it('a new tag the verification refuses (it carries 20) is not left in the account’s tags', async () => {
      const a = await registerAccount(call);
      const id = await uploadImage(t.url, a.token, 'images/rs_sample1.webp', 'full.webp');
      const twenty = Array.from({ length: 20 }, (_, i) => `t${String(i).padStart(2, '0')}`);
      expect((await call('PUT', `/v1/verifications/${id}/tags`, { token: a.token, json: { tags: twenty } })).status).toBe(200);
      const { cookie, csrf } = await signIn(t.url, a.email, a.password);
      const refused = await appRequest(t.url, 'POST', `/app/verifications/${id}/tags/new`, { cookie, form: { csrf_token: csrf, name: 'one more' } });
      expect(refused.status).toBe(422);
      expect(alertOf(refused.text)).toContain('at most 20 tags');
      expect(await accountTags(a.token)).toEqual(twenty);
      expect(await tagsOf(a.token, id)).toEqual(twenty);
    });

    it('adds, edits and deletes comments with author and time; refuses an empty or too-long one', async () => {
      const a = await registerAccount(call);
      const id = await uploadImage(t.url, a.token, 'images/rs_sample1.webp', 'market.webp');
      const { cookie, csrf } = await signIn(t.url, a.email, a.password);
      const page = (query = '') => appRequest(t.url, 'GET', `/app/verifications/${id}${query}`, { cookie });
      const post = (path: string, form: Record<string, string>) => appRequest(t.url, 'POST', `/app/verifications/${id}${path}`, { cookie, form: { csrf_token: csrf, ...form } });

      expect((await page()).text).toContain('No comments yet.');
      const added = await post('/comments', { body: 'Looks right to me.\nThe light matches <b>noon</b>.' });
      expect(added.status).toBe(303);
      const [comment] = await commentsOf(a.token, id);
      expect(comment!.body).toBe('Looks right to me.\nThe light matches <b>noon</b>.');
      expect(added.location).toBe(`/app/verifications/${id}#comment-${comment!.id}`);

      const shown = await page();
      expect(shown.text).toContain(`<li id="comment-${comment!.id}">`);
      expect(shown.text).toContain('Looks right to me.\nThe light matches &lt;b&gt;noon&lt;/b&gt;.');
      expect(shown.text).toContain(`<strong>${comment!.author_name}</strong>`);
      expect(shown.text).toMatch(/<time datetime="[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/time>/);
      expect(shown.text).not.toContain('edited');
      expect(shown.text).toContain(`href="/app/verifications/${id}?edit=${comment!.id}#comment-${comment!.id}"`);

      // ?edit= opens the form in place, with the text.
      const editing = await page(`?edit=${comment!.id}`);
      expect(editing.text).toMatch(new RegExp(`<textarea id="comment-edit-${comment!.id}"[^>]*>Looks right to me.`));
      const edited = await post(`/comments/${comment!.id}/edit`, { body: 'Looks right: the light matches noon.' });
      expect([edited.status, edited.location]).toEqual([303, `/app/verifications/${id}#comment-${comment!.id}`]);
      const [after] = await commentsOf(a.token, id);
      expect(after!.body).toBe('Looks right: the light matches noon.');
      expect(after!.edited_at).not.toBeNull();
      expect((await page()).text).toContain(`edited <time datetime="${after!.edited_at}">`);

      // Refused: the page again with the message, the text kept, nothing stored.
      const empty = await post('/comments', { body: '  \n ' });
      expect(empty.status).toBe(422);
      expect(alertOf(empty.text)).toContain('The comment is empty.');
      const tooLong = await post('/comments', { body: 'y'.repeat(5001) });
      expect(tooLong.status).toBe(422);
      expect(alertOf(tooLong.text)).toContain('at most 5000 characters');
      expect(tooLong.text).toContain(`>${'y'.repeat(5001)}</textarea>`);
      const emptyEdit = await post(`/comments/${comment!.id}/edit`, { body: '' });
      expect(emptyEdit.status).toBe(422);
      // The edit form stays open for the refused edit.
      expect(emptyEdit.text).toMatch(new RegExp(`<textarea id="comment-edit-${comment!.id}"[^>]*aria-invalid="true"`));
      expect((await commentsOf(a.token, id)).map((c) => c.body)).toEqual(['Looks right: the light matches noon.']);

      // A browser sends a textarea's line breaks as CR LF: stored as typed, one line break each.
      expect((await post('/comments', { body: 'first line\r\nsecond line' })).status).toBe(303);
      expect((await commentsOf(a.token, id)).map((c) => c.body)).toEqual(['Looks right: the light matches noon.', 'first line\nsecond line']);

      // The longest comment the API takes, in a script whose characters are 9 bytes URL-encoded (45 KB): the form limit is not the refusal.
      const longest = '写'.repeat(5000);
      expect((await post('/comments', { body: longest })).status).toBe(303);
      expect((await commentsOf(a.token, id)).map((c) => c.body)).toEqual(['Looks right: the light matches noon.', 'first line\nsecond line', longest]);

      const deleted = await post(`/comments/${comment!.id}/delete`, {});
      expect([deleted.status, deleted.location]).toEqual([303, `/app/verifications/${id}#comments`]);
      expect((await commentsOf(a.token, id)).map((c) => c.body)).toEqual(['first line\nsecond line', longest]);
    });

    it('a member edits and deletes only their own comments, as the API; an admin deletes anyone’s', async () => {
      const a = await registerAccount(call);
      const id = await uploadImage(t.url, a.token, 'images/rs_sample1.webp', 'jury.webp');
      const member = await addMember(call, a, 'member', 'Mia Member');
      const adminComment = (await call('POST', `/v1/verifications/${id}/comments`, { token: a.token, json: { body: 'From the admin' } })).body.id as string;
      const memberSession = await signIn(t.url, member.email, member.password);
      const adminSession = await signIn(t.url, a.email, a.password);
      const post = (session: { cookie: string; csrf: string }, path: string, form: Record<string, string> = {}) =>
        appRequest(t.url, 'POST', `/app/verifications/${id}${path}`, { cookie: session.cookie, form: { csrf_token: session.csrf, ...form } });

      expect((await post(memberSession, '/comments', { body: 'From the member' })).status).toBe(303);
      const memberComment = (await commentsOf(a.token, id)).find((c) => c.body === 'From the member')!;
      expect(memberComment.author_name).toBe('Mia Member');

      // The member's page offers edit and delete on their own comment only.
      const seen = (await appRequest(t.url, 'GET', `/app/verifications/${id}`, { cookie: memberSession.cookie })).text;
      expect(seen).toContain(`/comments/${memberComment.id}/delete`);
      expect(seen).not.toContain(`/comments/${adminComment}/delete`);
      expect(seen).not.toContain(`?edit=${adminComment}`);

      // Forged, the member's delete and edit of the admin's comment are the API's 403, and change nothing.
      const refusedDelete = await post(memberSession, `/comments/${adminComment}/delete`);
      expect(refusedDelete.status).toBe(403);
      const apiDelete = await call('DELETE', `/v1/verifications/${id}/comments/${adminComment}`, { token: member.token });
      expect(apiDelete.status).toBe(403);
      expect(refusedDelete.text).toContain(apiDelete.body.detail.message);
      // The refused edit is the page again (a user error, issue 37), the API's words under the comments' heading.
      const refusedEdit = await post(memberSession, `/comments/${adminComment}/edit`, { body: 'rewritten' });
      expect(refusedEdit.status).toBe(403);
      const apiEdit = await call('PATCH', `/v1/verifications/${id}/comments/${adminComment}`, { token: member.token, json: { body: 'rewritten' } });
      expect(apiEdit.status).toBe(403);
      expect(refusedEdit.text).toContain('<section class="card" id="comments"');
      expect(alertOf(refusedEdit.text)).toBe(escapeHtml(apiEdit.body.detail.message));
      expect((await commentsOf(a.token, id)).map((c) => c.body)).toEqual(['From the admin', 'From the member']);

      // The admin may delete the member's comment, but not edit it.
      const adminPage = (await appRequest(t.url, 'GET', `/app/verifications/${id}`, { cookie: adminSession.cookie })).text;
      expect(adminPage).toContain(`/comments/${memberComment.id}/delete`);
      expect(adminPage).not.toContain(`?edit=${memberComment.id}`);
      expect((await post(adminSession, `/comments/${memberComment.id}/edit`, { body: 'rewritten' })).status).toBe(403);
      expect((await post(adminSession, `/comments/${memberComment.id}/delete`)).status).toBe(303);
      expect((await commentsOf(a.token, id)).map((c) => c.body)).toEqual(['From the admin']);
      // A member tags too (the API lets any user of the account).
      expect((await post(memberSession, '/tags/new', { name: 'Jury' })).status).toBe(303);
      expect(await tagsOf(a.token, id)).toEqual(['Jury']);
    });

    it('refuses a form without the session’s token, and answers 404 for another account’s verification or comment', async () => {
      const a = await registerAccount(call);
      const b = await registerAccount(call);
      const mine = await uploadImage(t.url, a.token, 'images/rs_sample1.webp', 'mine.webp');
      const theirs = await uploadImage(t.url, b.token, 'images/rs_sample1.webp', 'secret-of-b.webp');
      const theirComment = (await call('POST', `/v1/verifications/${theirs}/comments`, { token: b.token, json: { body: 'b’s secret note' } })).body.id as string;
      const myComment = (await call('POST', `/v1/verifications/${mine}/comments`, { token: a.token, json: { body: 'mine' } })).body.id as string;
      const { cookie, csrf } = await signIn(t.url, a.email, a.password);
      const bSession = await signIn(t.url, b.email, b.password);

      // CSRF: no token, or another session's, is refused and stores nothing.
      const noToken = await appRequest(t.url, 'POST', `/app/verifications/${mine}/comments`, { cookie, form: { body: 'forged' } });
      expect(noToken.status).toBe(403);
      const otherToken = await appRequest(t.url, 'POST', `/app/verifications/${mine}/tags/new`, { cookie, form: { csrf_token: bSession.csrf, name: 'forged' } });
      expect(otherToken.status).toBe(403);
      const crossSite = await appRequest(t.url, 'POST', `/app/verifications/${mine}/comments/${myComment}/delete`, { cookie, form: { csrf_token: csrf }, headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } });
      expect(crossSite.status).toBe(403);
      expect((await commentsOf(a.token, mine)).map((c) => c.body)).toEqual(['mine']);
      expect(await accountTags(a.token)).toEqual([]);

      // Another account's verification: 404 for every form, nothing of it shown or changed.
      const post = (path: string, form: Record<string, string> = {}) => appRequest(t.url, 'POST', path, { cookie, form: { csrf_token: csrf, ...form } });
      for (const [path, form] of [
        [`/app/verifications/${theirs}/tags`, { name: 'x' }],
        [`/app/verifications/${theirs}/tags/new`, { name: 'fresh' }],
        [`/app/verifications/${theirs}/comments`, { body: 'x' }],
        [`/app/verifications/${theirs}/comments/${theirComment}/edit`, { body: 'x' }],
        [`/app/verifications/${theirs}/comments/${theirComment}/delete`, {}],
        // Their comment's id under my verification: no such comment here.
        [`/app/verifications/${mine}/comments/${theirComment}/edit`, { body: 'x' }],
        [`/app/verifications/${mine}/comments/${theirComment}/delete`, {}],
      ] as const) {
        const answer = await post(path, form);
        expect(answer.status, path).toBe(404);
        expect(answer.text).not.toContain('secret');
      }
      // A refused add on their verification must not have created the tag in my account either.
      expect(await accountTags(a.token)).toEqual([]);
      expect((await commentsOf(b.token, theirs)).map((c) => c.body)).toEqual(['b’s secret note']);
      expect((await call('GET', `/v1/verifications/${theirs}`, { token: b.token })).body.tags).toEqual([]);
      // And the page itself never shows their comments.
      const page = await appRequest(t.url, 'GET', `/app/verifications/${theirs}`, { cookie });
      expect(page.status).toBe(404);
      expect(csrfIn((await appRequest(t.url, 'GET', `/app/verifications/${mine}`, { cookie })).text)).toBe(csrf);
    });
  });
}
