import { Readable } from 'node:stream';
import type { AppDeps } from '../../core/module/deps.js';
import { route, type RouteSpec } from '../../core/http/route-spec.js';
import { ANCHOR_CERTIFICATE_PATH } from './index.js';
import { publishedCertificate } from './use-cases.js';

/** The certificate anyone checks an anchor's signature with (docs/audit.md "Anchors"). */
export function anchorRoutes(deps: AppDeps): RouteSpec[] {
  return [
    route({
      method: 'get',
      path: ANCHOR_CERTIFICATE_PATH,
      tag: 'anchors',
      summary: 'The certificate chain anchors are signed under (PEM, end-entity first)',
      description:
        'Public. Each `anchored_in` item of a Verification carries a signature (ES256) over its batch’s signed tree head; this is the chain of the key that signs them, the one thing an offline verifier needs to trust. The same chain is in every item’s `signature.certificate_chain`.',
      auth: 'none',
      produces: 'application/pem-certificate-chain',
      responses: { 200: { description: 'The PEM certificate chain, end-entity certificate first' } },
      handler: async () => ({
        status: 200,
        headers: { 'Content-Type': 'application/pem-certificate-chain', 'Cache-Control': 'public, max-age=3600', 'X-Content-Type-Options': 'nosniff' },
        stream: Readable.from([await publishedCertificate(deps)]),
      }),
    }),
  ];
}
