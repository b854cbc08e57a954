import type { OpenAPIRegistry, RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { Request, Response, Router } from 'express';
import type { z } from 'zod';
import { authenticate, type AuthRequirement, type Principal } from './auth.js';
import type { ApiDeps } from '../../core/deps.js';
import { confirmationSchema, errorEnvelopeSchema, validationErrorSchema } from './openapi.js';
import { parsePart } from './validation.js';

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
}

export interface RouteSpec<B, Q, P, A extends AuthRequirement> {
  method: Method;
  /** OpenAPI path, e.g. '/v1/apikeys/{key_id}'. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  auth: A;
  body?: z.ZodType<B>;
  query?: z.ZodType<Q>;
  params?: z.ZodType<P>;
  /** Documents a multipart/form-data body; the handler parses it itself (files are streamed). */
  multipart?: z.ZodType;
  responses: Record<number, ResponseSpec>;
  handler: (
    input: { body: B; query: Q; params: P; principal: A extends 'none' ? Principal | null : Principal; req: Request; res: Response },
  ) => Promise<Reply | void>;
}

const documentedErrors: Record<number, string> = {
  400: 'Bad request',
  401: 'Authentication required or credentials invalid',
  403: 'Access denied',
  404: 'Not found',
  409: 'Conflict',
  413: 'Payload too large',
  429: 'Rate limit exceeded',
};

/**
 * Binds one route to express AND registers it in the OpenAPI registry from the same zod
 * schemas, so the document cannot describe a request shape the service does not enforce.
 */
export function defineRoute<B = undefined, Q = undefined, P = undefined, A extends AuthRequirement = 'any'>(
  router: Router,
  registry: OpenAPIRegistry,
  deps: ApiDeps,
  spec: RouteSpec<B, Q, P, A>,
): void {
  const responses: RouteConfig['responses'] = {};
  for (const [status, response] of Object.entries(spec.responses)) {
    responses[Number(status)] = response.schema
      ? { description: response.description, content: { 'application/json': { schema: response.schema } } }
      : { description: response.description };
  }
  const errorStatuses = new Set(Object.keys(spec.responses).map(Number).filter((s) => s >= 400));
  if (spec.auth !== 'none') errorStatuses.add(401);
  for (const status of errorStatuses) {
    if (status === 422) continue;
    responses[status] ??= { description: documentedErrors[status] ?? 'Error', content: { 'application/json': { schema: errorEnvelopeSchema } } };
  }
  if (spec.body || spec.query || spec.params || spec.multipart) {
    responses[422] = { description: 'Validation error', content: { 'application/json': { schema: validationErrorSchema } } };
  }
  registry.registerPath({
    method: spec.method,
    path: spec.path,
    summary: spec.summary,
    description: spec.description,
    tags: [spec.tag],
    security:
      spec.auth === 'none'
        ? []
        : spec.auth === 'any_or_anonymous'
          ? [{ bearerAuth: [] }, { apiKeyHeader: [] }, { anonymousUser: [] }]
          : [{ bearerAuth: [] }, { apiKeyHeader: [] }],
    request: {
      ...(spec.params ? { params: spec.params as z.ZodObject } : {}),
      ...(spec.query ? { query: spec.query as z.ZodObject } : {}),
      ...(spec.body ? { body: { content: { 'application/json': { schema: spec.body } }, required: true } } : {}),
      ...(spec.multipart ? { body: { content: { 'multipart/form-data': { schema: spec.multipart } }, required: true } } : {}),
    },
    responses,
  });

  const expressPath = spec.path.replace(/\{([^}]+)\}/g, ':$1');
  router[spec.method](expressPath, async (req: Request, res: Response) => {
    const principal = await authenticate(deps, req, spec.auth);
    const params = spec.params ? parsePart('path', spec.params, req.params) : (undefined as P);
    const query = spec.query ? parsePart('query', spec.query, req.query) : (undefined as Q);
    const body = spec.body ? parsePart('body', spec.body, req.body) : (undefined as B);
    const reply = await spec.handler({ body, query, params, principal: principal as never, req, res });
    if (!reply) return;
    for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
    if (reply.body === undefined) res.status(reply.status).end();
    else res.status(reply.status).json(reply.body);
  });
}

export { confirmationSchema };
