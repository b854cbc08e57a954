/**
 * The web app's hardening headers (issue 27, must-work 4; docs/webapp.md "The page shell"), as
 * one check (pages in full; the app's JSON, event streams and files, the signed PDF report among them: not cached, not sniffed, files sandboxed) the authorisation matrix applies to every /app answer it gets (every page, as every
 * caller, error pages and redirects included) and headers.test.ts to every page signed in.
 */

/** What is wrong with one answer of an /app route (empty: nothing). `body` is the answer's text. */
export function appAnswerProblems(headers: Headers, status: number, body: string): string[] {
  const problems: string[] = [];
  const header = (name: string) => headers.get(name) ?? '';
  // Nothing of the app is cached: a page shows an account's data, a redirect may follow a change.
  if (!/\bno-store\b/.test(header('cache-control')) && !(status >= 400 && /^application\/(.+\+)?json/.test(header('content-type')))) problems.push(`Cache-Control is "${header('cache-control')}", not no-store`);
  if (status >= 300 && status < 400) return problems;
  const type = header('content-type');
  // The page's progress and the history's bundle (JSON, read by the page's script): the service's
  // JSON rules (no sniffing question for JSON); an error names nothing to keep out of a cache.
  if (/^application\/(.+\+)?json/.test(type)) return status < 300 ? problems : [];
  if (header('x-content-type-options') !== 'nosniff') problems.push('no X-Content-Type-Options: nosniff');
  // The page's live progress (server-sent events, read by the page's script): not cached, not sniffed, nothing rendered.
  if (/^text\/event-stream/.test(type)) return problems;
  if (/^(image\/|application\/octet-stream|application\/pdf)/.test(type)) {
    if (!/(^|;)\s*sandbox\b/.test(header('content-security-policy'))) problems.push('a file whose CSP does not sandbox it');
    return problems;
  }
  if (!/^text\/html/.test(type)) return [...problems, `a ${status} answer of type "${type}"`];
  // Nothing to other sites: same-origin (a page with forms: its posts need their Origin), or no-referrer.
  if (!['same-origin', 'no-referrer'].includes(header('referrer-policy'))) problems.push(`Referrer-Policy is "${header('referrer-policy')}", not same-origin`);
  const xfo = header('x-frame-options');
  if (xfo && !/^deny$/i.test(xfo)) problems.push(`X-Frame-Options is "${xfo}"`);
  problems.push(...cspProblems(header('content-security-policy'), body));
  return problems;
}

/**
 * The policy: nothing by default, no inline code but the nonce's (no 'unsafe-inline',
 * 'unsafe-eval', hashes or hosts for script and style), never framed, forms and the base URL
 * pinned; the page's every nonce attribute is the policy's nonce.
 */
function cspProblems(csp: string, body: string): string[] {
  if (!csp) return ['no Content-Security-Policy'];
  const problems: string[] = [];
  const directives = new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...values]) => [name!.toLowerCase(), values] as const),
  );
  const is = (name: string, value: string) => directives.get(name)?.length === 1 && directives.get(name)![0] === value;
  if (!is('default-src', "'none'")) problems.push("default-src is not 'none'");
  if (!is('frame-ancestors', "'none'")) problems.push("frame-ancestors is not 'none'");
  // Forms go to this origin only ('none' on a page without any: the history page).
  if (!is('form-action', "'self'") && !is('form-action', "'none'")) problems.push("form-action is neither 'self' nor 'none'");
  if (!is('base-uri', "'none'")) problems.push("base-uri is not 'none'");
  if (/'unsafe-(inline|eval|hashes)'|'strict-dynamic'|\*/.test(csp)) problems.push(`an unsafe source in "${csp}"`);
  const nonces = new Set<string>();
  for (const name of ['style-src', 'script-src']) {
    const values = directives.get(name);
    if (!values) {
      if (name === 'style-src') problems.push('no style-src');
      continue;
    }
    for (const value of values) {
      const nonce = /^'nonce-([A-Za-z0-9+/=_-]{16,})'$/.exec(value)?.[1];
      if (nonce) nonces.add(nonce);
      // A script file of this origin's (the history page's offline verifier, /assets/audit-verify.js).
      else if (!(name === 'script-src' && value === "'self'")) problems.push(`${name} allows ${value}, not only its nonce`);
    }
  }
  if (nonces.size !== 1) problems.push(`${nonces.size} nonces in the policy`);
  const inPage = new Set([...body.matchAll(/\snonce="([^"]*)"/g)].map((m) => m[1]!));
  const nonce = [...nonces][0];
  if (!inPage.size) problems.push('no element of the page carries the nonce (its style would not apply)');
  for (const value of inPage) if (value !== nonce) problems.push(`an element's nonce "${value}" is not the policy's`);
  // Where a script may run, it may fetch from this origin only.
  if (directives.has('script-src') && !is('connect-src', "'self'")) problems.push("a script may run but connect-src is not 'self'");
  return problems;
}
