/**
 * Every HTML page and every file the service serves carries the hardening headers (issue 21,
 * must-work 6b), walked from /openapi.json so a new page or file route is checked the day it is
 * documented: every GET operation is requested with real ids and credentials (and its pre-signed
 * redirect followed), and page routes once more with a bad token for their HTML error page.
 * - Any non-JSON answer: `X-Content-Type-Options: nosniff`.
 * - An HTML page: a Content-Security-Policy that forbids framing (frame-ancestors 'none', or
 *   X-Frame-Options), and a Referrer-Policy.
 * - A client's file (image/*, application/octet-stream) from the service's own origin: a CSP
 *   that sandboxes it, should a browser render it as a document.
 */
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { addMember } from '../support/members.js';
import { client, registerAccount, startTestService, uploadImage, type TestService } from '../support/service.js';
import { appRequest, signIn } from '../support/webapp.js';
import { appAnswerProblems } from './page-headers.js';

interface Answer {
  what: string;
  status: number;
  headers: Headers;
}

const target = databaseTargets[0]!;

describe('hardening headers on every page and file', { timeout: 300_000 }, () => {
  let t: TestService;
  const answers: Answer[] = [];
  let operations = 0;

  beforeAll(async () => {
    t = await startTestService(target);
    const call = client(t.url);
    const owner = await registerAccount(call);
    const id = await uploadImage(t.url, owner.token);
    await t.settled();
    const share = await call('POST', `/v1/verifications/${id}/share`, { token: owner.token, json: { access_type: 'anyone_with_link' } });
    const shareToken = new URL(share.body.share_url).pathname.split('/').pop()!;
    const docsPage = await (await fetch(`${t.url}/docs`)).text();
    const asset = /\/docs\/assets\/([A-Za-z0-9._-]+)/.exec(docsPage)?.[1];
    expect(asset, 'the docs page loads an asset').toBeDefined();
    const values: Record<string, string> = { verification_id: id, token: shareToken, file: asset!, account_id: owner.account.id, stream: `verification-${id}` };
    const kinds = ['image', 'thumbnail', 'badge'];

    const doc = (await call('GET', '/openapi.json')).body;
    const fetchOne = async (what: string, url: string, headers: Record<string, string> = {}) => {
      const res = await fetch(url, { headers, redirect: 'manual' });
      await res.arrayBuffer();
      answers.push({ what, status: res.status, headers: res.headers });
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        const next = new URL(location, t.url);
        const followed = await fetch(`${t.url}${next.pathname}${next.search}`, { redirect: 'manual' });
        await followed.arrayBuffer();
        answers.push({ what: `${what} -> ${next.pathname}`, status: followed.status, headers: followed.headers });
      }
    };
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      if (!ops.get || path === '/mcp') continue;
      operations += 1;
      const names = (ops.get.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name as string);
      const fills: Record<string, string>[] = names.includes('kind') ? kinds.map((kind) => ({ ...values, kind })) : [values];
      for (const fill of fills) {
        const route = path.replace(/\{(\w+)\}/g, (_, name: string) => fill[name] ?? 'x');
        await fetchOne(`GET ${route}`, `${t.url}${route}`, { authorization: `Bearer ${owner.token}` });
        // The same page or file with a token that does not exist: its HTML error page.
        if (names.includes('token')) await fetchOne(`GET ${route} (unknown token)`, `${t.url}${route.replace(shareToken, 'no-such-share-token-at-all')}`);
      }
    }
  });
  afterAll(async () => t?.stop());

  const isHtml = (a: Answer) => /^text\/html/.test(a.headers.get('content-type') ?? '');
  const isClientFile = (a: Answer) => /^(image\/|application\/octet-stream)/.test(a.headers.get('content-type') ?? '');
  const isJson = (a: Answer) => /^application\/(.+\+)?json/.test(a.headers.get('content-type') ?? '');

  it('walked every GET operation, pages and files among them', () => {
    expect(operations).toBeGreaterThan(20);
    expect(answers.filter(isHtml).length).toBeGreaterThanOrEqual(4);
    expect(answers.filter((a) => isHtml(a) && a.status >= 400).length).toBeGreaterThanOrEqual(1);
    expect(answers.filter(isClientFile).length).toBeGreaterThanOrEqual(4);
    expect(answers.some((a) => a.what.includes('/blobs/') && a.status === 200)).toBe(true);
  });

  it('every non-JSON answer says nosniff', () => {
    const missing = answers.filter((a) => !isJson(a) && a.status !== 204 && !(a.status >= 300 && a.status < 400)).filter((a) => a.headers.get('x-content-type-options') !== 'nosniff');
    expect(missing.map((a) => `${a.what} (${a.status}, ${a.headers.get('content-type')})`)).toEqual([]);
  });

  it('every HTML page forbids framing in its CSP and sets a Referrer-Policy', () => {
    const weak = answers.filter(isHtml).flatMap((a) => {
      const csp = a.headers.get('content-security-policy') ?? '';
      const problems = [
        !csp && 'no Content-Security-Policy',
        !/frame-ancestors 'none'/.test(csp) && !/^(deny|sameorigin)$/i.test(a.headers.get('x-frame-options') ?? '') && 'framing allowed',
        !/default-src 'none'/.test(csp) && "no default-src 'none'",
        !a.headers.get('referrer-policy') && 'no Referrer-Policy',
      ].filter(Boolean);
      return problems.length ? [`${a.what} (${a.status}): ${problems.join(', ')}`] : [];
    });
    expect(weak).toEqual([]);
  });

  it("every client's file is sandboxed by its CSP", () => {
    const open = answers.filter(isClientFile).filter((a) => !/(^|;)\s*sandbox\b/.test(a.headers.get('content-security-policy') ?? ''));
    expect(open.map((a) => `${a.what} (${a.status})`)).toEqual([]);
  });
});

/**
 * The web app's pages (issue 27, must-work 4), signed in as a browser is: every GET route under
 * /app of /openapi.json with real ids (an admin's, so every page opens), its error page (an id
 * that does not exist) and its sign-in redirect, checked with page-headers.ts (CSP with the
 * page's nonce and nothing unsafe, no framing, nosniff, no-store, Referrer-Policy). The
 * authorisation matrix applies the same check to every /app answer as every caller.
 */
describe('hardening headers on every web app page', { timeout: 300_000 }, () => {
  let t: TestService;
  afterAll(async () => t?.stop());

  it('every /app page, its error page and its redirect send the hardening headers; a page’s nonce is new each time', async () => {
    t = await startTestService(target);
    const call = client(t.url);
    const owner = await registerAccount(call);
    const member = await addMember(call, owner, 'member', 'Header Member');
    const id = await uploadImage(t.url, owner.token);
    await t.settled();
    const key = await call('POST', '/v1/apikeys/', { token: owner.token, json: { account_id: owner.account.id, description: 'headers' } });
    expect(key.status).toBe(201);
    const { cookie } = await signIn(t.url, owner.email, owner.password);
    const values: Record<string, string> = { verification_id: id, kind: 'image', key_id: key.body.id, user_id: member.user.id };

    const doc = (await call('GET', '/openapi.json')).body as { paths: Record<string, { get?: unknown }> };
    const pages = Object.entries(doc.paths).filter(([path, ops]) => /^\/app(\/|$)/.test(path) && ops.get).map(([path]) => path);
    expect(pages.length).toBeGreaterThanOrEqual(10);
    const problems: string[] = [];
    const statuses: string[] = [];
    const check = async (what: string, path: string, withCookie: boolean) => {
      const answer = await appRequest(t.url, 'GET', path, withCookie ? { cookie } : {});
      statuses.push(`${what} ${answer.status}`);
      for (const problem of appAnswerProblems(new Headers(answer.headers), answer.status, answer.text)) problems.push(`${what} (${answer.status}): ${problem}`);
      return answer;
    };
    for (const template of pages) {
      const path = template.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? 'x');
      await check(`GET ${template}`, path, true);
      // Another id: the app's error page (404), with the same headers.
      if (template.includes('{verification_id}')) {
        const missing = await check(`GET ${template} (no such verification)`, path.replace(id, crypto.randomUUID()), true);
        expect(missing.status).toBe(404);
      }
      await check(`GET ${template} (signed out)`, path, false);
    }
    expect(problems).toEqual([]);
    // Pages, not only redirects: the list, a verification, the account's pages render as HTML.
    expect(statuses.filter((s) => s.endsWith(' 200')).length).toBeGreaterThanOrEqual(8);

    // The nonce is the page's own: two answers of one page carry two nonces, each the one its elements use.
    const nonceOf = (headers: Record<string, string>) => /'nonce-([^']+)'/.exec(headers['content-security-policy'] ?? '')?.[1];
    const first = await appRequest(t.url, 'GET', `/app/verifications/${id}`, { cookie });
    const second = await appRequest(t.url, 'GET', `/app/verifications/${id}`, { cookie });
    expect(nonceOf(first.headers)).toBeTruthy();
    expect(nonceOf(first.headers)).not.toBe(nonceOf(second.headers));
    expect(first.text).toContain(`nonce="${nonceOf(first.headers)}"`);
  });
});
