import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { registerAccount } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';

/**
 * Issue 21, must-work 4: concurrent genuine pairs on a busy 2-core machine all complete with the
 * grade a single upload gets; none fails, and each is metered exactly once. Before the decoder
 * watchdog measured the decoder's own processor time, 2 of 25 concurrent Canon 30D pairs failed
 * as "most likely corrupt" after 30 s on the clock (waiting for a core, not working).
 *
 * On the embedded database (the probe's setting) 25 pairs; the service analyses
 * WORKFLOW_CONCURRENCY (2) at a time, so the rest wait their turn, and every analysis competes
 * with the other for the two cores (and, in CI, with the other test files). Measured here at load
 * 20-25 (seven other engineers' tests beside it): 8.6 minutes. On PostgreSQL the analysis path is the same, so 8 pairs
 * (4 per analysis thread, the same contention per decode) prove its metering under concurrency
 * at a third of the cost. LOAD_PAIRS overrides both counts. No clock is asserted: only outcomes.
 */
const pairsOn = (target: string) => Number(process.env.LOAD_PAIRS ?? (target === 'pglite' ? 25 : 8));
const fixtures = path.resolve(import.meta.dirname, '../../../shared/fixtures');
const pairJpeg = fs.readFileSync(path.join(fixtures, 'pairs/canon_eos_30d_cr2/IMG_5952.camera-preview.jpg'));
const pairRaw = fs.readFileSync(path.join(fixtures, 'pairs/canon_eos_30d_cr2/IMG_5952.CR2'));

async function uploadPair(url: string, token: string): Promise<string> {
  const form = new FormData();
  form.append('image', new Blob([new Uint8Array(pairJpeg)]), 'IMG_5952.jpg');
  form.append('raw', new Blob([new Uint8Array(pairRaw)]), 'IMG_5952.CR2');
  const response = await fetch(`${url}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const body = await response.text();
  if (response.status !== 201) throw new Error(`pair upload answered ${response.status}: ${body}`);
  return (JSON.parse(body) as { id: string }).id;
}

for (const target of databaseTargets) {
  const PAIRS = pairsOn(target.name);
  describe(`${PAIRS} concurrent genuine pairs on ${target.name}`, () => {
    const { t, call } = serviceSuite(target);

    // Generous: each pair is seconds of CPU, and at load 10 on two cores 25 of them take many
    // minutes. The verification's own deadline (10 minutes from its upload) is the real limit.
    it('all complete with the grade one upload gets, none failed, each metered once', async () => {
      // Basic includes 25 a month: one account holds them all, so the usage counts them.
      const owner = await registerAccount(call, { plan: 'basic' });
      const ids = await Promise.all(Array.from({ length: PAIRS }, () => uploadPair(t.url, owner.token)));
      await t.settled();
      const views = await Promise.all(ids.map(async (id) => (await call('GET', `/v1/verifications/${id}`, { token: owner.token })).body));
      const outcomes = views.map((v) => `${v.status} ${v.assurance_level} ${v.result} ${v.failure_reason ?? ''}`.trim());
      // The grade of a single upload of this pair (test/http/verifications.test.ts).
      expect(outcomes).toEqual(Array.from({ length: PAIRS }, () => 'completed verified true'));
      const usage = (await call('GET', `/v1/accounts/${owner.account.id}/usage`, { token: owner.token })).body;
      expect(usage.included_used + usage.overage_count).toBe(PAIRS);
    }, 45 * 60_000);
  });
}
