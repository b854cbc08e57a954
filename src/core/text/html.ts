/**
 * Server-rendered HTML without a template engine: one escaping function and one tagged template.
 * Every value interpolated into `html` is escaped unless it is already `Html` (the result of
 * another `html` call), so markup can only come from template literals in the source.
 */
import crypto from 'node:crypto';

const MADE_HERE = Symbol('html');

/** Markup built by `html` or `joinHtml`, never from a plain string (the constructor refuses other callers). */
export class Html {
  constructor(
    key: symbol,
    readonly value: string,
  ) {
    if (key !== MADE_HERE) throw new Error('Html is made by the html tagged template only');
  }

  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as HTML text or attribute value (double- or single-quoted). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** A value in a template: Html as is, arrays item by item, null/undefined/false as nothing, anything else escaped text. */
function render(value: unknown): string {
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** html`<p>${text}</p>`: the literal parts are markup, every interpolated value is escaped. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new Html(MADE_HERE, out);
}

/** Items joined by a separator (itself escaped unless Html). */
export function joinHtml(items: unknown[], separator: unknown = ''): Html {
  return new Html(MADE_HERE, items.map(render).join(render(separator)));
}

/** A fresh nonce for one answer's Content-Security-Policy (the page's inline style and scripts carry it). */
export const newNonce = (): string => crypto.randomBytes(16).toString('base64');

/**
 * A page's Content-Security-Policy: nothing may load but what `allowed` names, and no page may
 * set a base URL, submit a form natively, or be framed (every page of the service is one of these).
 */
export function contentSecurityPolicy(...allowed: string[]): string {
  return ["default-src 'none'", ...allowed, "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'"].join('; ');
}

/** Headers of a page reached through a secret link (share token, invitation): never indexed, cached, or referred on. */
export const privatePageHeaders: Readonly<Record<string, string>> = {
  'X-Robots-Tag': 'noindex, nofollow',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
};

export interface HtmlDocument {
  title: string;
  /** The response's CSP nonce, which lets the inline style and script run. */
  nonce: string;
  /** The page's inline stylesheet. */
  style: Html;
  body: Html;
  /** The page's inline script, if it has one. */
  script?: Html;
  /** A page reached through a secret link: not indexed, and no referrer sent on (the headers say so too: privatePageHeaders). */
  private?: boolean;
  /** The icon's URL (a data: URL keeps the browser from asking for /favicon.ico). */
  icon?: string;
}

/**
 * The one HTML page shell of the service's pages: the document, its head (character set,
 * viewport, robots and referrer for a private page, title, icon, the inline style under the
 * nonce), the page's body, and its inline script under the same nonce.
 */
export function htmlDocument(page: HtmlDocument): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${page.private ? html`<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
` : html``}<title>${page.title}</title>
${page.icon ? html`<link rel="icon" href="${page.icon}">
` : html``}<style nonce="${page.nonce}">${page.style}</style>
</head>
<body>
${page.body}
${page.script ? html`<script nonce="${page.nonce}">${page.script}</script>` : html``}
</body>
</html>
`.value;
}
