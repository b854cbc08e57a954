import { Readable } from 'node:stream';
import { z } from 'zod';
import { publicBasePath } from '../../core/config.js';
import type { AppDeps } from '../../core/module/deps.js';
import { NotFoundError } from '../../core/errors.js';
import { contentSecurityPolicy, newNonce } from '../../core/text/html.js';
import { route, type RouteSpec } from '../../core/http/route-spec.js';
import { packageVersion } from '../../core/version.js';
import { docsAssets, swaggerUiVersion } from './assets.js';
import { prefersHtml } from './negotiation.js';
import { renderHomePage, renderReferencePage, serviceDescription, type Links } from './pages.js';

/**
 * The front door (docs/decisions/ D-044): `GET /` for people and for API clients, and the API
 * reference at `/docs`, rendered in the browser from `/openapi.json` by Swagger UI.
 */

const ASSETS_PREFIX = '/docs/assets/';

const indexSchema = z
  .object({
    service: z.string(),
    description: z.string(),
    version: z.string(),
    processing_region: z.string(),
    links: z.object({
      app: z.string().describe('The web app (HTML), where the people of an account sign in'),
      documentation: z.string().describe('The API reference page (HTML)'),
      openapi: z.string().describe('The OpenAPI 3.1 document'),
      health: z.string().describe('Service health (no authentication)'),
    }),
  })
  .openapi('ServiceIndex');

/** Pages load nothing but this origin's files; no framing, no forms posted elsewhere. */
const commonPageHeaders = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-cache',
};

export function docsRoutes(deps: AppDeps): RouteSpec[] {
  const { PUBLIC_BASE_URL, SERVICE_NAME, PROCESSING_REGION } = deps.config;
  const basePath = publicBasePath(deps.config);
  // The web app's path is its own feature's route (`/app`); a feature below it cannot import it.
  const pagePaths: Links = { app: `${basePath}/app`, docs: `${basePath}/docs`, openapi: `${basePath}/openapi.json`, health: `${basePath}/v1/public/health` };
  const origin = new URL(PUBLIC_BASE_URL).origin;

  return [
    route({
      method: 'get',
      path: '/',
      tag: 'documentation',
      summary: 'What this service is, and links to its web app, reference, OpenAPI document and health',
      description:
        'Content negotiation on `Accept`: a browser (`text/html` preferred) gets a small HTML page; any other client (`application/json`, `*/*`, none) gets this JSON index with absolute links.',
      auth: 'none',
      responses: { 200: { description: 'The JSON index (or, for `Accept: text/html`, an HTML page)', schema: indexSchema, contentTypes: ['application/json', 'text/html'] } },
      handler: async ({ header }) => {
        if (prefersHtml(header('accept'))) {
          const nonce = newNonce();
          return {
            status: 200,
            headers: {
              ...commonPageHeaders,
              Vary: 'Accept',
              'Content-Security-Policy': contentSecurityPolicy(`style-src 'nonce-${nonce}'`, 'img-src data:'),
            },
            html: renderHomePage({ serviceName: SERVICE_NAME, version: packageVersion, region: PROCESSING_REGION, links: pagePaths, nonce }),
          };
        }
        return {
          status: 200,
          headers: { Vary: 'Accept', 'Cache-Control': 'no-cache' },
          body: {
            service: SERVICE_NAME,
            description: serviceDescription,
            version: packageVersion,
            processing_region: PROCESSING_REGION,
            links: { app: `${PUBLIC_BASE_URL}/app`, documentation: `${PUBLIC_BASE_URL}/docs`, openapi: `${PUBLIC_BASE_URL}/openapi.json`, health: `${PUBLIC_BASE_URL}/v1/public/health` },
          },
        };
      },
    }),
    route({
      method: 'get',
      path: '/docs',
      tag: 'documentation',
      summary: 'The API reference (HTML), rendered from /openapi.json',
      description: 'Swagger UI, served from this service (no third-party hosts): every operation with its parameters, request and response schemas and errors.',
      auth: 'none',
      produces: 'text/html',
      responses: { 200: { description: 'The reference page', schema: z.string() } },
      handler: async () => ({
        status: 200,
        headers: {
          ...commonPageHeaders,
          // Swagger UI sets style attributes from its scripts; "Try it out" calls the API at PUBLIC_BASE_URL.
          'Content-Security-Policy': contentSecurityPolicy("script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data:", "font-src 'self' data:", `connect-src 'self' ${origin}`),
        },
        html: renderReferencePage({ serviceName: SERVICE_NAME, assetsPath: `${basePath}${ASSETS_PREFIX}`, openapi: pagePaths.openapi, assetVersion: `${packageVersion}-${swaggerUiVersion}` }),
      }),
    }),
    route({
      method: 'get',
      path: `${ASSETS_PREFIX}{file}`,
      tag: 'documentation',
      summary: 'A file of the API reference page (stylesheet, scripts)',
      description: `One of: ${Object.keys(docsAssets).join(', ')}.`,
      auth: 'none',
      params: z.object({ file: z.string() }),
      produces: 'text/javascript',
      responses: { 200: { description: 'The file', contentTypes: ['text/javascript', 'text/css'] }, 404: { description: 'NOT_FOUND: no such file' } },
      handler: async ({ params }) => {
        const asset = Object.hasOwn(docsAssets, params.file) ? docsAssets[params.file] : undefined;
        if (!asset) throw new NotFoundError('NOT_FOUND', `The reference page has no file ${params.file}.`, { suggestion: 'Open /docs.' });
        return {
          status: 200,
          headers: { 'Content-Type': asset.contentType, 'Cache-Control': 'public, max-age=3600', 'X-Content-Type-Options': 'nosniff' },
          stream: Readable.from([asset.bytes()]),
        };
      },
    }),
  ];
}
