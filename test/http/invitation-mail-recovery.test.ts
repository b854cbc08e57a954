import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendFacts, foldStream, runCommand } from '../../src/core/es/decider.js';
import { accountDecider, accountStream, emailClaimDecider, emailClaimStream } from '../../src/features/accounts/decider.js';
import { INVITATION_TTL_MS, invitationKey, invitationSha256, invitationToken } from '../../src/features/accounts/invitations.js';
import { createInvitationMailActivities, invitationMailSweep } from '../../src/features/accounts/invitation-activities.js';
import { invitationMailId } from '../../workflows/accounts/invitation-workflow.js';
import { databaseTargets } from '../support/databases.js';
import { mailRecovery } from '../support/mail-recovery.js';
import { client, registerAccount, startTestService, type TestService } from '../support/service.js';

/**
 * A member invitation recorded without its e-mail (a process killed between UserInvited and
 * MailQueued, issue 21) gets the e-mail from the invitation mail sweep, once: the id the request
 * would have queued, one MailQueued, one outbox file, a set-password link that works, and later
 * sweeps add nothing. An invitation accepted, or a user removed, before the sweep gets none.
 * The invitations are appended through the deciders straight to the store, as the killed
 * request left them (the address claimed, then UserInvited).
 */
const SWEEP_MS = 200;

for (const target of databaseTargets) {
  describe(`invitation mails a crash left unqueued, on ${target.name}`, () => {
    let t: TestService;
    let call: ReturnType<typeof client>;
    let admin: Awaited<ReturnType<typeof registerAccount>>;

    const { outbox, events, mailed, nothingOwed, ...recovery } = mailRecovery(() => t);
    const context = () => recovery.context({ accountId: admin.account.id, userId: admin.user.id });

    /** The address claimed and the invitation decided, as addUser does; `append` records it (alone, or with what follows). */
    async function inviteCutOff(email: string) {
      const userId = crypto.randomUUID();
      await runCommand(t.service.deps.store, emailClaimStream(email), emailClaimDecider, { type: 'ClaimEmail', email, user_id: userId, account_id: admin.account.id }, { ...context(), accountId: null });
      const now = new Date();
      const command = {
        type: 'InviteUser' as const,
        by_user_id: admin.user.id,
        user: { user_id: userId, email, name: 'Cut Off', role: 'member' as const },
        token_sha256: invitationSha256(invitationToken(invitationKey(t.dataDir), userId)),
        expires_at: new Date(now.getTime() + INVITATION_TTL_MS),
        now,
      };
      return { userId, command };
    }

    beforeAll(async () => {
      t = await startTestService(target, {}, { workflowSweepMs: SWEEP_MS });
      call = client(t.url);
      admin = await registerAccount(call);
    });
    afterAll(async () => {
      await t?.stop();
    });

    it('an invitation recorded without its e-mail is mailed once, with a set-password link that works', async () => {
      // The fast path: the request queues its own message.
      const answered = `answered-${crypto.randomUUID().slice(0, 8)}@example.eu`;
      expect((await call('POST', `/v1/accounts/${admin.account.id}/users`, { token: admin.token, json: { email: answered, name: 'Answered', role: 'member' } })).status).toBe(201);
      const cutOff = `cut-off-${crypto.randomUUID().slice(0, 8)}@example.eu`;
      const { userId, command } = await inviteCutOff(cutOff);
      const outcome = await runCommand(t.service.deps.store, accountStream(admin.account.id), accountDecider, command, context());
      expect(outcome.events.map((e) => e.type)).toEqual(['UserInvited']);

      await mailed(2);
      const queued = await events('MailQueued');
      expect(queued).toHaveLength(2);
      const recovered = queued.filter((e) => e.data.mail_id === invitationMailId(userId));
      expect(recovered).toHaveLength(1);
      expect(recovered[0]!.data.to).toBe(cutOff);
      const message = outbox().find((m) => m.includes(`To: ${cutOff}`));
      expect(message, 'the cut-off invitation is in the outbox').toBeDefined();
      const unfolded = message!.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
      expect(unfolded).toContain(`${admin.user.name} invited you to ${admin.account.name}`);
      const link = /\/accounts\/set-password#(pvi_[A-Za-z0-9_-]{43})/.exec(unfolded)?.[1];
      expect(link).toBeDefined();
      // The link's token sets the password, and the new password logs in.
      const accepted = await call('POST', '/v1/accounts/invitations/accept', { json: { token: link, password: 'recovered password 1' } });
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
      expect(accepted.body.user.id).toBe(userId);
      expect((await call('POST', '/v1/accounts/login', { json: { email: cutOff, password: 'recovered password 1' } })).status).toBe(200);

      // Nothing owed any more, and later sweeps queue nothing.
      await nothingOwed(invitationMailSweep, 2, SWEEP_MS);
    });

    it('an invitation accepted, or a user removed, before the sweep gets no e-mail', async () => {
      const before = (await events('MailQueued')).length;
      const stream = accountStream(admin.account.id);
      const { state } = await foldStream(t.service.deps.store, stream, accountDecider);
      // Invited and accepted (or removed) in one append, so no sweep falls between them.
      const acceptedInvite = await inviteCutOff(`accepted-${crypto.randomUUID().slice(0, 8)}@example.eu`);
      const removedInvite = await inviteCutOff(`removed-${crypto.randomUUID().slice(0, 8)}@example.eu`);
      const facts = [];
      let s = state;
      for (const [invite, then] of [
        [acceptedInvite, { type: 'AcceptInvitation' as const, user_id: acceptedInvite.userId, token_sha256: acceptedInvite.command.token_sha256, password_hash: 'unused', now: new Date() }],
        [removedInvite, { type: 'RemoveUser' as const, by_user_id: admin.user.id, user_id: removedInvite.userId, now: new Date() }],
      ] as const) {
        const invited = accountDecider.decide(invite.command, s);
        s = invited.reduce(accountDecider.evolve, s);
        const next = accountDecider.decide(then, s);
        s = next.reduce(accountDecider.evolve, s);
        facts.push(...invited, ...next);
      }
      expect(facts.map((e) => e.type)).toEqual(['UserInvited', 'InvitationAccepted', 'UserInvited', 'UserRemoved']);
      await appendFacts(t.service.deps.store, stream, accountDecider.catalogue, facts, context());
      await t.settled();
      await new Promise((r) => setTimeout(r, 10 * SWEEP_MS));
      await t.settled();
      expect(await events('MailQueued')).toHaveLength(before);
      const ids = [acceptedInvite.userId, removedInvite.userId].map(invitationMailId);
      expect((await events('MailQueued')).filter((e) => ids.includes(String(e.data.mail_id)))).toEqual([]);
      // A run the sweep started just before the acceptance (or removal) queues nothing either: the activity re-reads the account stream.
      const activities = createInvitationMailActivities(t.service.deps);
      for (const invite of [acceptedInvite, removedInvite]) {
        expect(await activities.queueInvitationMail({} as never, invitationMailId(invite.userId), { account_id: admin.account.id, user_id: invite.userId })).toBe('superseded');
      }
      expect(await events('MailQueued')).toHaveLength(before);
    });
  });
}
