import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_COMMENT_LENGTH } from '../../src/features/comments/decider.js';
import { databaseTargets } from '../support/databases.js';
import { registerAccount, uploadImage } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';

/**
 * Issue 21, defect 13: 422 bodies came in two shapes for the same kind of rule (tags answered
 * the envelope, comments the list). The rule (docs/errors.md, "Two 422 shapes"): what the spec
 * names as 422 VALIDATION_ERROR (invalid tag name, too many tags, empty or oversized comment,
 * comment limit) answers `{detail: {error_code: 'VALIDATION_ERROR', message, suggestion}}`
 * whatever the size of the input; a body of the wrong shape (wrong type, missing or unknown
 * field, text that cannot be stored) answers the list `{detail: [{loc, msg, type}]}`.
 */
for (const target of databaseTargets) {
  describe(`422 shapes on ${target.name}`, () => {
    const { t, call } = serviceSuite(target);
    let token: string;
    let id: string;
    beforeAll(async () => {
      ({ token } = await registerAccount(call));
      id = await uploadImage(t.url, token);
      await t.settled(); // the upload's own workflow appends in the background: the event count below must not see it
    }, 120_000);

    const envelope = (res: { status: number; body: any }, what: string) => {
      expect([what, res.status, Array.isArray(res.body.detail), res.body.detail?.error_code]).toEqual([what, 422, false, 'VALIDATION_ERROR']);
      expect(res.body.detail.suggestion, what).toEqual(expect.any(String));
    };
    const list = (res: { status: number; body: any }, what: string) => {
      expect([what, res.status, Array.isArray(res.body.detail)]).toEqual([what, 422, true]);
      expect(res.body.detail[0], what).toMatchObject({ loc: expect.any(Array), msg: expect.any(String), type: expect.any(String) });
    };

    it('answers every rule the spec names with VALIDATION_ERROR in the envelope, however large the input', async () => {
      const comments = `/v1/verifications/${id}/comments`;
      const before = await t.eventCount();
      const cases: [string, string, string, unknown][] = [
        ['empty comment', 'POST', comments, { body: '' }],
        ['blank comment', 'POST', comments, { body: '  \n ' }],
        ['oversized comment', 'POST', comments, { body: 'x'.repeat(MAX_COMMENT_LENGTH + 1) }],
        ['far oversized comment', 'POST', comments, { body: 'x'.repeat(40_000) }],
        ['comment with a control character', 'POST', comments, { body: 'ring \u0007' }],
        ['empty tag name', 'POST', '/v1/tags/', { name: ' ' }],
        ['tag name of 41 characters', 'POST', '/v1/tags/', { name: 'x'.repeat(41) }],
        ['tag name of 1,001 characters', 'POST', '/v1/tags/', { name: 'x'.repeat(1001) }],
        ['tag colour of 101 characters', 'POST', '/v1/tags/', { name: 'sea', color: '#'.repeat(101) }],
        ['21 tags on a verification', 'PUT', `/v1/verifications/${id}/tags`, { tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }],
        ['101 tags on a verification', 'PUT', `/v1/verifications/${id}/tags`, { tags: Array.from({ length: 101 }, (_, i) => `t${i}`) }],
      ];
      for (const [what, method, route, json] of cases) envelope(await call(method, route, { token, json }), what);
      expect(await t.eventCount()).toBe(before);
    });

    it('answers a body of the wrong shape with the list form', async () => {
      const comments = `/v1/verifications/${id}/comments`;
      const cases: [string, string, string, unknown][] = [
        ['comment missing', 'POST', comments, {}],
        ['comment not a string', 'POST', comments, { body: 42 }],
        ['comment with an unknown field', 'POST', comments, { body: 'ok', pinned: true }],
        ['comment with a NUL', 'POST', comments, { body: 'a \u0000 b' }],
        ['tag name not a string', 'POST', '/v1/tags/', { name: 7 }],
        ['tags not a list', 'PUT', `/v1/verifications/${id}/tags`, { tags: 'sea' }],
      ];
      for (const [what, method, route, json] of cases) list(await call(method, route, { token, json }), what);
    });
  });
}
