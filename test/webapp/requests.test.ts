import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { registerAccount } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';
import { appRequest, signIn } from '../support/webapp.js';

/**
 * Issue 39 item 3, the requests workspace: /app/requests lists the account's requests with their
 * state and counts and creates one with every field of POST /v1/requests (its schema, its
 * refusals, nothing stored when refused); a request's page has its link, its submissions with
 * their verdicts, and closing it after a confirmation; a submission names its request in the list
 * and on its page; another account's request is 404 and stays as it was.
 */
const FIXTURE = path.resolve(import.meta.dirname, '../../../shared/fixtures/images/rs_sample1.webp');

/** The ids of the requests a page links to, in order. */
const requestLinks = (page: string) => [...page.matchAll(/href="\/app\/requests\/([0-9a-f-]{36})"/g)].map((m) => m[1]);

for (const target of databaseTargets) {
  describe(`web app requests on ${target.name}`, () => {
    const { t, call } = serviceSuite(target);

    /** What the provider does: the upload form of the request's page, posted as a browser posts it. */
    async function submitThrough(url: string): Promise<string> {
      const form = new FormData();
      form.append('image', new Blob([new Uint8Array(fs.readFileSync(FIXTURE))]), 'finalist.webp');
      const response = await fetch(url.replace(t.service.deps.config.PUBLIC_BASE_URL, t.url), { method: 'POST', body: form, redirect: 'manual' });
      expect(response.status, await response.text()).toBe(303);
      return /submissions\/([0-9a-f-]{36})/.exec(response.headers.get('location')!)![1]!;
    }

    it('creates a request with every field of the API, refuses what the API refuses with the form again, and lists it with its state', async () => {
      const a = await registerAccount(call);
      const { cookie, csrf } = await signIn(t.url, a.email, a.password);
      const empty = await appRequest(t.url, 'GET', '/app/requests', { cookie });
      expect(empty.status).toBe(200);
      expect(empty.text).toContain('None yet: create one below.');
      expect(empty.text).toContain('aria-current="page">Requests</a>');

      const deadline = new Date(Date.now() + 3 * 24 * 3600 * 1000).toISOString().slice(0, 16);
      const form = { csrf_token: csrf, subject: 'The harbour fire, original', instructions: 'Your RAW file too, please.\nThank you.', expires_at: deadline, max_submissions: '3', mode: 'capture', share_with_provider: 'yes' };

      // The API's rules, in the page's words; nothing is stored.
      const before = await t.eventCount();
      const cases: [Record<string, string>, RegExp][] = [
        [{ subject: '' }, /What you ask for:/],
        [{ subject: 'Harbour\u0000fire' }, /What you ask for:/],
        [{ expires_at: '2001-01-01T00:00' }, /Deadline:|in the future/],
        [{ expires_at: 'tomorrow' }, /Deadline:/],
        [{ max_submissions: '0' }, /How many submissions it accepts:/],
        [{ max_submissions: 'many' }, /How many submissions it accepts:/],
        [{ mode: 'drone' }, /Kind of photo:/],
      ];
      for (const [change, words] of cases) {
        const refused = await appRequest(t.url, 'POST', '/app/requests', { cookie, form: { ...form, ...change } });
        expect(refused.status, JSON.stringify(change)).toBe(422);
        expect(refused.text, JSON.stringify(change)).toMatch(words);
        // What was typed is on the form again.
        expect(refused.text).toContain('Your RAW file too, please.');
      }
      expect(await t.eventCount()).toBe(before);

      const made = await appRequest(t.url, 'POST', '/app/requests', { cookie, form });
      expect(made.status, made.text.slice(0, 400)).toBe(303);
      const id = /\/app\/requests\/([0-9a-f-]{36})\?done=created$/.exec(made.location!)![1]!;
      // The request is the API's, with every field as the form gave it (the deadline read as UTC).
      const api = (await call('GET', `/v1/requests/${id}`, { token: a.token })).body;
      expect(api).toMatchObject({
        subject: form.subject,
        instructions: form.instructions,
        expires_at: `${deadline}:00.000Z`,
        max_submissions: 3,
        mode: 'capture',
        share_with_provider: true,
        status: 'open',
        submission_count: 0,
      });
      const shown = await appRequest(t.url, 'GET', made.location!, { cookie });
      expect(shown.status).toBe(200);
      expect(shown.text).toContain('The request was created.');
      expect(shown.text).toContain(`value="${api.url}"`);
      expect(shown.text).toContain('data-copy-field="request-url"');
      expect(shown.text).toContain('No submissions yet');
      // A page with a script: its CSP lets the page's nonce run it.
      expect(shown.headers['content-security-policy']).toMatch(/script-src 'nonce-/);

      // The defaults of the API when the optional fields are left as the form sends them unticked.
      const plain = await appRequest(t.url, 'POST', '/app/requests', { cookie, form: { csrf_token: csrf, subject: 'Any original', instructions: '', expires_at: deadline, max_submissions: '1' } });
      const plainId = /\/app\/requests\/([0-9a-f-]{36})/.exec(plain.location!)![1]!;
      expect((await call('GET', `/v1/requests/${plainId}`, { token: a.token })).body).toMatchObject({ mode: 'existing_original', share_with_provider: false, max_submissions: 1 });

      const list = await appRequest(t.url, 'GET', '/app/requests', { cookie });
      const apiList = await call('GET', '/v1/requests', { token: a.token });
      expect(requestLinks(list.text)).toEqual(apiList.body.items.map((r: { id: string }) => r.id));
      expect(list.text).toContain('0 of 3 submissions');
      // The state filter is the API's.
      expect(requestLinks((await appRequest(t.url, 'GET', '/app/requests?status=closed', { cookie })).text)).toEqual([]);
      expect((await appRequest(t.url, 'GET', '/app/requests?status=lost', { cookie })).status).toBe(422);
    });

    it('shows each submission with its verdict on the request’s page, names the request in the list and on the report, and closes it after a confirmation', async () => {
      const a = await registerAccount(call);
      const { cookie, csrf } = await signIn(t.url, a.email, a.password);
      const request = (await call('POST', '/v1/requests', { token: a.token, json: { subject: 'Finalist photo', expires_at: new Date(Date.now() + 86_400_000).toISOString(), max_submissions: 2 } })).body;
      const submitted = await submitThrough(request.url);

      const page = await appRequest(t.url, 'GET', `/app/requests/${request.id}`, { cookie });
      expect(page.text).toContain('1 submission');
      expect(page.text).toContain(`href="/app/verifications/${submitted}"`);
      // Its pill is the list's (level or state), never a second computation.
      expect(page.text).toMatch(/class="pill[^"]*"/);
      expect(page.text).toContain(`href="/app/verifications?request_id=${request.id}"`);

      const list = await appRequest(t.url, 'GET', '/app/verifications', { cookie });
      expect(list.text).toContain(`Submitted to the request <a href="/app/requests/${request.id}">Finalist photo</a>`);
      const filtered = await appRequest(t.url, 'GET', `/app/verifications?request_id=${request.id}`, { cookie });
      expect(filtered.text).toContain(`Only the submissions to the request <a href="/app/requests/${request.id}" dir="auto">Finalist photo</a>`);
      const report = await appRequest(t.url, 'GET', `/app/verifications/${submitted}`, { cookie });
      expect(report.text).toContain('Submitted to a request');
      expect(report.text).toContain(`href="/app/requests/${request.id}" dir="auto">Finalist photo</a>`);

      // Closing asks first; the form closes it for good, as PATCH {"status": "closed"} does.
      const confirm = await appRequest(t.url, 'GET', `/app/requests/${request.id}/close`, { cookie });
      expect(confirm.status).toBe(200);
      expect(confirm.text).toContain('Close this request?');
      const closed = await appRequest(t.url, 'POST', `/app/requests/${request.id}/close`, { cookie, form: { csrf_token: csrf } });
      expect(closed.status).toBe(303);
      expect(closed.location).toBe(`/app/requests/${request.id}?done=closed`);
      expect((await call('GET', `/v1/requests/${request.id}`, { token: a.token })).body).toMatchObject({ status: 'closed', submission_count: 1 });
      const after = await appRequest(t.url, 'GET', closed.location!, { cookie });
      expect(after.text).toContain('The request was closed.');
      expect(after.text).not.toContain('Close the request…');
      // Again: closing is terminal and idempotent, as on the API: the same answer, nothing recorded.
      const before = await t.eventCount();
      const again = await appRequest(t.url, 'POST', `/app/requests/${request.id}/close`, { cookie, form: { csrf_token: csrf } });
      expect(again.status).toBe(303);
      expect(await t.eventCount()).toBe(before);
    });

    it('answers 404 for another account’s request and leaves it as it was; a form without the session’s token is refused', async () => {
      const owner = await registerAccount(call);
      const other = await registerAccount(call);
      const request = (await call('POST', '/v1/requests', { token: owner.token, json: { subject: 'Not yours', expires_at: new Date(Date.now() + 86_400_000).toISOString() } })).body;
      const { cookie, csrf } = await signIn(t.url, other.email, other.password);
      for (const p of [`/app/requests/${request.id}`, `/app/requests/${request.id}/close`]) {
        const res = await appRequest(t.url, 'GET', p, { cookie });
        expect(res.status, p).toBe(404);
        expect(res.text).not.toContain('Not yours');
      }
      const own = await signIn(t.url, owner.email, owner.password);
      const before = await t.eventCount();
      const close = await appRequest(t.url, 'POST', `/app/requests/${request.id}/close`, { cookie, form: { csrf_token: csrf } });
      expect(close.status).toBe(404);
      expect(requestLinks((await appRequest(t.url, 'GET', '/app/requests', { cookie })).text)).toEqual([]);
      // Another account's request id as the list's filter names nothing and lists nothing.
      const filtered = await appRequest(t.url, 'GET', `/app/verifications?request_id=${request.id}`, { cookie });
      expect(filtered.text).toContain('Only the submissions to one verification request.');
      expect(filtered.text).not.toContain('Not yours');

      const forged = await appRequest(t.url, 'POST', `/app/requests/${request.id}/close`, { cookie: own.cookie, form: { csrf_token: 'x'.repeat(43) } });
      expect(forged.status).toBe(403);
      const create = await appRequest(t.url, 'POST', '/app/requests', { cookie: own.cookie, form: { subject: 'No token', expires_at: '2099-01-01T00:00', max_submissions: '1' } });
      expect(create.status).toBe(403);
      expect(await t.eventCount()).toBe(before);
      expect((await call('GET', `/v1/requests/${request.id}`, { token: owner.token })).body.status).toBe('open');
    });
  });
}
