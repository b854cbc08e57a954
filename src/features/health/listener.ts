import type http from 'node:http';
import type { AppDeps } from '../../core/module/deps.js';
import { AppError, errorEnvelope } from '../../core/errors.js';
import { checkHealth } from './use-cases.js';

/**
 * What a ROLE=worker process answers on PORT (issue 26): it serves no public HTTP, only what an
 * orchestrator probes. `/health` (and `/v1/public/health`, the path the other roles answer it
 * on, so one probe fits every process) is the same report as the API's; `/ready` is 200 once
 * start-up is over (read models caught up, the workflow engine open) and 503 before.
 * Everything else is 404, so a worker put behind the public port by mistake serves nothing.
 * Refusals carry the API's error body; every answer is JSON, never sniffed as anything else.
 */
export function healthListener(deps: AppDeps, ready: () => boolean): http.RequestListener {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
      res.end(req.method === 'HEAD' ? undefined : JSON.stringify(body));
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return answer(405, errorEnvelope(new AppError('METHOD_NOT_ALLOWED', 'A worker answers only GET /health and GET /ready.', { suggestion: 'Send other requests to an API process (ROLE=api or all).' })));
    if (path === '/ready') return ready() ? answer(200, { status: 'ready', role: deps.config.ROLE }) : answer(503, { status: 'starting', role: deps.config.ROLE });
    if (path === '/health' || path === '/v1/public/health') {
      checkHealth(deps).then(
        (health) => answer(health.status === 'down' ? 503 : 200, health),
        (error: Error) => answer(503, { status: 'down', role: deps.config.ROLE, detail: error.message }),
      );
      return;
    }
    answer(404, errorEnvelope(new AppError('NOT_FOUND', `A worker process (ROLE=worker) serves no public HTTP: only /health and /ready.`, { suggestion: `Send ${path} to an API process (ROLE=api or all).` })));
  };
}
