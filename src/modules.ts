import { coreErrors, reservedErrors, type ErrorStatuses } from './core/errors.js';
import type { Authenticator } from './core/module/authenticator.js';
import type { DependencyBase, FeatureDeps } from './core/module/deps.js';
import type { EventDefinition } from './core/es/events.js';
import type { ResourceExtension } from './core/module/extensions.js';
import type { FeatureModule } from './core/module/module.js';
import type { Projector } from './core/es/projector.js';
import { checkStreamReadRules, type StreamReadRule } from './core/es/stream-read-rules.js';
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
import { pdfReportModule } from './features/pdf-report/module.js';
import { psdExportModule } from './features/psd-export/module.js';
import { requestsModule } from './features/requests/module.js';
import { sharingModule } from './features/sharing/module.js';
import { tagsModule } from './features/tags/module.js';
import { uploadsModule } from './features/uploads/module.js';
import { usageModule } from './features/usage/module.js';
import { verificationsModule } from './features/verifications/module.js';
import { accountsProjector } from '../projections/accounts/projection.js';
import { appSessionsProjector } from '../projections/accounts/sessions.js';
import { anchorsProjector } from '../projections/anchors/projection.js';
import { apiKeysProjector } from '../projections/apikeys/projection.js';
import { attestationsProjector } from '../projections/attestations/projection.js';
import { streamOwnersProjector } from '../projections/audit/projection.js';
import { commentsProjector } from '../projections/comments/projection.js';
import { complianceProjector } from '../projections/compliance/projection.js';
import { mailMessagesProjector } from '../projections/mail/projection.js';
import { psdExportsProjector } from '../projections/psd-export/projection.js';
import { requestsProjector } from '../projections/requests/projection.js';
import { sharesProjector } from '../projections/sharing/projection.js';
import { tagsProjector } from '../projections/tags/projection.js';
import { uploadsProjector } from '../projections/uploads/projection.js';
import { usageProjector } from '../projections/usage/projection.js';
import { verificationsProjector } from '../projections/verifications/projection.js';
import { webappModule } from './web/module.js';

/**
 * The service, feature by feature, each paired here with the read models it owns (their
 * projectors, projections/<feature>): a feature never imports a projector, so the read side is
 * named only by this list (issue 37 item 8). Order: read models migrate, and routes match, in
 * this order.
 */
export const modules: readonly FeatureModule[] = everyDependencyProvided([
  healthModule,
  withReadModels(accountsModule, accountsProjector, appSessionsProjector),
  withReadModels(apiKeysModule, apiKeysProjector),
  withReadModels(auditModule, streamOwnersProjector),
  withReadModels(attestationsModule, attestationsProjector),
  withReadModels(usageModule, usageProjector),
  withReadModels(verificationsModule, verificationsProjector),
  withReadModels(sharingModule, sharesProjector),
  withReadModels(tagsModule, tagsProjector),
  withReadModels(commentsModule, commentsProjector),
  withReadModels(psdExportModule, psdExportsProjector),
  withReadModels(requestsModule, requestsProjector),
  withReadModels(anchorsModule, anchorsProjector),
  withReadModels(complianceModule, complianceProjector),
  auditorModule,
  pdfReportModule,
  blobsModule,
  withReadModels(uploadsModule, uploadsProjector),
  withReadModels(mailModule, mailMessagesProjector),
  webappModule,
  docsModule,
] as const);

/** A feature with the projectors of its read models (a module declares none of its own: the type refuses it). */
function withReadModels<const M extends FeatureModule>(module: M & { projectors?: never }, ...projectors: Projector[]): M & { projectors: readonly Projector[] } {
  return { ...module, projectors };
}

/** The members of FeatureDeps a module's `dependencies` return (each module keeps its precise type: `satisfies FeatureModule`). */
type ProvidedBy<M> = M extends { dependencies: (core: DependencyBase) => infer R } ? keyof Awaited<R> : never;

/**
 * The list, unchanged, if every member of FeatureDeps (declared by the features) is provided by
 * some module's `dependencies`: otherwise a compile error whose type names the members missing
 * (`unprovided`), so a service without them is never built. core/module/module.ts's buildFeatureDeps
 * checks the rest at start.
 */
function everyDependencyProvided<const L extends readonly FeatureModule[]>(
  list: L & ([Exclude<keyof FeatureDeps, ProvidedBy<L[number]>>] extends [never] ? unknown : { unprovided: Exclude<keyof FeatureDeps, ProvidedBy<L[number]>> }),
): L {
  return list;
}

export const allProjectors: readonly Projector[] = modules.flatMap((m) => m.projectors ?? []);

export const resourceExtensions: readonly ResourceExtension[] = modules.flatMap((m) => m.extensions ?? []);

/** Who may read each stream category through the audit door: each owning feature's own rule (a category with none is shown to no one). */
export const streamReadRules: readonly StreamReadRule[] = checkStreamReadRules(modules.flatMap((m) => m.streamReadRules ?? []));

export const authenticators: readonly Authenticator[] = modules.flatMap((m) => m.authenticators ?? []);

export const eventCatalogues: readonly Record<string, EventDefinition>[] = modules.flatMap((m) => m.events ?? []);

/** Every error code the service may answer with (and the reserved ones), with its status. */
/** What a ROLE=worker process answers on PORT instead of the app (issue 26): health and readiness only. */
export { healthListener } from './features/health/listener.js';
/** The read models' folds an audit bundle is replayed with (issue 35): for `photoverify audit verify`. */
export { bundleReplays } from './features/auditor/replays.js';
export const errorCatalogue: ErrorStatuses = Object.assign({}, coreErrors, reservedErrors, ...modules.map((m) => m.errors ?? {}));
