import type { OpenAPIRegistry, RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { Request, Response, Router } from 'express';
import type { z } from 'zod';
import type { AppDeps } from '../../core/deps.js';
import { newCall } from '../../core/principal.js';
import { authenticate } from './auth.js';
import { errorEnvelopeSchema, validationErrorSchema } from './openapi.js';
import type { Reply, RouteSpec } from '../../core/route-spec.js';
import { receiveUpload } from './uploads.js';
import { parsePart, RequestValidationError } from '../../core/validation.js';

const documentedErrors: Record<number, string> = {
  400: 'Bad request',
  401: 'Authentication required or credentials invalid',
  403: 'Access denied',
  404: 'Not found',
  409: 'Conflict',
  413: 'Payload too large',
  429: 'Rate limit exceeded',
};

/** Registers a route in the OpenAPI document from the same zod schemas that validate it. */
export function documentRoute(registry: OpenAPIRegistry, spec: RouteSpec): void {
  const responses: RouteConfig['responses'] = {};
  for (const [status, response] of Object.entries(spec.responses)) {
    const contentType = Number(status) < 300 && spec.produces ? spec.produces : 'application/json';
    responses[Number(status)] = response.schema
      ? { description: response.description, content: { [contentType]: { schema: response.schema } } }
      : { description: response.description };
  }
  const errorStatuses = new Set(Object.keys(spec.responses).map(Number).filter((s) => s >= 400));
  if (spec.auth !== 'none') errorStatuses.add(401);
  for (const status of errorStatuses) {
    if (status === 422) continue;
    // A page answers its errors with an HTML error page, not the JSON envelope.
    responses[status] ??= spec.errorPage
      ? { description: `${documentedErrors[status] ?? 'Error'} (an HTML error page)` }
      : { description: documentedErrors[status] ?? 'Error', content: { 'application/json': { schema: errorEnvelopeSchema } } };
  }
  if (spec.body || spec.query || spec.params || spec.multipart) {
    responses[422] = spec.errorPage
      ? { description: 'Validation error (an HTML error page)' }
      : { description: 'Validation error', content: { 'application/json': { schema: validationErrorSchema } } };
  }
  registry.registerPath({
    method: spec.method,
    path: spec.path,
    summary: spec.summary,
    description: spec.description,
    tags: [spec.tag],
    security: spec.auth === 'none' ? [] : [{ bearerAuth: [] }, { apiKeyHeader: [] }],
    request: {
      ...(spec.params ? { params: spec.params as z.ZodObject } : {}),
      ...(spec.query ? { query: spec.query as z.ZodObject } : {}),
      ...(spec.body ? { body: { content: { 'application/json': { schema: spec.body } }, required: true } } : {}),
      ...(spec.multipart ? { body: { content: { 'multipart/form-data': { schema: spec.multipart } }, required: true } } : {}),
    },
    responses,
  });
}

/**
 * Binds one route to express: authenticate, validate each part once, hand the use case a
 * transport-free call, and turn the reply (and a stale read-your-writes wait) into HTTP.
 */
export function bindRoute(router: Router, deps: AppDeps, spec: RouteSpec): void {
  const expressPath = spec.path.replace(/\{([^}]+)\}/g, ':$1');
  router[spec.method](expressPath, async (req: Request, res: Response) => {
    // The error middleware renders this route's errors through it (an HTML page, not JSON).
    if (spec.errorPage) res.locals.errorPage = spec.errorPage;
    const principal = await authenticate(deps, req, spec.auth);
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
          throw new RequestValidationError([{ loc: ['body'], msg: 'Send the file itself as the body, with Content-Type: application/octet-stream (or the file\'s type), not JSON.', type: 'body_type' }]);
        }
        return req;
      },
    });
    if (call.stale) res.setHeader('X-Read-Model-Stale', 'true');
    await send(req, res, reply);
  });
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
