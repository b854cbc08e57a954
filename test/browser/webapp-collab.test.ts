/**
 * The verification page's tags and comments (issue 27, must-work 2) in real Chromium (Debian's,
 * driven by playwright-core), at 390 px and 1280 px: add one of the account's tags, create a tag,
 * a refused name, remove a tag; comment, a refused empty comment, edit, delete. Each step is seen
 * through the REST API, and each page checked with axe-core, for horizontal scrolling and console
 * errors. Screenshots in test-artifacts/webapp/collab-*.png (gitignored) for a person to look at.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { chromiumGate, pageCheck, pageProblems, signInPage, suiteChromium, viewports } from '../support/chromium.js';
import { uploadImage } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';

const gate = chromiumGate('the web app’s tags and comments in a browser');
const artifacts = path.resolve(import.meta.dirname, '../../test-artifacts/webapp');

gate.describe('tags and comments on the web app’s verification page in Chromium', () => {
  const { t, call, newAccount } = serviceSuite(databaseTargets[0]!);
  const owner = newAccount({ name: 'Harbour Picture Desk' });
  const browser = suiteChromium();
  const ids: Record<number, string> = {};

  const checkPage = pageCheck(artifacts);

  const apiTags = async (id: string) => ((await call('GET', `/v1/verifications/${id}`, { token: owner.token })).body.tags as { name: string }[]).map((tag) => tag.name);
  const apiComments = async (id: string) => (await call('GET', `/v1/verifications/${id}/comments`, { token: owner.token })).body.items as { body: string; edited_at: string | null }[];

  beforeAll(async () => {
    fs.mkdirSync(artifacts, { recursive: true });
    for (const { width } of viewports) ids[width] = await uploadImage(t.url, owner.token, 'images/rs_sample1.webp', `harbour-at-dawn-${width}.webp`);
    expect((await call('POST', '/v1/tags/', { token: owner.token, json: { name: 'Contest' } })).status).toBe(201);
    await t.settled();
  }, 300_000);

  for (const viewport of viewports) {
    it(`at ${viewport.width} px: tag, create a tag, untag; comment, edit, delete`, async () => {
      const id = ids[viewport.width]!;
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      const problems = pageProblems(page);
      /** A refused form is answered with its 4xx, which Chromium reports on the console: that one message, then none. */
      const expectRefusal = (status: string) => {
        expect(problems).toEqual([`console error: Failed to load resource: the server responded with a status of ${status}`]);
        problems.length = 0;
      };
      try {
        await signInPage(page, t.url, owner.email, owner.password);
        await page.goto(`${t.url}/app/verifications/${id}`);
        const tags = page.locator('section#tags');
        await expect.poll(() => tags.textContent()).toContain('No tags yet.');

        // Add one of the account's tags.
        await page.getByLabel('Add one of your tags').selectOption('Contest');
        await tags.getByRole('button', { name: 'Add', exact: true }).click();
        await page.waitForURL(`${t.url}/app/verifications/${id}#tags`);
        expect(await apiTags(id)).toEqual(['Contest']);

        // Create a tag and add it.
        const created = `Dawn light 🌅 ${viewport.width}`;
        await page.getByLabel('New tag').fill(created);
        await page.getByRole('button', { name: 'Create and add' }).click();
        await expect.poll(() => tags.locator('.chips li').allTextContents()).toEqual(['Contest×', `${created}×`]);
        expect(await apiTags(id)).toEqual(['Contest', created]);
        await checkPage(page, `collab-tags-${viewport.width}`);

        // A name the account already has: the page again, saying so, nothing stored.
        await page.getByLabel('New tag').fill('contest');
        await page.getByRole('button', { name: 'Create and add' }).click();
        await expect.poll(() => tags.getByRole('alert').textContent()).toContain('contest');
        expectRefusal('409 (Conflict)');
        expect(await page.getByLabel('New tag').inputValue()).toBe('contest');
        await checkPage(page, `collab-tag-refused-${viewport.width}`);
        expect(await apiTags(id)).toEqual(['Contest', created]);

        // Remove one: it leaves the verification.
        await page.getByRole('button', { name: 'Remove the tag Contest' }).click();
        await expect.poll(() => tags.locator('.chips li').allTextContents()).toEqual([`${created}×`]);
        expect(await apiTags(id)).toEqual([created]);

        // Comment.
        const comments = page.locator('section#comments');
        await page.getByLabel('Add a comment').fill('The shadows point north-west.\nConsistent with the EXIF time.');
        await page.getByRole('button', { name: 'Add comment' }).click();
        await expect.poll(async () => (await apiComments(id)).map((c) => c.body)).toEqual(['The shadows point north-west.\nConsistent with the EXIF time.']);
        await expect.poll(() => comments.locator('.comment-body').allTextContents()).toEqual(['The shadows point north-west.\nConsistent with the EXIF time.']);
        expect(await comments.locator('.comment-meta').textContent()).toContain(owner.user.name);
        await checkPage(page, `collab-comment-${viewport.width}`);

        // White space alone is refused (the browser's `required` lets it through; the use case does not).
        await page.getByLabel('Add a comment').fill('   ');
        await page.getByRole('button', { name: 'Add comment' }).click();
        await expect.poll(() => comments.getByRole('alert').textContent()).toContain('The comment is empty.');
        expectRefusal('422 (Unprocessable Entity)');
        await checkPage(page, `collab-comment-refused-${viewport.width}`);
        expect(await apiComments(id)).toHaveLength(1);

        // Edit in place: the link opens the form, Save stores it, the comment says it was edited.
        await comments.getByRole('link', { name: /^Edit your comment/ }).click();
        await page.getByLabel('Edit your comment').fill('The shadows point north-west: consistent with the EXIF time.');
        await checkPage(page, `collab-editing-${viewport.width}`);
        await page.getByRole('button', { name: 'Save' }).click();
        await expect.poll(() => comments.locator('.comment-body').allTextContents()).toEqual(['The shadows point north-west: consistent with the EXIF time.']);
        const [edited] = await apiComments(id);
        expect(edited!.body).toBe('The shadows point north-west: consistent with the EXIF time.');
        expect(edited!.edited_at).not.toBeNull();
        expect(await comments.locator('.comment-meta').textContent()).toContain('edited');
        await checkPage(page, `collab-edited-${viewport.width}`);

        // Delete.
        await comments.getByRole('button', { name: /^Delete the comment/ }).click();
        await expect.poll(() => comments.textContent()).toContain('No comments yet.');
        expect(await apiComments(id)).toEqual([]);
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    }, 240_000);
  }
});
