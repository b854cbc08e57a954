import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendFacts, runCommand } from '../../src/core/es/decider.js';
import { shareDecider, shareStream } from '../../src/features/sharing/decider.js';
import { accessChangedMailId, invitationMailId } from '../../projections/sharing/mail-ids.js';
import { linkKey, linkToken, newNonce, tokenSha256 } from '../../src/features/sharing/tokens.js';
import { shareMailSweep } from '../../src/features/sharing/activities.js';
import { databaseTargets } from '../support/databases.js';
import { mailRecovery } from '../support/mail-recovery.js';
import { client, registerAccount, startTestService, uploadImage, type TestService } from '../support/service.js';

/**
 * A sharing change recorded without its message (a process killed between the share stream's
 * append and the mail stream's, issue 21) gets the message from the share mail sweep, once:
 * the same id the request would have queued, one MailQueued, one outbox file, and later sweeps
 * add nothing. The changes are appended through the share decider straight to the store, as
 * the killed request left them.
 */
const SWEEP_MS = 200;

for (const target of databaseTargets) {
  describe(`share mails a crash left unqueued, on ${target.name}`, () => {
    let t: TestService;
    let call: ReturnType<typeof client>;
    let token: string;
    let verificationId: string;
    let owner: { accountId: string; userId: string };

    const { outbox, events, mailed, nothingOwed, ...recovery } = mailRecovery(() => t);
    const context = () => recovery.context(owner);
    const facts = () => ({ account_id: owner.accountId, caller_anonymous: false, verification: { account_id: owner.accountId, anonymous: false }, now: new Date() });

    /** ShareInvited without its message; returns the message id the request would have queued. */
    async function inviteCutOff(email: string): Promise<string> {
      const nonce = newNonce();
      const token_sha256 = tokenSha256(linkToken(linkKey(t.dataDir), 'invite', verificationId, nonce));
      const outcome = await runCommand(t.service.deps.store, shareStream(verificationId), shareDecider, { type: 'Invite', ...facts(), email, nonce, token_sha256 }, context());
      expect(outcome.events.map((e) => e.type)).toEqual(['ShareInvited']);
      return invitationMailId(verificationId, nonce);
    }

    beforeAll(async () => {
      t = await startTestService(target, {}, { workflowSweepMs: SWEEP_MS });
      call = client(t.url);
      const registered = await registerAccount(call);
      token = registered.token;
      owner = { accountId: registered.account.id, userId: registered.user.id };
      verificationId = await uploadImage(t.url, token);
      expect((await call('POST', `/v1/verifications/${verificationId}/share`, { token, json: { access_type: 'restricted' } })).status).toBeLessThan(300);
    });
    afterAll(async () => {
      await t?.stop();
    });

    it('an invitation recorded without its message is mailed once, with the link the request would have sent', async () => {
      // The fast path: the request queues its own message.
      const answered = `answered-${crypto.randomUUID().slice(0, 8)}@example.eu`;
      expect((await call('POST', `/v1/verifications/${verificationId}/share/invites`, { token, json: { email: answered } })).status).toBeLessThan(300);
      const cutOff = `cut-off-${crypto.randomUUID().slice(0, 8)}@example.eu`;
      const id = await inviteCutOff(cutOff);

      await mailed(2);
      const queued = await events('MailQueued');
      expect(queued.filter((e) => e.data.mail_id === id)).toHaveLength(1);
      expect(queued.find((e) => e.data.mail_id === id)!.data.to).toBe(cutOff);
      expect(queued).toHaveLength(2);
      const message = outbox().find((m) => m.includes(`To: ${cutOff}`));
      expect(message, 'the cut-off invitation is in the outbox').toBeDefined();
      // The personal link opens the restricted report: the message carries the recorded invitation's proof.
      const link = /https?:\/\/\S+\?invite=[A-Za-z0-9_-]{32}/.exec(message!.replace(/=\r?\n/g, '').replace(/=3D/g, '='))?.[0];
      expect(link).toBeDefined();
      const { pathname, search } = new URL(link!);
      expect((await fetch(`${t.url}${pathname}${search}`)).status).toBe(200);

      // Nothing owed any more, and later sweeps queue nothing.
      await nothingOwed(shareMailSweep, 2, SWEEP_MS);
    });

    it('an access change recorded without its notices: each address invited before it is told once', async () => {
      const before = (await events('MailQueued')).length;
      const invited = (await call('GET', `/v1/verifications/${verificationId}/share`, { token })).body.invited_emails as string[];
      expect(invited).toHaveLength(2);
      const share = await runCommand(t.service.deps.store, shareStream(verificationId), shareDecider, { type: 'Share', ...facts(), access_type: 'anyone_with_link', nonce: newNonce(), token_sha256: 'unused' }, context());
      expect(share.events.map((e) => e.type)).toEqual(['ShareAccessChanged']);
      const state = share.state as Extract<typeof share.state, { status: 'shared' }>;
      const ids = invited.map((email) => accessChangedMailId(verificationId, state.nonce, state.accessChanges, email));

      await mailed(before + 2);
      const queued = await events('MailQueued');
      expect(queued.map((e) => e.data.mail_id).filter((id) => ids.includes(String(id))).sort()).toEqual([...ids].sort());
      expect(queued).toHaveLength(before + 2);

      await nothingOwed(shareMailSweep, before + 2, SWEEP_MS);
    });

    it('an invitation revoked before the sweep is not mailed', async () => {
      const before = (await events('MailQueued')).length;
      // Invited and revoked in one append, so no sweep falls between them.
      const email = `revoked-${crypto.randomUUID().slice(0, 8)}@example.eu`;
      const nonce = newNonce();
      const stream = shareStream(verificationId);
      const restricted = await runCommand(t.service.deps.store, stream, shareDecider, { type: 'Share', ...facts(), access_type: 'restricted', nonce: newNonce(), token_sha256: 'unused' }, context());
      const invited = shareDecider.decide({ type: 'Invite', ...facts(), email, nonce, token_sha256: tokenSha256(linkToken(linkKey(t.dataDir), 'invite', verificationId, nonce)) }, restricted.state);
      const afterInvite = invited.reduce(shareDecider.evolve, restricted.state);
      const revoked = shareDecider.decide({ type: 'RevokeInvite', ...facts(), email }, afterInvite);
      await appendFacts(t.service.deps.store, stream, shareDecider.catalogue, [...invited, ...revoked], context());
      // The change back to restricted owes the two earlier invitees a notice each: those, and nothing for the revoked address.
      await mailed(before + 2);
      await new Promise((r) => setTimeout(r, 10 * SWEEP_MS));
      await t.settled();
      const queued = await events('MailQueued');
      expect(queued).toHaveLength(before + 2);
      expect(queued.filter((e) => e.data.to === email)).toHaveLength(0);
      expect(queued.find((e) => e.data.mail_id === invitationMailId(verificationId, nonce))).toBeUndefined();
    });
  });
}
