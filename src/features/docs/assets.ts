import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * The files of the API reference page, served from the installed `swagger-ui-dist` package (no
 * CDN: the page works offline and its Content-Security-Policy allows only this origin), plus the
 * few lines that start it. Only the files named here are served: nothing else in node_modules
 * is reachable by a crafted name.
 */
const swaggerUiDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/**
 * Starts Swagger UI on the element that names the document (a file, not an inline script: the
 * page's CSP forbids inline scripts). `validatorUrl: null`: by default Swagger UI sends the
 * document to an online validator, which would be an outbound request.
 */
const startScript = `(() => {
  const root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: root.dataset.spec,
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    displayRequestDuration: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
})();
`;

export interface Asset {
  contentType: string;
  /** The file's bytes, read on first use and kept (a few MB, and the same for every request). */
  bytes(): Buffer;
}

const fromPackage = (file: string, contentType: string): Asset => {
  let cached: Buffer | undefined;
  return { contentType, bytes: () => (cached ??= fs.readFileSync(path.join(swaggerUiDir, file))) };
};

export const docsAssets: Record<string, Asset> = {
  'swagger-ui.css': fromPackage('swagger-ui.css', 'text/css; charset=utf-8'),
  'swagger-ui-bundle.js': fromPackage('swagger-ui-bundle.js', 'text/javascript; charset=utf-8'),
  'start.js': { contentType: 'text/javascript; charset=utf-8', bytes: () => Buffer.from(startScript) },
};

/** The version of the renderer, so a cached copy changes when the package does. */
export const swaggerUiVersion: string = (JSON.parse(fs.readFileSync(path.join(swaggerUiDir, 'package.json'), 'utf8')) as { version: string }).version;
