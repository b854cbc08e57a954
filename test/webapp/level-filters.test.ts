import { beforeAll, describe, expect, it } from 'vitest';
import { levelWords } from '../../src/features/verifications/index.js';
import { DEADLINE_REASON } from '../../workflows/verifications/workflow.js';
import { databaseTargets } from '../support/databases.js';
import { waitForTerminal } from '../support/poll.js';
import { seedPair } from '../support/seed-verifications.js';
import { uploadImage } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';
import { appRequest, signIn } from '../support/webapp.js';

/**
 * The web app's honest filters (issue 39 item 2): the list filters by the level its pills show,
 * labelled as the pills are; no "Not authentic" filter; an unsigned plain JPEG never appears
 * under Flagged; a failed verification is a grey state of its own, in the list and on the
 * report, with a plain reason from its recorded failure and what to do next, never blaming the
 * files for the service's own fault; ?request_id= and ?sort_by= are taken as the API takes them.
 */
for (const target of databaseTargets) {
  describe(`web app level filters and failures on ${target.name}`, { timeout: 10 * 60_000 }, () => {
    const { t, call, newAccount } = serviceSuite(target);
    const owner = newAccount();
    const ids: Record<string, string> = {};
    let cookie: string;

    const page = (path: string) => appRequest(t.url, 'GET', path, { cookie });
    /** The verification links of a list page, in order. */
    const linked = (html: string) => [...html.matchAll(/class="name" href="\/app\/verifications\/([0-9a-f-]{36})"/g)].map((m) => m[1]);
    /** The list row of one verification. */
    const rowOf = (html: string, id: string) => {
      const at = html.indexOf(`href="/app/verifications/${id}"`);
      expect(at, id).toBeGreaterThan(0);
      return html.slice(html.lastIndexOf('<li>', at), html.indexOf('</li>', at));
    };

    beforeAll(async () => {
      ids.plain = await uploadImage(t.url, owner.token, 'images/mei_nikon-d70.jpg', 'plain.jpg');
      ids.tampered = await uploadImage(t.url, owner.token, 'c2pa/pt_adobe-20220124-E-dat-CA.jpg', 'tampered.jpg');
      for (const id of [ids.plain, ids.tampered]) await waitForTerminal(call, owner.token, id!);
      const accountId = owner.account.id;
      ids.verified = await seedPair(t, accountId, 'verified', { level: 'verified', end: 'completed' });
      // Graded flagged, then a later step failed: its level is stored, its pill is the failed state.
      ids.flaggedThenFailed = await seedPair(t, accountId, 'late-failure', { level: 'flagged', end: { reason: DEADLINE_REASON, fault: 'service' } });
      // The service's own fault, whatever the reason's words say about a file.
      ids.serviceFault = await seedPair(t, accountId, 'busy', { level: null, end: { reason: 'This CR2 file cannot be analysed: the decoder stalled.', fault: 'service' } });
      ids.rawRefused = await seedPair(t, accountId, 'metadata-only', { level: null, end: { reason: "This CR2 file cannot be analysed: the file holds camera metadata but no sensor data: it has no media data ('mdat') box.", fault: 'input' } });
      await t.settled();
      cookie = (await signIn(t.url, owner.email, owner.password)).cookie;
    });

    it('offers the levels with the pills’ labels and no “Not authentic” result filter', async () => {
      const list = await page('/app/verifications');
      expect(list.status).toBe(200);
      const select = list.text.slice(list.text.indexOf('<select id="assurance_level"'), list.text.indexOf('</select>', list.text.indexOf('<select id="assurance_level"')));
      for (const [level, words] of Object.entries(levelWords)) expect(select).toContain(`<option value="${level}">${words.label}</option>`);
      expect(list.text).not.toContain('Not authentic');
      expect(list.text).not.toContain('name="result"');
      // The pills say the same labels.
      expect(rowOf(list.text, ids.verified!)).toContain(`<span class="pill level-verified">${levelWords.verified.label}</span>`);
      expect(rowOf(list.text, ids.plain!)).toContain(`<span class="pill level-unrated">${levelWords.unrated.label}</span>`);
      // The legacy result filter is gone from the page (it grouped unrated files with flagged ones).
      expect((await page('/app/verifications?result=false')).status).toBe(422);
    });

    it('never lists an unsigned plain JPEG under Flagged, nor a failed verification under its stored level', async () => {
      const flagged = await page('/app/verifications?assurance_level=flagged');
      expect(flagged.status).toBe(200);
      expect(linked(flagged.text)).toEqual([ids.tampered]);
      expect(flagged.text).toContain('<option value="flagged" selected>Flagged</option>');
      expect(linked((await page('/app/verifications?assurance_level=unrated')).text)).toEqual([ids.plain]);
      // Several levels, as the API takes them, labelled with the pills' words.
      const several = await page('/app/verifications?assurance_level=verified,flagged');
      expect(new Set(linked(several.text))).toEqual(new Set([ids.verified, ids.tampered]));
      expect(several.text).toContain('<option value="verified,flagged" selected>Verified or Flagged</option>');
      // A level and the failed status: failed ones show no level, so nothing.
      expect(linked((await page('/app/verifications?assurance_level=flagged&status=failed')).text)).toEqual([]);
      // The API's own refusal of an unknown level, as a page.
      const refused = await page('/app/verifications?assurance_level=not_authentic');
      expect(refused.status).toBe(422);
      expect(refused.text).toContain('Invalid assurance_level filter');
    });

    it('shows a failed verification as its own grey state with a plain reason and the next step, never Flagged’s red', async () => {
      const list = (await page('/app/verifications')).text;
      const late = rowOf(list, ids.flaggedThenFailed!);
      expect(late).toContain('<span class="pill state-failed">Not completed</span>');
      expect(late).not.toContain('level-flagged');
      expect(late).not.toContain('No result yet');
      expect(late).toContain('within the 10 minutes');
      const busy = rowOf(list, ids.serviceFault!);
      expect(busy).toContain('This is not a problem with your files');
      expect(busy).not.toContain('could not be analysed');
      const refused = rowOf(list, ids.rawRefused!);
      expect(refused).toContain('The RAW file metadata-only.CR2 (CR2) could not be analysed.');

      const report = await page(`/app/verifications/${ids.rawRefused}`);
      expect(report.status).toBe(200);
      expect(report.text).toContain('<p class="level state-failed">Not completed</p>');
      expect(report.text).not.toContain('class="level level-flagged"');
      expect(report.text).toContain('<strong>What to do next:</strong> Upload the pair again with the RAW file exactly as the camera wrote it');
      expect(report.text).toMatch(/Supported RAW formats: [A-Z0-9, ]*CR2/);
      const service = await page(`/app/verifications/${ids.serviceFault}`);
      expect(service.text).toContain('data-fault="service"');
      expect(service.text).toContain('This is not a problem with your files, and it was not counted against your quota.');
      expect(service.text).toContain('Upload the same files again: the photo busy.JPG (JPG) with its RAW file busy.CR2 (CR2).');
      expect(service.text).not.toContain('The RAW file busy.CR2 (CR2) could not be analysed');
    });

    it('takes ?request_id=, ?sort_by= and ?sort_order= as the API does', async () => {
      const api = await call('GET', '/v1/verifications/?sort_by=updated_at&sort_order=asc', { token: owner.token });
      const sorted = await page('/app/verifications?sort_by=updated_at&sort_order=asc');
      expect(sorted.status).toBe(200);
      expect(linked(sorted.text)).toEqual(api.body.items.map((v: { id: string }) => v.id));
      expect(sorted.text).toContain('<option value="updated_at" selected>Last change</option>');
      expect((await page('/app/verifications?sort_by=size')).status).toBe(400);
      const request = await page('/app/verifications?request_id=6f1c1a8e-3f5d-4a43-9b0e-0c7c1d2e3f40');
      expect(request.status).toBe(200);
      expect(linked(request.text)).toEqual([]);
      expect(request.text).toContain('<input type="hidden" name="request_id" value="6f1c1a8e-3f5d-4a43-9b0e-0c7c1d2e3f40">');
      expect((await page('/app/verifications?request_id=not-a-uuid')).status).toBe(422);
    });
  });
}
