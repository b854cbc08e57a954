import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { callTool, connectMcp, keylessVerify } from '../support/mcp.js';
import { registerAccount } from '../support/service.js';
import { SESSIONS_OUTLIVE_CLOCK } from '../support/clock.js';
import { serviceSuite } from '../support/suite.js';
import { systemContext } from '../../src/core/es/commands.js';
import { runCommand } from '../../src/core/es/decider.js';
import { CLAIM_WINDOW_MS, verificationDecider, verificationStream } from '../../src/features/verifications/decider.js';

const fixtures = path.resolve(import.meta.dirname, '../../../shared/fixtures');
const webp = fs.readFileSync(path.join(fixtures, 'images/rs_sample1.webp'));
const raw = fs.readFileSync(path.join(fixtures, 'pairs/canon_eos_6d_dng/canon_eos_6d.dng'));
const jpeg = fs.readFileSync(path.join(fixtures, 'pairs/canon_eos_6d_dng/canon_eos_6d.preview.jpg'));

/** Keyless verification is an MCP thing (REST requires credentials): the free tier's verify tools. */
async function keylessUpload(url: string, anonymousUserId?: string, pair = false) {
  const outcome = await keylessVerify(url, pair ? { image: jpeg, raw } : { image: webp }, anonymousUserId);
  return { ok: !outcome.result.isError, body: { id: outcome.output?.verification_id, anonymous_user_id: outcome.output?.anonymous_user_id }, error: outcome.error };
}

/** A keyless agent reading with its anonymous_user_id. */
async function keylessRead(url: string, tool: string, args: Record<string, unknown>) {
  const agent = await connectMcp(url);
  try {
    return await callTool(agent, tool, args);
  } finally {
    await agent.close();
  }
}

for (const target of databaseTargets) {
  describe(`anonymous use and claims on ${target.name}`, () => {
    const { t, call } = serviceSuite(target, { ...SESSIONS_OUTLIVE_CLOCK, ANONYMOUS_UPLOADS_PER_HOUR: '7', CLAIM_ATTEMPTS_PER_15_MIN: '6' });

    let anonymousUserId: string;
    let ids: string[];

    it('lets a keyless caller verify and read its own records with its anonymous_user_id', async () => {
      const first = await keylessUpload(t.url);
      expect(first.ok).toBe(true);
      anonymousUserId = first.body.anonymous_user_id;
      expect(anonymousUserId).toMatch(/^anon_[A-Za-z0-9_-]{43}$/);
      const second = await keylessUpload(t.url, anonymousUserId, true);
      expect(second.ok).toBe(true);
      expect(second.body.anonymous_user_id).toBe(anonymousUserId);
      ids = [first.body.id, second.body.id];
      await t.settled();

      const own = await keylessRead(t.url, 'get_verification', { verification_id: ids[0], anonymous_user_id: anonymousUserId });
      expect(own.output.verification.status).toBe('completed');
      const listed = await keylessRead(t.url, 'list_verifications', { anonymous_user_id: anonymousUserId });
      expect(listed.output.total).toBe(2);
      // REST has no keyless access at all.
      expect((await call('GET', `/v1/verifications/${ids[0]}`)).status).toBe(401);
      expect((await call('GET', `/v1/verifications/${ids[0]}`, { headers: { 'x-anonymous-user-id': anonymousUserId } })).status).toBe(401);
      const stranger = await keylessRead(t.url, 'get_verification', { verification_id: ids[0], anonymous_user_id: `anon_${'A'.repeat(43)}` });
      expect(stranger.error?.error_code).toBe('VERIFICATION_NOT_FOUND');
      expect((await keylessRead(t.url, 'get_verification', { verification_id: ids[0], anonymous_user_id: 'guess' })).error?.error_code).toBe('INVALID_CREDENTIALS');
      // The secret itself is stored nowhere.
      const log = await t.service.deps.knex('events').whereRaw('data::text like ? or metadata::text like ?', [`%${anonymousUserId}%`, `%${anonymousUserId}%`]);
      expect(log).toHaveLength(0);
    });

    it('moves unclaimed records to the caller, idempotently, without using its quota', async () => {
      const a = await registerAccount(call);
      const res = await call('POST', '/v1/verifications/claim', { token: a.token, json: { anonymous_user_id: anonymousUserId } });
      expect(res.status).toBe(200);
      expect(res.body.claimed).toBe(2);
      expect(new Set(res.body.verification_ids)).toEqual(new Set(ids));
      const again = await call('POST', '/v1/verifications/claim', { token: a.token, json: { anonymous_user_id: anonymousUserId } });
      expect(again.body).toEqual({ claimed: 0, verification_ids: [] });

      const mine = await call('GET', `/v1/verifications/${ids[1]}`, { token: a.token });
      expect(mine.status).toBe(200);
      expect(mine.body.account_id).toBe(a.account.id);
      const gone = await keylessRead(t.url, 'get_verification', { verification_id: ids[1], anonymous_user_id: anonymousUserId });
      expect(gone.error?.error_code).toBe('VERIFICATION_NOT_FOUND');
      const history = await call('GET', `/v1/audit/streams/verification-${ids[1]}`, { token: a.token });
      expect(history.body.events.at(-1)).toMatchObject({ type: 'VerificationClaimed', data: { new_owner_account_id: a.account.id } });
      const usage = await call('GET', `/v1/accounts/${a.account.id}/usage`, { token: a.token });
      expect(usage.body.included_used).toBe(0);

      const b = await registerAccount(call);
      const events = await t.eventCount();
      const taken = await call('POST', '/v1/verifications/claim', { token: b.token, json: { anonymous_user_id: anonymousUserId } });
      expect(taken.status).toBe(409);
      expect(taken.body.detail.error_code).toBe('ALREADY_CLAIMED');
      expect(await t.eventCount()).toBe(events);
    });

    it('refuses records older than the 30-day window with 410', async () => {
      const old = await keylessUpload(t.url);
      const c = await registerAccount(call);
      const realNow = t.service.deps.now;
      t.service.deps.now = () => new Date(Date.now() + 31 * 86_400_000);
      try {
        const res = await call('POST', '/v1/verifications/claim', { token: c.token, json: { anonymous_user_id: old.body.anonymous_user_id } });
        expect(res.status).toBe(410);
        expect(res.body.detail.error_code).toBe('CLAIM_EXPIRED');
      } finally {
        t.service.deps.now = realNow;
      }
    });

    it('at the window\'s close a claim and the sweep never both win: a claim at the end instant, or one that loses the stream to the sweep, answers 410', async () => {
      const realNow = t.service.deps.now;
      const endOf = async (id: string) => new Date(new Date((await t.service.deps.knex('verifications').where({ id }).first()).created_at).getTime() + CLAIM_WINDOW_MS);
      const c = await registerAccount(call);
      try {
        // The claim at the instant the window ends: the sweep's instant too, so the claim is refused.
        const atEnd = await keylessUpload(t.url);
        await t.settled();
        const end = await endOf(atEnd.body.id);
        t.service.deps.now = () => end;
        const refused = await call('POST', '/v1/verifications/claim', { token: c.token, json: { anonymous_user_id: atEnd.body.anonymous_user_id } });
        expect(refused.status, JSON.stringify(refused.body)).toBe(410);
        expect(refused.body.detail.error_code).toBe('CLAIM_EXPIRED');

        // A claim decided a millisecond before the end, on a stream the sweep has just closed (it won the revision): 410, and the record stays closed and anonymous.
        t.service.deps.now = realNow;
        const raced = await keylessUpload(t.url);
        await t.settled();
        const rEnd = await endOf(raced.body.id);
        const swept = await runCommand(t.service.deps.store, verificationStream(raced.body.id), verificationDecider, { type: 'CloseClaimWindow', now: rEnd }, systemContext(t.service.deps, { actor: { type: 'system', id: 'claim-window' }, correlationId: 'race', accountId: null }));
        expect(swept.events.map((e) => e.type)).toEqual(['ClaimWindowClosed']);
        t.service.deps.now = () => new Date(rEnd.getTime() - 1);
        const lost = await call('POST', '/v1/verifications/claim', { token: c.token, json: { anonymous_user_id: raced.body.anonymous_user_id } });
        expect(lost.status, JSON.stringify(lost.body)).toBe(410);
        expect(lost.body.detail.error_code).toBe('CLAIM_EXPIRED');
        const types = (await t.service.deps.store.readStream(verificationStream(raced.body.id))).map((e) => e.type);
        expect(types).not.toContain('VerificationClaimed');
      } finally {
        t.service.deps.now = realNow;
      }
    });

    it('answers unknown and malformed ids like empty ones, and limits claim attempts', async () => {
      const d = await registerAccount(call);
      for (const id of [`anon_${'B'.repeat(43)}`, 'not-an-id']) {
        const res = await call('POST', '/v1/verifications/claim', { token: d.token, json: { anonymous_user_id: id } });
        expect(res.body).toEqual({ claimed: 0, verification_ids: [] });
      }
      expect((await call('POST', '/v1/verifications/claim', { token: d.token, json: {} })).status).toBe(422);
      expect((await call('POST', '/v1/verifications/claim', { json: { anonymous_user_id: 'x' } })).status).toBe(401);
      let limited;
      for (let i = 0; i < 6 && !limited; i++) {
        const res = await call('POST', '/v1/verifications/claim', { token: d.token, json: { anonymous_user_id: `anon_${'C'.repeat(43)}` } });
        if (res.status === 429) limited = res;
      }
      expect(limited?.body.detail.error_code).toBe('RATE_LIMIT_EXCEEDED');
      expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThan(0);
    });

    it('rate-limits keyless uploads per address', async () => {
      const outcomes: boolean[] = [];
      for (let i = 0; i < 4; i++) outcomes.push((await keylessUpload(t.url)).ok);
      // Five keyless uploads came earlier in this suite; the limit is seven an hour.
      expect(outcomes).toEqual([true, true, false, false]);
      const limited = await keylessUpload(t.url);
      expect(limited.ok).toBe(false);
      expect(limited.error?.error_code).toBe('RATE_LIMIT_EXCEEDED');
    });
  });
}
