import { describe, expect, it } from 'vitest';
import { levelWords } from '../../src/features/verifications/index.js';
import { databaseTargets } from '../support/databases.js';
import { registerAccount, uploadImage, uploadPair } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';
import { appRequest, signIn } from '../support/webapp.js';

/**
 * Issue 39 item 5, live progress: the verification page follows its verification through a
 * server-sent events stream fed by the event log (read from the read model the page renders), one
 * `progress` event per step reached, ending once finished; the owner's rule is the API's.
 */

interface Progress {
  status: string;
  reached: string[];
  assurance_level: string | null;
  label: string | null;
}

/** The `progress` events of a stream, read until the server ends it. */
async function progressEvents(url: string, cookie: string): Promise<{ contentType: string | null; events: Progress[] }> {
  const response = await fetch(url, { headers: { cookie, accept: 'text/event-stream' } });
  expect(response.status).toBe(200);
  const text = await response.text();
  const events = text
    .split('\n\n')
    .filter((block) => block.startsWith('event: progress\n'))
    .map((block) => JSON.parse(block.split('\n').find((line) => line.startsWith('data: '))!.slice(6)) as Progress);
  return { contentType: response.headers.get('content-type'), events };
}

for (const target of databaseTargets) {
  describe(`live progress on ${target.name}`, () => {
    const { t, call } = serviceSuite(target);

    it('streams each step the log records, in order, ending with the level the API gives, and the page shows the steps', async () => {
      const a = await registerAccount(call);
      const { cookie } = await signIn(t.url, a.email, a.password);
      // A RAW pair: its analysis takes long enough for the stream to see it under way.
      const id = await uploadPair(t.url, a.token);
      const page = await appRequest(t.url, 'GET', `/app/verifications/${id}`, { cookie });
      const { contentType, events } = await progressEvents(`${t.url}/app/verifications/${id}/progress`, cookie);
      expect(contentType).toMatch(/^text\/event-stream/);
      expect(events.length).toBeGreaterThan(0);
      // Steps only accumulate, each event differs from the one before, and the last is the end.
      for (let i = 1; i < events.length; i++) {
        expect(events[i]!.reached.slice(0, events[i - 1]!.reached.length)).toEqual(events[i - 1]!.reached);
        expect(events[i]).not.toEqual(events[i - 1]);
      }
      const last = events.at(-1)!;
      const api = (await call('GET', `/v1/verifications/${id}`, { token: a.token })).body;
      expect(last.status).toBe(api.status);
      expect(api.status).toBe('completed');
      expect(last.reached).toEqual(['received', 'analysing', 'graded', 'finished']);
      expect(last.assurance_level).toBe(api.assurance_level);
      expect(last.label).toBe(levelWords[api.assurance_level as keyof typeof levelWords].label);
      // The page it was opened on showed the same steps, unless it was already finished then.
      if (!page.text.includes('id="progress"')) expect(events).toHaveLength(1);
      else {
        expect(page.text).toContain(`data-events-url="/app/verifications/${id}/progress"`);
        expect(page.text).toMatch(/<li data-step="received" class="done"/);
        expect(page.text).toContain('<li data-step="finished" class=""');
        expect(events.length).toBeGreaterThan(1);
      }
      // A finished verification: one event, then the stream ends.
      expect((await progressEvents(`${t.url}/app/verifications/${id}/progress`, cookie)).events).toEqual([last]);
    });

    it('is the owner’s only: another account’s verification is 404, a browser signed out is sent to sign in', async () => {
      const owner = await registerAccount(call);
      const other = await registerAccount(call);
      const id = await uploadImage(t.url, owner.token);
      const { cookie } = await signIn(t.url, other.email, other.password);
      const foreign = await appRequest(t.url, 'GET', `/app/verifications/${id}/progress`, { cookie });
      expect(foreign.status).toBe(404);
      expect(foreign.headers['content-type']).toMatch(/^text\/html/);
      const signedOut = await appRequest(t.url, 'GET', `/app/verifications/${id}/progress`);
      expect(signedOut.status).toBe(303);
      expect(signedOut.location).toMatch(/\/app\/login$/);
      expect((await appRequest(t.url, 'GET', '/app/verifications/not-a-uuid/progress', { cookie })).status).toBe(422);
    });
  });
}
