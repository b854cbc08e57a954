import { beforeAll, describe, expect, it } from 'vitest';
import { html } from '../../src/core/text/html.js';
import { levelWords } from '../../src/features/verifications/words.js';
import type { VerificationSection } from '../../src/web/verification-section.js';
import { VERIFICATION_SECTIONS } from '../../src/web/verification-sections.js';
import { databaseTargets } from '../support/databases.js';
import { uploadImage, uploadPair } from '../support/service.js';
import { withStartsHeld } from '../support/held-start.js';
import { serviceSuite } from '../support/suite.js';
import { appRequest, signIn, type AppSignIn } from '../support/webapp.js';

/**
 * The web app's verification page for its owner (issue 27, must-work 2): the whole report a
 * share link shows (level in words, analyses, heatmap, flicker, badge, hashes, the tamper-evident
 * record), the images served under /app to the session only, the account's sections after the
 * report, the progress of an unfinished verification, and the owner's history page.
 */


async function bytesOf(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers, redirect: 'follow' });
  return { status: response.status, type: response.headers.get('content-type') ?? '', bytes: Buffer.from(await response.arrayBuffer()) };
}

const csp = (headers: Record<string, string>) => headers['content-security-policy'] ?? '';

for (const target of databaseTargets) {
  describe(`web app verification page on ${target.name}`, () => {
    const { t, call, newAccount } = serviceSuite(target, { MAX_UPLOAD_BYTES: String(16 * 1024 * 1024) });
    const owner = newAccount({ name: 'Harbour Picture Desk' });
    const other = newAccount();
    let pair: string;
    let image: string;
    let mine: AppSignIn;
    let theirs: AppSignIn;

    beforeAll(async () => {
      [pair, image] = await Promise.all([uploadPair(t.url, owner.token), uploadImage(t.url, owner.token, 'images/rs_sample1.webp', 'harbour.webp')]);
      await t.settled();
      mine = await signIn(t.url, owner.email, owner.password);
      theirs = await signIn(t.url, other.email, other.password);
    }, 300_000);

    it('shows a completed pair’s whole report: the level in words, every analysis, heatmap, flicker, badge, hashes, the record', async () => {
      const api = (await call('GET', `/v1/verifications/${pair}`, { token: owner.token })).body;
      expect(api.status, JSON.stringify(api.failure_reason)).toBe('completed');
      const page = await appRequest(t.url, 'GET', `/app/verifications/${pair}`, { cookie: mine.cookie });
      expect(page.status).toBe(200);
      const text = page.text;
      expect(text).toContain('<h1>IMG_5952.jpg</h1>');
      // "On this page" links every card's heading, in the page's order (read from the cards themselves).
      const nav = text.slice(text.indexOf('aria-label="On this page"'), text.indexOf('</nav>', text.indexOf('aria-label="On this page"')));
      const linked = [...nav.matchAll(/href="#([^"]+)"/g)].map((m) => m[1]!);
      const headings = [...text.matchAll(/<h2 id="([^"]+)"/g)].map((m) => m[1]!);
      expect(linked).toEqual(headings);
      expect(linked).toEqual(expect.arrayContaining(['verdict-title', 'analyses-title', 'sharing-title']));
      // The level the API gives, and what it means for a pair, in the report page's words.
      const words = levelWords[api.assurance_level as keyof typeof levelWords];
      expect(text).toContain(`data-level="${api.assurance_level}">${words.label}</p>`);
      expect(text).toContain(words.pair);
      // Every analysis of a pair, by its name in words, one per result the API lists.
      const names = ['RAW integrity', 'Structural similarity (SSIM)', 'Perceptual hash', 'Colour histogram', 'Processing chain', 'EXIF comparison (advisory)', 'Sensor noise pattern', 'Recapture detection'];
      for (const name of names) expect(text).toContain(`<h3>${name}</h3>`);
      const analyses = text.slice(text.indexOf('id="analyses-title"'), text.indexOf('</ul>', text.indexOf('id="analyses-title"')));
      expect(analyses.match(/<h3>/g)?.length).toBe(api.results.length);
      // The pair's visuals and the report's other sections, their images from the app's own routes.
      const file = (kind: string) => `/app/verifications/${pair}/files/${kind}`;
      expect(text).toContain('Where the photo differs from the RAW');
      expect(text).toContain(`src="${file('heatmap')}"`);
      expect(text).toContain('id="flicker"');
      expect(text).toContain(`src="${file('raw_reference')}"`);
      expect(text).toContain(`src="${file('image')}"`);
      if (api.result === true) expect(text).toContain(`src="${file('badge')}"`);
      expect(text).toContain(api.image_photo_hash.replace(/^sha256:/, ''));
      expect(text).toContain(api.raw_photo_hash.replace(/^sha256:/, ''));
      expect(text).toContain('Tamper-evident record');
      // The badge's corner date is said to be the verification's, not the capture's (the rendition's own stamp format).
      if (api.result === true) expect(text).toMatch(/The date in the photo’s corner is the date of this verification \(\d{1,2} [A-Z]{3} (&#39;|')\d{2}\), not when the photo was taken\./);
      expect(text).toContain(`href="/app/verifications/${pair}/history"`);
      // No share-link URL: the owner's page names its files under /app only.
      expect(text).not.toContain('/shared/');
      // The flicker's script runs under the page's nonce; the page is not following anything.
      const nonce = /script-src 'nonce-([^']+)'/.exec(csp(page.headers))?.[1];
      expect(nonce).toBeTruthy();
      expect(text).toContain(`<script nonce="${nonce}">`);
      expect(text).not.toContain('id="progress"');
    });

    it('serves the report’s images to the owner’s session only: the same bytes the API gives, 404 to another account, sign-in when signed out', async () => {
      const api = (await call('GET', `/v1/verifications/${pair}`, { token: owner.token })).body;
      const kinds = ['image', 'thumbnail', 'heatmap', 'raw_reference', ...(api.result === true ? ['badge'] : [])];
      for (const kind of kinds) {
        const served = await bytesOf(`${t.url}/app/verifications/${pair}/files/${kind}`, { cookie: mine.cookie });
        expect([kind, served.status]).toEqual([kind, 200]);
        expect(served.type, kind).toMatch(/^image\//);
        expect(served.bytes.length, kind).toBeGreaterThan(100);
      }
      // The API's rendition routes (a redirect to a pre-signed URL) give the very same files.
      for (const [kind, route] of [
        ['thumbnail', 'renditions/thumbnail'],
        ['image', 'image'],
        ...(api.result === true ? [['badge', 'renditions/signed/original']] : []),
      ] as [string, string][]) {
        const viaApi = await bytesOf(`${t.url}/v1/verifications/${pair}/${route}`, { authorization: `Bearer ${owner.token}` });
        const viaApp = await bytesOf(`${t.url}/app/verifications/${pair}/files/${kind}`, { cookie: mine.cookie });
        expect([kind, viaApi.status]).toEqual([kind, 200]);
        expect(viaApp.bytes.equals(viaApi.bytes), kind).toBe(true);
      }
      // Another account's session: every route of the page is 404, nothing of the file.
      for (const suffix of ['', '/files/image', '/files/heatmap', '/status', '/history', '/history/bundle']) {
        const foreign = await appRequest(t.url, 'GET', `/app/verifications/${pair}${suffix}`, { cookie: theirs.cookie });
        expect([suffix, foreign.status]).toEqual([suffix, 404]);
        expect(foreign.text).not.toContain('IMG_5952');
      }
      // Header credentials are not the app's: an API token alone is a signed-out browser.
      const signedOut = await appRequest(t.url, 'GET', `/app/verifications/${pair}/files/image`, { headers: { authorization: `Bearer ${owner.token}` } });
      expect([signedOut.status, signedOut.location]).toEqual([303, '/app/login']);
      // A file a verification does not have, and a kind there is not.
      expect((await appRequest(t.url, 'GET', `/app/verifications/${image}/files/heatmap`, { cookie: mine.cookie })).status).toBe(404);
      expect((await appRequest(t.url, 'GET', `/app/verifications/${pair}/files/secrets`, { cookie: mine.cookie })).status).toBe(404);
    });

    it('renders the account’s sections after the report, in order, and lets their scripts run', async () => {
      const sections = VERIFICATION_SECTIONS as VerificationSection[];
      const seen: string[] = [];
      const added: VerificationSection[] = [
        {
          id: 'test-first',
          render: async ({ verification, session }) => {
            seen.push(`${verification.id} ${session.principal.accountId}`);
            return html`<section id="test-first"><h2>First test section</h2></section>`;
          },
        },
        { id: 'test-absent', render: async () => null },
        { id: 'test-second', script: true, render: async ({ nonce }) => html`<section id="test-second"><h2>Second test section</h2><script nonce="${nonce}">document.title += '';</script></section>` },
      ];
      sections.push(...added);
      try {
        const page = await appRequest(t.url, 'GET', `/app/verifications/${image}`, { cookie: mine.cookie });
        expect(page.status).toBe(200);
        expect(seen).toEqual([`${image} ${owner.account.id}`]);
        const at = (marker: string) => page.text.indexOf(marker);
        expect(at('id="anchor-title"')).toBeGreaterThan(0);
        expect(at('id="test-first"')).toBeGreaterThan(at('id="anchor-title"'));
        expect(at('id="test-second"')).toBeGreaterThan(at('id="test-first"'));
        expect(page.text).not.toContain('test-absent');
        const nonce = /script-src 'nonce-([^']+)'/.exec(csp(page.headers))?.[1];
        expect(page.text).toContain(`<script nonce="${nonce}">document.title`);
        // The image-only report's own parts: its level in words, the Content Credentials section.
        const api = (await call('GET', `/v1/verifications/${image}`, { token: owner.token })).body;
        expect(page.text).toContain(levelWords[api.assurance_level as keyof typeof levelWords].imageOnly);
        expect(page.text).toContain('Content Credentials');
      } finally {
        sections.splice(sections.length - added.length, added.length);
      }
    });

    it('follows an unfinished verification: a refresh without JavaScript, the status route with it, until it completes', async () => {
      // The verification's workflow held: it stays queued until released.
      const held = await withStartsHeld(t, () => uploadImage(t.url, owner.token, 'images/rs_sample1.webp', 'waiting.webp'));
      const id = held.id;
      const status = async () => appRequest(t.url, 'GET', `/app/verifications/${id}/status`, { cookie: mine.cookie });
      const before = await status();
      expect(before.status).toBe(200);
      expect(JSON.parse(before.text)).toEqual({ status: 'queued', assurance_level: null });
      const page = await appRequest(t.url, 'GET', `/app/verifications/${id}`, { cookie: mine.cookie });
      expect(page.status).toBe(200);
      expect(page.text).toContain('id="progress"');
      expect(page.text).toContain('data-status="queued"');
      expect(page.text).toContain(`data-status-url="/app/verifications/${id}/status"`);
      expect(page.text).toMatch(/<noscript><meta http-equiv="refresh" content="\d+"><\/noscript>/);
      expect(csp(page.headers)).toMatch(/script-src 'nonce-[^']+'; connect-src 'self'/);
      // The status route is the owner's only.
      expect((await appRequest(t.url, 'GET', `/app/verifications/${id}/status`, { cookie: theirs.cookie })).status).toBe(404);

      await held.release();
      await t.settled();
      expect(JSON.parse((await status()).text).status).toBe('completed');
      const done = await appRequest(t.url, 'GET', `/app/verifications/${id}`, { cookie: mine.cookie });
      expect(done.text).not.toContain('id="progress"');
      expect(done.text).not.toContain('http-equiv="refresh"');
    }, 120_000);

    it('opens the owner’s history page, whose bundle is the API’s audit bundle, with the checks allowed to run', async () => {
      const history = await appRequest(t.url, 'GET', `/app/verifications/${pair}/history`, { cookie: mine.cookie });
      expect(history.status).toBe(200);
      expect(history.text).toContain('History of a verification');
      expect(history.text).toContain('IMG_5952.jpg');
      expect(history.text).toContain(`data-bundle="/app/verifications/${pair}/history/bundle"`);
      expect(history.text).toContain('data-verifier="/assets/audit-verify.js"');
      expect(history.text).toContain(`href="/app/verifications/${pair}"`);
      // The verifier module from this origin, the bundle and certificate fetched from it.
      expect(csp(history.headers)).toContain("script-src 'self' 'nonce-");
      expect(csp(history.headers)).toContain("connect-src 'self'");
      const bundle = await appRequest(t.url, 'GET', `/app/verifications/${pair}/history/bundle`, { cookie: mine.cookie });
      expect(bundle.status).toBe(200);
      const api = await call('GET', `/v1/verifications/${pair}/audit-bundle`, { token: owner.token });
      const own = JSON.parse(bundle.text);
      expect(own.format).toBe(api.body.format);
      expect(own.verification.id).toBe(pair);
      expect(own.streams).toEqual(api.body.streams);
      expect(own.anchors).toEqual(api.body.anchors);
      // Every event of the verification's stream is on the page.
      for (const event of api.body.streams[`verification-${pair}`] as { hash: string }[]) expect(history.text).toContain(event.hash);
      // Signed out: to sign in, nothing shown.
      const signedOut = await appRequest(t.url, 'GET', `/app/verifications/${pair}/history`);
      expect([signedOut.status, signedOut.location, signedOut.text]).toEqual([303, '/app/login', '']);
    });

  });
}
