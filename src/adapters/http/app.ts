import crypto from 'node:crypto';
import express, { type Express } from 'express';
import { pinoHttp } from 'pino-http';
import type { ApiDeps } from '../../core/deps.js';
import { errorMiddleware, notFoundHandler } from './error-middleware.js';
import { buildDocument, createRegistry } from './openapi.js';
import { accountRoutes } from '../../features/accounts/routes.js';
import { apiKeyRoutes } from '../../features/apikeys/routes.js';
import { auditRoutes } from '../../features/audit/routes.js';
import { blobRoutes } from '../../features/blobs/routes.js';
import { claimRoutes } from '../../features/verifications/claim-routes.js';
import { captureRoutes } from '../../features/attestations/routes.js';
import { healthRoutes } from '../../features/health/routes.js';
import { usageRoutes } from '../../features/usage/routes.js';
import { verificationRoutes } from '../../features/verifications/routes.js';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,100}$/;

export function createApp(deps: ApiDeps): { app: Express; openapi: ReturnType<typeof buildDocument> } {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  app.set('query parser', 'simple');

  app.use(
    pinoHttp({
      logger: deps.log,
      // A caller's request id is kept (so it can be traced across systems) only if it is well-formed.
      genReqId: (req, res) => {
        const given = req.headers['x-request-id'];
        const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : crypto.randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      redact: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie'],
      customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
    }),
  );
  app.use(express.json({ limit: deps.config.JSON_BODY_LIMIT_BYTES, strict: true, type: ['application/json', 'application/*+json'] }));

  const registry = createRegistry();
  app.use(healthRoutes(deps, registry));
  app.use(accountRoutes(deps, registry));
  app.use(apiKeyRoutes(deps, registry));
  app.use(auditRoutes(deps, registry));
  app.use(captureRoutes(deps, registry));
  app.use(usageRoutes(deps, registry));
  app.use(claimRoutes(deps, registry));
  app.use(verificationRoutes(deps, registry));
  app.use(blobRoutes(deps, registry));

  const openapi = buildDocument(registry, deps.config.PUBLIC_BASE_URL);
  app.get('/openapi.json', (_req, res) => {
    res.json(openapi);
  });

  app.use(notFoundHandler);
  app.use(errorMiddleware);
  return { app, openapi };
}
