/**
 * Which representation of `GET /` a client asked for. Browsers send `Accept: text/html,...`;
 * curl sends `*\/*` and API clients `application/json`: those get the JSON index. HTML is chosen
 * only when the client names it explicitly and ranks it at least as high as JSON.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  let html = 0;
  let json = 0;
  for (const part of accept.split(',')) {
    const [type = '', ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!Number.isFinite(q)) continue;
    if (type === 'text/html' || type === 'application/xhtml+xml') html = Math.max(html, q);
    if (type === 'application/json') json = Math.max(json, q);
  }
  return html > 0 && html >= json;
}
