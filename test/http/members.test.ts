import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { systemContext } from '../../src/core/es/commands.js';
import { runCommand } from '../../src/core/es/decider.js';
import { accountDecider, accountStream, emailClaimStream } from '../../src/features/accounts/decider.js';
import { databaseTargets } from '../support/databases.js';
import { addMember } from '../support/members.js';
import { outbox, to } from '../support/outbox.js';
import { registerAccount } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';

const webp = fs.readFileSync(path.resolve(import.meta.dirname, '../../../shared/fixtures/images/rs_sample1.webp'));

for (const target of databaseTargets) {
  describe(`account members on ${target.name}`, () => {
    const { t, call } = serviceSuite(target, { LOGIN_RATE_LIMIT_PER_15_MIN: '5' });

    const users = (account: { account: { id: string } }) => `/v1/accounts/${account.account.id}/users`;

    it('a member logs in and works in the account; an API key they create acts as them', async () => {
      const admin = await registerAccount(call);
      const member = await addMember(call, admin, 'member', 'Maya');
      const form = new FormData();
      form.append('image', new Blob([new Uint8Array(webp)]), 'harbour.webp');
      const created = await fetch(`${t.url}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${member.token}` }, body: form });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };
      // The member's verification is the account's: the admin reads it too.
      const byAdmin = await call('GET', `/v1/verifications/${id}`, { token: admin.token });
      expect([byAdmin.status, byAdmin.body.account_id]).toEqual([200, admin.account.id]);
      const key = await call('POST', '/v1/apikeys/', { token: member.token, json: { account_id: admin.account.id } });
      expect(key.status).toBe(201);
      expect(key.body.user_id).toBe(member.user.id);
      const me = await call('GET', '/v1/accounts/me', { apiKey: key.body.raw_key });
      expect(me.body).toMatchObject({ user: { id: member.user.id, name: 'Maya', role: 'member' }, authenticated_via: 'api_key' });
    });

    it('an invited user chooses their own password through the mailed link, once, within 7 days', async () => {
      const admin = await registerAccount(call);
      const email = `invitee-${admin.account.id}@org.example`;
      const invited = await call('POST', users(admin), { token: admin.token, json: { email, name: 'Ines Invitee', role: 'member' } });
      expect(invited.status).toBe(201);
      expect(invited.body).toMatchObject({ email, name: 'Ines Invitee', role: 'member', status: 'invited' });
      expect((await call('POST', '/v1/accounts/login', { json: { email, password: 'any password at all' } })).status).toBe(401);
      await t.settled();
      const mail = (await outbox(t.dataDir)).find((m) => to(m) === email)!;
      expect(mail.subject).toBe(`${admin.user.name} invited you to ${admin.account.name} on PhotoVerify`);
      const token = /\/accounts\/set-password#(pvi_[A-Za-z0-9_-]{43})/.exec(mail.text ?? '')![1]!;
      expect(mail.html).toContain(`/accounts/set-password#${token}`);

      // The page the link opens: a form; the token stays in the fragment, the script posts it.
      const page = await fetch(`${t.url}/accounts/set-password`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.headers.get('content-security-policy')).toMatch(/connect-src 'self'.*form-action 'none'/);
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
      const markup = await page.text();
      expect(markup).toContain('data-accept-url="/v1/accounts/invitations/accept"');
      expect(markup).toMatch(/<input id="password" name="password" type="password" autocomplete="new-password"/);

      const accept = (json: unknown) => call('POST', '/v1/accounts/invitations/accept', { json });
      const before = await t.eventCount();
      expect((await accept({ token, password: 'short' })).status).toBe(422);
      for (const bad of ['pvi_unknown', `pvi_${'A'.repeat(43)}`, token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A')]) {
        const res = await accept({ token: bad, password: 'my chosen password 1' });
        expect([res.status, res.body.detail.error_code]).toEqual([404, 'INVITATION_NOT_FOUND']);
      }
      expect(await t.eventCount()).toBe(before);
      const accepted = await accept({ token, password: 'my chosen password 1' });
      expect(accepted.status).toBe(200);
      expect(accepted.body.user).toMatchObject({ email, status: 'active' });
      expect((await call('GET', '/v1/accounts/me', { token: accepted.body.access_token })).body.user).toMatchObject({ id: invited.body.id, role: 'member', status: 'active' });
      expect((await call('POST', '/v1/accounts/login', { json: { email, password: 'my chosen password 1' } })).status).toBe(200);
      const again = await accept({ token, password: 'another password 22' });
      expect([again.status, again.body.detail.error_code]).toEqual([404, 'INVITATION_NOT_FOUND']);
      const listed = await call('GET', users(admin), { token: admin.token });
      expect(listed.body.items.find((u: { id: string }) => u.id === invited.body.id).status).toBe('active');

      // Recorded without the token or the password hash.
      const history = await call('GET', `/v1/audit/streams/account-${admin.account.id}`, { token: admin.token });
      const types = history.body.events.map((e: { type: string }) => e.type);
      expect(types).toEqual(expect.arrayContaining(['UserInvited', 'InvitationAccepted']));
      expect(history.body.events.find((e: { type: string }) => e.type === 'UserInvited').data.token_sha256).toBe('[redacted]');
      expect(history.body.events.find((e: { type: string }) => e.type === 'InvitationAccepted').metadata.actor).toEqual({ type: 'user', id: invited.body.id });
      const everything = JSON.stringify(await t.service.deps.knex('events').select('data'));
      expect(everything).not.toContain(token);
    });

    it('an invitation expires after 7 days, is withdrawn by removing the user, and an invited admin is not yet an admin', async () => {
      const admin = await registerAccount(call);
      const invite = async (role: 'admin' | 'member') => {
        const email = `${role}-${crypto.randomUUID()}@org.example`;
        const res = await call('POST', users(admin), { token: admin.token, json: { email, name: 'Later', role } });
        expect(res.status).toBe(201);
        await t.settled();
        const mail = (await outbox(t.dataDir)).find((m) => to(m) === email)!;
        return { id: res.body.id as string, token: /#(pvi_[A-Za-z0-9_-]{43})/.exec(mail.text ?? '')![1]! };
      };
      const late = await invite('member');
      const realNow = t.service.deps.now;
      t.service.deps.now = () => new Date(Date.now() + 7 * 86_400_000 + 60_000);
      try {
        const expired = await call('POST', '/v1/accounts/invitations/accept', { json: { token: late.token, password: 'my chosen password 1' } });
        expect([expired.status, expired.body.detail.error_code]).toEqual([410, 'INVITATION_EXPIRED']);
        expect(expired.body.detail.suggestion).toMatch(/invite you again/);
      } finally {
        t.service.deps.now = realNow;
      }
      const withdrawn = await invite('member');
      expect((await call('DELETE', `${users(admin)}/${withdrawn.id}`, { token: admin.token })).status).toBe(204);
      const refused = await call('POST', '/v1/accounts/invitations/accept', { json: { token: withdrawn.token, password: 'my chosen password 1' } });
      expect([refused.status, refused.body.detail.error_code]).toEqual([404, 'INVITATION_NOT_FOUND']);
      // An admin who has not accepted cannot log in, so the inviting admin is still the last one.
      const pendingAdmin = await invite('admin');
      const leave = await call('DELETE', `${users(admin)}/${admin.user.id}`, { token: admin.token });
      expect([leave.status, leave.body.detail.error_code]).toEqual([409, 'LAST_ADMIN']);
      expect((await call('POST', '/v1/accounts/invitations/accept', { json: { token: pendingAdmin.token, password: 'my chosen password 1' } })).status).toBe(200);
      expect((await call('DELETE', `${users(admin)}/${admin.user.id}`, { token: admin.token })).status).toBe(204);
    });

    it('an admin changes roles; the change applies at once; the last admin stays an admin', async () => {
      const admin = await registerAccount(call);
      const member = await addMember(call, admin);
      const promoted = await call('PATCH', `${users(admin)}/${member.user.id}`, { token: admin.token, json: { role: 'admin' } });
      expect(promoted.status).toBe(200);
      expect(promoted.body).toMatchObject({ id: member.user.id, role: 'admin' });
      // The member's existing session now manages users.
      const byPromoted = await call('POST', users(admin), { token: member.token, json: { email: `x-${admin.account.id}@org.example`, name: 'X', password: 'long password 123' } });
      expect(byPromoted.status).toBe(201);
      // The same role again records nothing.
      const before = await t.eventCount();
      expect((await call('PATCH', `${users(admin)}/${member.user.id}`, { token: admin.token, json: { role: 'admin' } })).status).toBe(200);
      expect(await t.eventCount()).toBe(before);
      // Two admins: one may step down; then the other is the last one.
      expect((await call('PATCH', `${users(admin)}/${admin.user.id}`, { token: admin.token, json: { role: 'member' } })).body.role).toBe('member');
      const last = await call('PATCH', `${users(admin)}/${member.user.id}`, { token: member.token, json: { role: 'member' } });
      expect(last.status).toBe(409);
      expect(last.body.detail).toMatchObject({ error_code: 'LAST_ADMIN', suggestion: expect.stringMatching(/another user an admin/) });
      // The demoted admin's session lost admin rights at once.
      const byDemoted = await call('PATCH', `${users(admin)}/${member.user.id}`, { token: admin.token, json: { role: 'member' } });
      expect([byDemoted.status, byDemoted.body.detail.error_code]).toEqual([403, 'ACCESS_DENIED']);
      const history = await call('GET', `/v1/audit/streams/account-${admin.account.id}`, { token: member.token });
      const changes = history.body.events.filter((e: { type: string }) => e.type === 'UserRoleChanged');
      expect(changes.map((e: { data: { user_id: string; from: string; to: string } }) => [e.data.user_id, e.data.from, e.data.to])).toEqual([
        [member.user.id, 'member', 'admin'],
        [admin.user.id, 'admin', 'member'],
      ]);
      expect(changes[0].metadata.actor).toEqual({ type: 'user', id: admin.user.id });
    });

    it('removing a member stops their sessions and API keys at once, frees the address, and is recorded', async () => {
      const admin = await registerAccount(call);
      const member = await addMember(call, admin);
      const key = await call('POST', '/v1/apikeys/', { token: member.token, json: { account_id: admin.account.id } });
      expect((await call('GET', '/v1/verifications/', { apiKey: key.body.raw_key })).status).toBe(200);
      const removed = await call('DELETE', `${users(admin)}/${member.user.id}`, { token: admin.token });
      expect([removed.status, removed.body]).toEqual([204, null]);
      const session = await call('GET', '/v1/verifications/', { token: member.token });
      expect([session.status, session.body.detail.error_code]).toEqual([401, 'INVALID_TOKEN']);
      const byKey = await call('GET', '/v1/verifications/', { apiKey: key.body.raw_key });
      expect([byKey.status, byKey.body.detail.error_code]).toEqual([401, 'INVALID_API_KEY']);
      expect((await call('POST', '/v1/accounts/login', { json: { email: member.email, password: member.password } })).status).toBe(401);
      // The key is revoked, not just unusable: the account's key list says so.
      const keys = await call('GET', '/v1/apikeys/', { token: admin.token });
      expect(keys.body.find((k: { id: string }) => k.id === key.body.id)).toMatchObject({ user_id: member.user.id, is_active: false });
      expect((await call('GET', users(admin), { token: admin.token })).body.items.map((u: { id: string }) => u.id)).toEqual([admin.user.id]);
      // Removed twice: the user is no longer there.
      const again = await call('DELETE', `${users(admin)}/${member.user.id}`, { token: admin.token });
      expect([again.status, again.body.detail.error_code]).toEqual([404, 'USER_NOT_FOUND']);
      // The address is free again: re-added, it is a new user with a new password.
      const readded = await call('POST', users(admin), { token: admin.token, json: { email: member.email, name: 'Back', password: 'another password 2' } });
      expect(readded.status).toBe(201);
      expect(readded.body.id).not.toBe(member.user.id);
      expect((await call('POST', '/v1/accounts/login', { json: { email: member.email, password: 'another password 2' } })).status).toBe(200);
      const history = await call('GET', `/v1/audit/streams/account-${admin.account.id}`, { token: admin.token });
      const removal = history.body.events.find((e: { type: string }) => e.type === 'UserRemoved');
      expect(removal.data).toMatchObject({ user_id: member.user.id, email: member.email });
      expect(removal.metadata.actor).toEqual({ type: 'user', id: admin.user.id });
      const revocation = await call('GET', `/v1/audit/streams/apikey-${key.body.id}`, { token: admin.token });
      expect(revocation.body.events.map((e: { type: string }) => e.type)).toContain('ApiKeyRevoked');
      // The address registry is no account's history: another account may hold the address next.
      const elsewhere = await registerAccount(call);
      expect((await call('DELETE', `${users(admin)}/${readded.body.id}`, { token: admin.token })).status).toBe(204);
      expect((await call('POST', users(elsewhere), { token: elsewhere.token, json: { email: member.email, name: 'Moved', password: 'another password 3' } })).status).toBe(201);
      for (const reader of [admin, elsewhere]) {
        expect((await call('GET', `/v1/audit/streams/${emailClaimStream(member.email)}`, { token: reader.token })).status).toBe(404);
      }
    });

    it('a removal interrupted after UserRemoved (the process died) is completed by asking again', async () => {
      const admin = await registerAccount(call);
      const member = await addMember(call, admin);
      const key = await call('POST', '/v1/apikeys/', { token: member.token, json: { account_id: admin.account.id } });
      // What a crash right after the first append leaves: the user removed, the key not revoked,
      // the address still claimed.
      const deps = t.service.deps;
      const context = systemContext(deps, { actor: { type: 'user', id: admin.user.id }, correlationId: crypto.randomUUID(), accountId: admin.account.id });
      await runCommand(deps.store, accountStream(admin.account.id), accountDecider, { type: 'RemoveUser', by_user_id: admin.user.id, user_id: member.user.id, now: context.now }, context);
      await t.settled();
      const before = await call('GET', '/v1/apikeys/', { token: admin.token });
      expect(before.body.find((k: { id: string }) => k.id === key.body.id).is_active).toBe(true);
      // The address the crash left claimed is released by the next claimant, since its user was
      // removed (issue 36 item 16b): the admin may add the person again at once.
      expect((await call('POST', users(admin), { token: admin.token, json: { email: member.email, name: 'Back', password: 'another password 2' } })).status).toBe(201);
      // The admin asks again: the removed user is gone (404), and the removal's remaining steps ran.
      const again = await call('DELETE', `${users(admin)}/${member.user.id}`, { token: admin.token });
      expect([again.status, again.body.detail.error_code]).toEqual([404, 'USER_NOT_FOUND']);
      const after = await call('GET', '/v1/apikeys/', { token: admin.token });
      expect(after.body.find((k: { id: string }) => k.id === key.body.id).is_active).toBe(false);
      // A user never in the account still answers 404 and changes nothing.
      const events = await t.eventCount();
      expect((await call('DELETE', `${users(admin)}/${crypto.randomUUID()}`, { token: admin.token })).status).toBe(404);
      expect(await t.eventCount()).toBe(events);
    });

    it('the last admin cannot be removed; an admin may leave while another admin remains', async () => {
      const admin = await registerAccount(call);
      const before = await t.eventCount();
      const alone = await call('DELETE', `${users(admin)}/${admin.user.id}`, { token: admin.token });
      expect([alone.status, alone.body.detail.error_code]).toEqual([409, 'LAST_ADMIN']);
      expect(await t.eventCount()).toBe(before);
      const second = await addMember(call, admin, 'admin');
      expect((await call('DELETE', `${users(admin)}/${admin.user.id}`, { token: admin.token })).status).toBe(204);
      expect((await call('GET', '/v1/accounts/me', { token: admin.token })).status).toBe(401);
      const remaining = await call('GET', users(admin), { token: second.token });
      expect(remaining.body.items).toEqual([expect.objectContaining({ id: second.user.id, role: 'admin' })]);
    });

    it('a member replaces the initial password the admin set: older sessions end, keys keep working', async () => {
      const admin = await registerAccount(call);
      const member = await addMember(call, admin);
      const key = await call('POST', '/v1/apikeys/', { token: member.token, json: { account_id: admin.account.id } });
      const second = await call('POST', '/v1/accounts/login', { json: { email: member.email, password: member.password } });
      const wrong = await call('PUT', '/v1/accounts/me/password', { token: member.token, json: { current_password: 'not my password', new_password: 'my own secret 42' } });
      expect([wrong.status, wrong.body.detail.error_code]).toEqual([403, 'ACCESS_DENIED']);
      expect((await call('GET', '/v1/accounts/me', { token: member.token })).status).toBe(200);
      const changed = await call('PUT', '/v1/accounts/me/password', { token: member.token, json: { current_password: member.password, new_password: 'my own secret 42' } });
      expect(changed.status).toBe(200);
      expect(changed.headers.get('cache-control')).toBe('no-store');
      expect(changed.body).toMatchObject({ token_type: 'bearer', user: { id: member.user.id }, account: { id: admin.account.id } });
      // Every session issued before the change has ended; the fresh one works.
      for (const old of [member.token, second.body.access_token]) {
        const res = await call('GET', '/v1/accounts/me', { token: old });
        expect([res.status, res.body.detail.error_code]).toEqual([401, 'INVALID_TOKEN']);
        expect(res.body.detail.message).toMatch(/password was changed/);
      }
      expect((await call('GET', '/v1/accounts/me', { token: changed.body.access_token })).body.user.id).toBe(member.user.id);
      expect((await call('GET', '/v1/accounts/me', { apiKey: key.body.raw_key })).status).toBe(200);
      expect((await call('POST', '/v1/accounts/login', { json: { email: member.email, password: member.password } })).status).toBe(401);
      const login = await call('POST', '/v1/accounts/login', { json: { email: member.email, password: 'my own secret 42' } });
      expect(login.status).toBe(200);
      expect((await call('GET', '/v1/accounts/me', { token: login.body.access_token })).status).toBe(200);
      // Recorded without the hash.
      const history = await call('GET', `/v1/audit/streams/account-${admin.account.id}`, { token: admin.token });
      const event = history.body.events.find((e: { type: string }) => e.type === 'PasswordChanged');
      expect(event.data).toMatchObject({ user_id: member.user.id, password_hash: '[redacted]' });
      expect(JSON.stringify(history.body)).not.toContain('scrypt$');
      // Bad input, an API key, no credentials: refused, nothing recorded.
      const before = await t.eventCount();
      for (const json of [{ current_password: 'my own secret 42', new_password: 'short' }, { current_password: 'my own secret 42', new_password: 'my own secret 42' }, { new_password: 'long enough new one' }]) {
        expect((await call('PUT', '/v1/accounts/me/password', { token: login.body.access_token, json })).status, JSON.stringify(json)).toBe(422);
      }
      const byKey = await call('PUT', '/v1/accounts/me/password', { apiKey: key.body.raw_key, json: { current_password: 'my own secret 42', new_password: 'long enough new one' } });
      expect([byKey.status, byKey.body.detail.error_code]).toEqual([403, 'ACCESS_DENIED']);
      expect((await call('PUT', '/v1/accounts/me/password', { json: { current_password: 'x', new_password: 'long enough new one' } })).status).toBe(401);
      expect(await t.eventCount()).toBe(before);
    });

    it('limits wrong current passwords like failed logins (429)', async () => {
      const admin = await registerAccount(call);
      const attempts = [];
      for (let i = 0; i < 6; i++) {
        attempts.push((await call('PUT', '/v1/accounts/me/password', { token: admin.token, json: { current_password: `guess ${i}`, new_password: 'long enough new one' } })).status);
      }
      expect(attempts).toEqual([403, 403, 403, 403, 403, 429]);
      const right = await call('PUT', '/v1/accounts/me/password', { token: admin.token, json: { current_password: admin.password, new_password: 'long enough new one' } });
      expect([right.status, right.body.detail.error_code]).toEqual([429, 'RATE_LIMIT_EXCEEDED']);
      expect(right.headers.get('retry-after')).toMatch(/^\d+$/);
    });

    it('refuses members, API keys, other accounts and bad input, and writes nothing', async () => {
      const admin = await registerAccount(call);
      const member = await addMember(call, admin);
      const other = await registerAccount(call);
      const key = await call('POST', '/v1/apikeys/', { token: admin.token, json: { account_id: admin.account.id } });
      await call('GET', '/v1/apikeys/', { apiKey: key.body.raw_key }); // its use is recorded before the count
      const before = await t.eventCount();
      const expectError = async (res: Promise<{ status: number; body: any }>, status: number, code: string) => {
        const { status: got, body } = await res;
        expect([got, body.detail.error_code]).toEqual([status, code]);
        expect(body.detail.message).toEqual(expect.any(String));
      };
      // A member cannot manage members, not even themselves.
      await expectError(call('PATCH', `${users(admin)}/${member.user.id}`, { token: member.token, json: { role: 'admin' } }), 403, 'ACCESS_DENIED');
      await expectError(call('DELETE', `${users(admin)}/${admin.user.id}`, { token: member.token }), 403, 'ACCESS_DENIED');
      await expectError(call('DELETE', `${users(admin)}/${member.user.id}`, { token: member.token }), 403, 'ACCESS_DENIED');
      await expectError(call('POST', users(admin), { token: member.token, json: { email: 'y@org.example', name: 'Y', password: 'long password 123' } }), 403, 'ACCESS_DENIED');
      // An API key, even the admin's, does not manage members (a login token is required).
      const byKey = await call('DELETE', `${users(admin)}/${member.user.id}`, { apiKey: key.body.raw_key });
      expect([byKey.status, byKey.body.detail.error_code]).toEqual([403, 'ACCESS_DENIED']);
      expect(byKey.body.detail.suggestion).toMatch(/Log in/);
      // Another account: its path is not the caller's (403), its users are not in the caller's account (404).
      await expectError(call('DELETE', `${users(other)}/${other.user.id}`, { token: admin.token }), 403, 'ACCESS_DENIED');
      await expectError(call('PATCH', `${users(other)}/${other.user.id}`, { token: admin.token, json: { role: 'member' } }), 403, 'ACCESS_DENIED');
      await expectError(call('DELETE', `${users(admin)}/${other.user.id}`, { token: admin.token }), 404, 'USER_NOT_FOUND');
      await expectError(call('PATCH', `${users(admin)}/${other.user.id}`, { token: admin.token, json: { role: 'admin' } }), 404, 'USER_NOT_FOUND');
      await expectError(call('DELETE', `${users(admin)}/00000000-0000-4000-8000-000000000000`, { token: admin.token }), 404, 'USER_NOT_FOUND');
      // Bad input: 422 in the list form.
      for (const json of [{}, { role: 'owner' }, { role: 'admin', name: 'renamed' }]) {
        const res = await call('PATCH', `${users(admin)}/${member.user.id}`, { token: admin.token, json });
        expect(res.status, JSON.stringify(json)).toBe(422);
        expect(res.body.detail[0].loc[0]).toBe('body');
      }
      expect((await call('DELETE', `${users(admin)}/not-a-uuid`, { token: admin.token })).status).toBe(422);
      expect((await call('DELETE', `${users(admin)}/${member.user.id}`)).status).toBe(401);
      expect(await t.eventCount()).toBe(before);
      // Nothing changed: the other account's admin still works, the member is still a member.
      expect((await call('GET', '/v1/accounts/me', { token: other.token })).status).toBe(200);
      expect((await call('GET', '/v1/accounts/me', { token: member.token })).body.user.role).toBe('member');
    });
  });
}
