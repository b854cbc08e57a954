import { html, htmlDocument } from '../../core/text/html.js';

/**
 * The two pages a person opens first: the service's front door at `/` and the API reference at
 * `/docs`. Both are static apart from the service name and paths, escaped by `html`.
 */

export interface Links {
  /** The web app, where the people of an account sign in. */
  app: string;
  docs: string;
  openapi: string;
  health: string;
}

export const serviceDescription =
  'Proves that a JPEG is a faithful rendering of a real camera RAW, or reads and validates the C2PA Content Credentials a file already carries, and keeps an auditable, replayable history of everything it did.';

/** `/` for a browser: what the service is and where to go next. Inline style under the response's nonce; no script. */
export function renderHomePage(input: { serviceName: string; version: string; region: string; links: Links; nonce: string }): string {
  const { serviceName, version, region, links, nonce } = input;
  return htmlDocument({
    title: `${serviceName}: photo authenticity verification API`,
    nonce,
    icon: 'data:,',
    style: html`
  body { font: 1rem/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; color: #1b1f24; background: #fafafa; }
  main { max-width: 42rem; margin: 0 auto; padding: 2rem 1.25rem; }
  h1 { font-size: 1.6rem; margin: 0 0 .5rem; }
  a { color: #0b57d0; }
  li { margin: .4rem 0; }
  code { font-size: .95em; }
  .meta { color: #555; font-size: .9rem; }
  .doors { display: flex; flex-wrap: wrap; gap: .75rem; margin: 1.25rem 0; }
  .door { display: inline-block; min-height: 44px; box-sizing: border-box; padding: .65rem 1.2rem; border-radius: 4px; border: 2px solid #0b57d0; text-decoration: none; font-weight: 600; }
  .door:first-child { background: #0b57d0; color: #fff; }
`,
    body: html`<main>
<h1>${serviceName}</h1>
<p>${serviceDescription}</p>
<p class="doors"><a class="door" href="${links.app}/login">Sign in</a> <a class="door" href="${links.app}/signup">Create an account</a></p>
<p>The people of an account work in the <a href="${links.app}">web app</a>: upload a JPEG with its camera RAW or a file with Content Credentials, read its report, share it. Forgot your password? <a href="${links.app}/password-reset">Reset it by e-mail</a>.</p>
<p>Programs use the HTTP/JSON API. Every call but a few public ones (health, registration, login) needs an API key (<code>X-API-Key</code>) or a login token (<code>Authorization: Bearer</code>); the quick start in the README shows how to get one.</p>
<ul>
  <li><a href="${links.docs}">API reference</a>: every endpoint, its parameters, responses and errors</li>
  <li><a href="${links.openapi}">OpenAPI 3.1 document</a> (<code>/openapi.json</code>), for code generators and API tools</li>
  <li><a href="${links.health}">Service health</a>: the state of each dependency</li>
</ul>
<p class="meta">Version ${version}. Processing region ${region}.</p>
</main>`,
  });
}

/** `/docs`: Swagger UI rendering `/openapi.json`, from the package's own files (assets.ts). */
export function renderReferencePage(input: { serviceName: string; assetsPath: string; openapi: string; assetVersion: string }): string {
  const { serviceName, assetsPath, openapi, assetVersion } = input;
  const asset = (file: string) => `${assetsPath}${file}?v=${assetVersion}`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${serviceName} API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${asset('swagger-ui.css')}">
</head>
<body>
<noscript><p>The interactive reference needs JavaScript. The API is described in <a href="${openapi}">${openapi}</a> (OpenAPI 3.1).</p></noscript>
<main id="swagger-ui" data-spec="${openapi}"></main>
<script src="${asset('swagger-ui-bundle.js')}"></script>
<script src="${asset('start.js')}"></script>
</body>
</html>
`.value;
}
