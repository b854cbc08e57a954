import { OpenAPIRegistry, OpenApiGeneratorV31, extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

extendZodWithOpenApi(z);

export const errorEnvelopeSchema = z
  .object({
    detail: z.object({
      error_code: z.string(),
      message: z.string(),
      suggestion: z.string().optional(),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .openapi('ErrorEnvelope');

export const validationErrorSchema = z
  .object({ detail: z.array(z.object({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string() })) })
  .openapi('ValidationErrorList');


export function createRegistry(): OpenAPIRegistry {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'A JWT from POST /v1/accounts/login, or an API key (pv_...) sent as a bearer token.',
  });
  registry.registerComponent('securitySchemes', 'apiKeyHeader', { type: 'apiKey', in: 'header', name: 'X-API-Key' });
  return registry;
}

export function buildDocument(registry: OpenAPIRegistry, serverUrl: string) {
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Photo Authenticity Verification Service',
      version: '1.0.0',
      description:
        'Proves a JPEG is a faithful rendering of a real camera RAW, or reads and validates the C2PA Content Credentials a file carries. Error bodies: {"detail": {"error_code", "message", "suggestion"}}; validation errors (422): {"detail": [{"loc", "msg", "type"}]}.',
    },
    servers: [{ url: serverUrl }],
  });
}
