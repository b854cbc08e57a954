import type { Request, RequestHandler, Response, Router } from 'express';
import type { AppDeps } from '../../core/module/deps.js';
import { newCall } from '../../core/principal.js';
import { authenticate } from './auth.js';
import type { Reply, RouteSpec } from '../../core/http/route-spec.js';
import { receiveUpload } from './uploads.js';
import { invalidRequest, parsePart, refuseUnrepresentable } from '../../core/http/validation.js';

// Documenting a route lives with the rest of the OpenAPI document.
export { documentRoute } from './openapi.js';

/**
 * Binds one route to express: authenticate, validate each part once, hand the use case a
 * transport-free call, and turn the reply (and a stale read-your-writes wait) into HTTP.
 */
export function bindRoute(router: Router, deps: AppDeps, spec: RouteSpec): void {
  const expressPath = spec.path.replace(/\{([^}]+)\}/g, ':$1');
  // The error middleware renders this route's errors through it (an HTML page, not JSON), also
  // those express raises before the route's handler runs (a malformed %-escape in a parameter).
  if (spec.errorPage) router.use(errorPageFor(spec.path, spec.errorPage));
  router[spec.method](expressPath, async (req: Request, res: Response) => {
    if (spec.errorPage) res.locals.errorPage = spec.errorPage;
    const principal = await authenticate(deps, req, spec.auth);
    // NUL and unpaired surrogates (%00, a lone \ud800 in a decoded value) never reach a use case.
    refuseUnrepresentable('path', req.params);
    refuseUnrepresentable('query', req.query);
    const params = spec.params ? parsePart('path', spec.params, req.params) : undefined;
    const query = spec.query ? parsePart('query', spec.query, req.query) : undefined;
    const body = spec.body ? parsePart('body', spec.body, req.body) : undefined;
    const call = newCall(principal, String(req.id), req.ip ?? 'unknown');
    const reply = await spec.handler({
      body,
      query,
      params,
      principal: principal as never,
      call,
      head: req.method === 'HEAD',
      header: (name) => req.get(name),
      upload: (options) => receiveUpload(req, res, deps.blobs, options),
      rawBody: () => {
        // The JSON parser has already read a JSON body: the bytes are gone.
        if (req.readableEnded || (req as { _body?: boolean })._body) {
          throw invalidRequest([{ loc: ['body'], msg: 'Send the file itself as the body, with Content-Type: application/octet-stream (or the file\'s type), not JSON.', type: 'body_type' }]);
        }
        return req;
      },
    });
    if (call.stale) res.setHeader('X-Read-Model-Stale', 'true');
    await send(req, res, reply);
  });
}

/**
 * Marks requests whose path has the shape of a page route (parameters matched without
 * decoding them), so that an error raised while express decodes them is shown as that page's
 * HTML error page.
 */
function errorPageFor(path: string, errorPage: NonNullable<RouteSpec['errorPage']>): RequestHandler {
  const pattern = new RegExp(`^${path.split(/\{[^}]+\}/).map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+')}/?$`, 'i');
  return (req, res, next) => {
    if (pattern.test(req.path)) res.locals.errorPage = errorPage;
    next();
  };
}

async function send(req: Request, res: Response, reply: Reply): Promise<void> {
  for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
  res.status(reply.status);
  if (reply.stream && req.method === 'HEAD') {
    // Node drops a HEAD response's body anyway: do not read the file only to discard it.
    (reply.stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
    res.end();
  } else if (reply.html !== undefined) {
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.send(reply.html);
  } else if (reply.stream) {
    await new Promise<void>((resolve, reject) => reply.stream!.on('error', reject).pipe(res).on('finish', resolve).on('error', reject));
  } else if (reply.body === undefined) res.end();
  else res.json(reply.body);
}
