import { describe, expect, it } from 'vitest';
import { prefersHtml } from '../../src/features/docs/negotiation.js';
import { databaseTargets } from '../support/databases.js';
import { serviceSuite } from '../support/suite.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

describe('content negotiation of GET /', () => {
  it('gives HTML only to clients that ask for it at least as much as for JSON', () => {
    expect(prefersHtml(BROWSER_ACCEPT)).toBe(true);
    expect(prefersHtml('text/html')).toBe(true);
    expect(prefersHtml(undefined)).toBe(false);
    expect(prefersHtml('*/*')).toBe(false);
    expect(prefersHtml('application/json')).toBe(false);
    expect(prefersHtml('application/json, text/html;q=0.5')).toBe(false);
    expect(prefersHtml('text/html;q=0')).toBe(false);
    expect(prefersHtml('text/html;q=nonsense, application/json')).toBe(false);
  });
});

for (const target of databaseTargets) {
  describe(`the front door and the API reference on ${target.name}`, () => {
    const { t, call } = serviceSuite(target, { PUBLIC_BASE_URL: 'https://verify.example.eu' });

    it('answers API clients at / with a JSON index of absolute links', async () => {
      for (const accept of [undefined, '*/*', 'application/json']) {
        const res = await call('GET', '/', { headers: accept ? { accept } : {} });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(res.headers.get('vary')).toMatch(/Accept/i);
        expect(res.body).toMatchObject({
          service: 'PhotoVerify',
          processing_region: 'eu-central-1',
          links: {
            app: 'https://verify.example.eu/app',
            documentation: 'https://verify.example.eu/docs',
            openapi: 'https://verify.example.eu/openapi.json',
            health: 'https://verify.example.eu/v1/public/health',
          },
        });
        expect(res.body.version).toMatch(/^\d+\.\d+\.\d+/);
      }
    });

    it('answers browsers at / with a small HTML page linking to the web app, the reference, the document and health', async () => {
      const res = await fetch(`${t.url}/`, { headers: { accept: BROWSER_ACCEPT } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
      const page = await res.text();
      for (const href of ['/app', '/docs', '/openapi.json', '/v1/public/health']) expect(page).toContain(`href="${href}"`);
      expect(page).toContain('<h1>PhotoVerify</h1>');
      expect(page).not.toMatch(/<script/);
    });

    it('serves the reference page at /docs from its own files only, under a CSP that allows no other host', async () => {
      const res = await fetch(`${t.url}/docs`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("default-src 'none'");
      // The only other origin named is the service's own public one ("Try it out" calls it).
      expect(csp.match(/https?:\/\/[^\s;]+/g) ?? []).toEqual(['https://verify.example.eu']);
      const page = await res.text();
      expect(page).toContain('data-spec="/openapi.json"');
      const assets = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((u) => u.startsWith('/docs/assets/'));
      expect(assets).toHaveLength(3);
      expect(page).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
      for (const asset of assets) {
        const file = await fetch(`${t.url}${asset}`);
        expect(file.status, asset).toBe(200);
        expect(file.headers.get('content-type')).toMatch(asset.includes('.css') ? /^text\/css/ : /^text\/javascript/);
        expect(file.headers.get('x-content-type-options')).toBe('nosniff');
        expect((await file.arrayBuffer()).byteLength).toBeGreaterThan(100);
      }
    });

    it('answers a file the reference page does not have, or a path out of the package, with a JSON 404', async () => {
      for (const name of ['nope.js', '..%2Fpackage.json', 'index.html', 'swagger-ui-bundle.js.map', 'constructor', '__proto__']) {
        const res = await call('GET', `/docs/assets/${name}`);
        expect(res.status, name).toBe(404);
        expect(res.body.detail.error_code).toBe('NOT_FOUND');
        expect(res.body.detail.suggestion).toContain('/docs');
      }
    });

    it('documents the pages in /openapi.json like every other route', async () => {
      const res = await call('GET', '/openapi.json');
      expect(res.body.paths['/'].get.responses['200'].content['application/json'].schema).toBeDefined();
      expect(res.body.paths['/docs'].get.responses['200'].content['text/html']).toBeDefined();
      expect(res.body.paths['/docs/assets/{file}'].get).toBeDefined();
      expect(res.body.paths['/'].get.responses['200'].content['text/html']).toBeDefined();
    });

    it('describes every error answer with its body, every redirect with its Location, and what /mcp takes and answers', async () => {
      const { paths, components } = (await call('GET', '/openapi.json')).body;
      const undescribed: string[] = [];
      for (const [p, methods] of Object.entries(paths as Record<string, Record<string, { responses: Record<string, any> }>>)) {
        for (const [method, operation] of Object.entries(methods)) {
          // Credentials sent but invalid are refused on every route, public ones too, but the health check, which reads none (issue 36 item 10).
          if (!p.startsWith('/mcp') && p !== '/v1/public/health' && !operation.responses['401']) undescribed.push(`${method} ${p}: 401`);
          for (const [status, response] of Object.entries(operation.responses)) {
            if (Number(status) >= 400 && !response.content) undescribed.push(`${method} ${p}: ${status} has no body`);
            if (Number(status) >= 300 && Number(status) < 400 && !response.headers?.Location) undescribed.push(`${method} ${p}: ${status} has no Location`);
          }
        }
      }
      expect(undescribed).toEqual([]);
      // A 422 is either shape: request validation (the list) or a domain rule (the envelope).
      const unprocessable = paths['/v1/tags/'].post.responses['422'].content['application/json'].schema;
      expect(components.schemas[unprocessable.$ref.split('/').pop()].anyOf.map((s: { $ref: string }) => s.$ref)).toEqual(['#/components/schemas/ValidationErrorList', '#/components/schemas/ErrorEnvelope']);
      // A page answers its errors with an HTML page.
      expect(Object.keys(paths['/shared/{token}'].get.responses['404'].content)).toEqual(['text/html']);
      const mcp = paths['/mcp'].post;
      expect(mcp.requestBody.content['application/json'].schema).toBeDefined();
      expect(Object.keys(mcp.responses['200'].content)).toEqual(['application/json', 'text/event-stream']);
      expect(mcp.responses['406'].content['application/json']).toBeDefined();
    });
  });
}
