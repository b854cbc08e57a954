import crypto from 'node:crypto';
import express, { type Express } from 'express';
import { pinoHttp } from 'pino-http';
import type { AppDeps } from '../../core/module/deps.js';
import type { FeatureModule } from '../../core/module/module.js';
import type { ErrorStatuses } from '../../core/errors.js';
import { bindRoute, documentRoute } from './route.js';
import { errorMiddleware, notFoundHandler } from './error-middleware.js';
import { buildDocument, createRegistry } from './openapi.js';
import { documentMcp, mountMcp } from './mcp-endpoint.js';
import { logSerializers } from './log-redaction.js';
import { restJsonParser } from './json-limits.js';
import { bodyIdleGuard } from './timeouts.js';
import { strictQuery } from './query.js';
const REQUEST_ID = /^[A-Za-z0-9._-]{1,100}$/;

/** The REST door: every module's routes, bound to express and documented in /openapi.json. */
export function createApp(
  deps: AppDeps,
  modules: readonly FeatureModule[],
  errorCatalogue: ErrorStatuses,
): { app: Express } {
  const app = express();
  app.disable('x-powered-by');
  // X-Forwarded-For names the client only when it comes from a configured proxy (TRUST_PROXY).
  app.set('trust proxy', deps.config.TRUST_PROXY);
  app.set('query parser', strictQuery);
  // Every answer, JSON and downloads included: its content type is the one meant (issue 36 item 14).
  app.use((_req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    next();
  });

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
      // Credentials in headers: the Authorization header, cookies both ways (the web app's session cookie holds an access token), and each authenticator's own header (X-API-Key).
      redact: ['req.headers.authorization', ...deps.authenticators.flatMap((a) => (a.header ? [`req.headers["${a.header}"]`] : [])), 'req.headers.cookie', 'res.headers["set-cookie"]'],
      // Share links, pre-signed downloads and uploads carry their credential in the URL: never logged.
      serializers: logSerializers(modules.flatMap((m) => m.logRedactions ?? [])),
      customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
    }),
  );
  // A body that stops arriving drops its connection (timeouts.ts), on every door that reads one.
  app.use(bodyIdleGuard());
  // Before the REST JSON parser: MCP bodies may carry inline files (their own, larger limit).
  mountMcp(app, deps, modules.flatMap((m) => m.tools?.(deps) ?? []));
  app.use(restJsonParser(deps.config.JSON_BODY_LIMIT_BYTES));

  const registry = createRegistry();
  documentMcp(registry);
  const router = express.Router();
  for (const module of modules) {
    for (const spec of module.routes?.(deps) ?? []) {
      bindRoute(router, deps, spec);
      documentRoute(registry, spec);
    }
  }
  app.use(router);

  // Generated on first request, not at start-up: nobody may ask, and it takes a while.
  let openapi: ReturnType<typeof buildDocument> | undefined;
  app.get('/openapi.json', (_req, res) => {
    openapi ??= buildDocument(registry, deps.config.PUBLIC_BASE_URL);
    res.json(openapi);
  });

  app.use(notFoundHandler);
  app.use(errorMiddleware(errorCatalogue));
  return { app };
}
