import { coreErrors, reservedErrors, type ErrorStatuses } from './core/errors.js';
import type { Authenticator } from './core/authenticator.js';
import type { DependencyBase, FeatureDeps } from './core/deps.js';
import type { EventDefinition } from './core/events.js';
import type { ResourceExtension } from './core/extensions.js';
import type { FeatureModule } from './core/module.js';
import type { Projector } from './core/projector.js';
import { accountsModule } from './features/accounts/module.js';
import { anchorsModule } from './features/anchors/module.js';
import { apiKeysModule } from './features/apikeys/module.js';
import { attestationsModule } from './features/attestations/module.js';
import { auditModule } from './features/audit/module.js';
import { auditorModule } from './features/auditor/module.js';
import { blobsModule } from './features/blobs/module.js';
import { commentsModule } from './features/comments/module.js';
import { complianceModule } from './features/compliance/module.js';
import { docsModule } from './features/docs/module.js';
import { healthModule } from './features/health/module.js';
import { mailModule } from './features/mail/module.js';
import { psdExportModule } from './features/psd-export/module.js';
import { requestsModule } from './features/requests/module.js';
import { sharingModule } from './features/sharing/module.js';
import { tagsModule } from './features/tags/module.js';
import { uploadsModule } from './features/uploads/module.js';
import { usageModule } from './features/usage/module.js';
import { verificationsModule } from './features/verifications/module.js';
import { webappModule } from './features/webapp/module.js';

/** The service, feature by feature. Order: read models migrate, and routes match, in this order. */
export const modules: readonly FeatureModule[] = everyDependencyProvided([
  healthModule,
  accountsModule,
  apiKeysModule,
  auditModule,
  attestationsModule,
  usageModule,
  verificationsModule,
  sharingModule,
  tagsModule,
  commentsModule,
  psdExportModule,
  requestsModule,
  anchorsModule,
  complianceModule,
  auditorModule,
  blobsModule,
  uploadsModule,
  mailModule,
  webappModule,
  docsModule,
] as const);

/** The members of FeatureDeps a module's `dependencies` return (each module keeps its precise type: `satisfies FeatureModule`). */
type ProvidedBy<M> = M extends { dependencies: (core: DependencyBase) => infer R } ? keyof Awaited<R> : never;

/**
 * The list, unchanged, if every member of FeatureDeps (declared by the features) is provided by
 * some module's `dependencies`: otherwise a compile error whose type names the members missing
 * (`unprovided`), so a service without them is never built. core/module.ts's buildFeatureDeps
 * checks the rest at start.
 */
function everyDependencyProvided<const L extends readonly FeatureModule[]>(
  list: L & ([Exclude<keyof FeatureDeps, ProvidedBy<L[number]>>] extends [never] ? unknown : { unprovided: Exclude<keyof FeatureDeps, ProvidedBy<L[number]>> }),
): L {
  return list;
}

export const allProjectors: readonly Projector[] = modules.flatMap((m) => m.projectors ?? []);

export const resourceExtensions: readonly ResourceExtension[] = modules.flatMap((m) => m.extensions ?? []);

export const authenticators: readonly Authenticator[] = modules.flatMap((m) => m.authenticators ?? []);

export const eventCatalogues: readonly Record<string, EventDefinition>[] = modules.flatMap((m) => m.events ?? []);

/** Every error code the service may answer with (and the reserved ones), with its status. */
/** What a ROLE=worker process answers on PORT instead of the app (issue 26): health and readiness only. */
export { healthListener } from './features/health/listener.js';
export const errorCatalogue: ErrorStatuses = Object.assign({}, coreErrors, reservedErrors, ...modules.map((m) => m.errors ?? {}));
