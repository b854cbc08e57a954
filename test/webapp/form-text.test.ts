import { describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { registerAccount, uploadImage } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';
import { appRequest, cookieFrom, csrfIn, signIn } from '../support/webapp.js';

/**
 * Issue 36 items 1 and 9: a web form's fields pass the text rules of the API's JSON fields (no
 * NUL, no unpaired surrogate) and must be UTF-8, raw or percent-encoded; a refusal is a 422 that
 * names the field (the sign-in form shown again), never a 500, and nothing is stored altered.
 */
for (const target of databaseTargets) {
  describe(`web app forms refuse text the API refuses, on ${target.name}`, () => {
    const { t, call } = serviceSuite(target);

    /** A form POST with a body given as it goes on the wire (percent-encoding and raw bytes as they are). */
    const postRaw = async (path: string, cookie: string, body: Buffer) => {
      const response = await fetch(`${t.url}${path}`, { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: new Uint8Array(body), redirect: 'manual' });
      return { status: response.status, text: await response.text(), location: response.headers.get('location') };
    };
    const wire = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));

    it('shows the sign-in form again (422) for a NUL or bytes that are not UTF-8 in its fields, never a 500', async () => {
      const a = await registerAccount(call);
      const loginPage = await appRequest(t.url, 'GET', '/app/login');
      const cookie = cookieFrom(loginPage, 'pv_app_login')!;
      const csrf = encodeURIComponent(csrfIn(loginPage.text));
      const password = encodeURIComponent(a.password);
      for (const [what, body] of [
        ['a NUL in the address', wire(`csrf_token=${csrf}&email=a%00%40x.example&password=${password}`)],
        ['a trailing NUL', wire(`csrf_token=${csrf}&email=${encodeURIComponent(a.email)}%00&password=${password}`)],
        ['%FF in the address', wire(`csrf_token=${csrf}&email=a%FF%40x.example&password=${password}`)],
        ['an overlong slash in the password', wire(`csrf_token=${csrf}&email=${encodeURIComponent(a.email)}&password=%C0%AF`)],
        ['raw Latin-1 in the address', wire(`csrf_token=${csrf}&email=caf`, [0xe9], `%40x.example&password=${password}`)],
      ] as const) {
        const res = await postRaw('/app/login', cookie, body);
        expect(res.status, `${what}: ${res.text.slice(0, 300)}`).toBe(422);
        expect(res.text, what).toContain('name="csrf_token"');
        expect(res.text, what).toMatch(/The (email|password) was not accepted/);
      }
      // The same form with the same address as UTF-8 still signs in.
      await signIn(t.url, a.email, a.password);
    });

    it('refuses such text in a signed-in form with 422 naming the field, and stores nothing', async () => {
      const a = await registerAccount(call);
      const id = await uploadImage(t.url, a.token, 'images/rs_sample1.webp', 'harbour.webp');
      const { cookie, csrf } = await signIn(t.url, a.email, a.password);
      const token = encodeURIComponent(csrf);
      for (const [what, body] of [
        ['a NUL', wire(`csrf_token=${token}&name=a%00b`)],
        ['a CESU-8 surrogate', wire(`csrf_token=${token}&name=%ED%A0%80`)],
        ['raw Latin-1', wire(`csrf_token=${token}&name=caf`, [0xe9])],
        ['%FF%FE', wire(`csrf_token=${token}&name=%FF%FE`)],
      ] as const) {
        const res = await postRaw(`/app/verifications/${id}/tags/new`, cookie, body);
        expect(res.status, `${what}: ${res.text.slice(0, 300)}`).toBe(422);
        expect(res.text, what).toContain('name');
        expect(res.text, what).not.toMatch(/INTERNAL_ERROR|failed to handle/);
      }
      const tags = (await call('GET', '/v1/tags/', { token: a.token })).body.items as { name: string }[];
      expect(tags).toEqual([]);
      // UTF-8, percent-encoded as browsers send it, is taken as it is.
      const fine = await postRaw(`/app/verifications/${id}/tags/new`, cookie, wire(`csrf_token=${token}&name=${encodeURIComponent('café')}`));
      expect(fine.status, fine.text.slice(0, 300)).toBe(303);
      expect(((await call('GET', '/v1/tags/', { token: a.token })).body.items as { name: string }[]).map((tag) => tag.name)).toEqual(['café']);
    });
  });
}
