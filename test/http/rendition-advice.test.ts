import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { missingRendition } from '../../src/features/verifications/rendition-advice.js';
import { databaseTargets } from '../support/databases.js';
import { waitForTerminal } from '../support/poll.js';
import { registerAccount, uploadImage } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';

const fixtures = path.resolve(import.meta.dirname, '../../../shared/fixtures');
const fixture = (name: string) => new Uint8Array(fs.readFileSync(path.join(fixtures, name)));

/**
 * Issue 21, defect 13: the badge's 404 said "Renditions appear when processing has completed"
 * for a pair whose processing had completed without a badge (it was not graded verified).
 */
for (const target of databaseTargets) {
  describe(`a missing badge explained on ${target.name}`, () => {
    const { t, call } = serviceSuite(target);
    let token: string;
    beforeAll(async () => {
      ({ token } = await registerAccount(call));
    }, 120_000);

    const badge = (id: string) => call('GET', `/v1/verifications/${id}/renditions/signed/original`, { token });

    it('for a completed pair that was not verified: finished, and why there is no badge', async () => {
      const form = new FormData();
      form.append('image', new Blob([fixture('images/mei_canon-eos450d.jpg')]), 'other.jpg');
      form.append('raw', new Blob([fixture('pairs/canon_eos_30d_cr2/IMG_5952.CR2')]), 'IMG_5952.CR2');
      const created = await fetch(`${t.url}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };
      const v = await waitForTerminal(call, token, id);
      expect(v).toMatchObject({ status: 'completed', verification_mode: 'raw_pair', assurance_level: 'flagged' });
      const res = await badge(id);
      expect([res.status, res.body.detail.error_code]).toEqual([404, 'VERIFICATION_NOT_FOUND']);
      expect(res.body.detail.message).toBe('This pair was graded flagged, not verified, so it has no badge: a badge is made only for a pair graded verified.');
      expect(`${res.body.detail.message} ${res.body.detail.suggestion}`).not.toMatch(/appears? when processing|not finished/);
    }, 600_000);

    it('for a completed image-only verification: badges are for pairs', async () => {
      const id = await uploadImage(t.url, token);
      expect((await waitForTerminal(call, token, id)).status).toBe('completed');
      const res = await badge(id);
      expect([res.status, res.body.detail.error_code]).toEqual([404, 'VERIFICATION_NOT_FOUND']);
      expect(res.body.detail.message).toMatch(/image-only verification has no badge/);
      expect(res.body.detail.suggestion).toMatch(/together with its RAW/);
    }, 120_000);
  });
}

describe('the missing rendition, case by case', () => {
  const row = { id: 'v1', verification_mode: 'raw_pair' as const, assurance_level: null };
  it('while processing: it is made when processing has finished', () => {
    for (const status of ['pending', 'queued', 'in_progress'] as const) {
      const error = missingRendition({ ...row, status }, 'badge');
      expect([error.code, error.message]).toEqual(['VERIFICATION_NOT_FOUND', 'Processing of this verification has not finished yet; the signed original with the badge strip is made when it has.']);
      expect(error.suggestion).toBe('Poll GET /v1/verifications/v1 until its status is completed, then ask again.');
    }
  });

  it('after a failure: there is none', () => {
    expect(missingRendition({ ...row, status: 'failed' }, 'thumbnail').message).toBe('Processing of this verification failed, so it has no thumbnail.');
  });

  it('a provisional pair: finished, not verified', () => {
    expect(missingRendition({ ...row, status: 'completed', assurance_level: 'provisional' }, 'badge').message).toMatch(/^This pair was graded provisional, not verified, so it has no badge/);
  });
});
