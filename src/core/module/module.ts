import type { RouteSpec } from '../http/route-spec.js';
import type { ToolSpec } from '../http/tool-spec.js';
import type { AppDeps, DependencyBase, FeatureDeps, WorkflowDeps } from './deps.js';
import type { Authenticator } from './authenticator.js';
import type { LogRedaction } from '../http/log-redaction.js';
import type { OperatorCommand } from './operator-command.js';
import type { ErrorStatuses } from '../errors.js';
import type { ResourceExtension } from './extensions.js';
import type { EventDefinition } from '../es/events.js';
import type { Projector } from '../es/projector.js';
import type { StreamReadRule } from '../es/stream-read-rules.js';
import type { WorkflowRegistration } from '../es/workflow.js';

/**
 * A feature as the service is composed from it. src/modules.ts lists the modules; the
 * dependencies, projectors, routes (and with them the OpenAPI document), agent tools (MCP),
 * workflows, authenticators, log redactions, extensions, operator commands, the audit catalogue,
 * the audit door's read rules and the error catalogue are all derived from that one list, so
 * adding a feature is its folder plus a line: nothing outside the feature's folder and the list
 * names it.
 */
export interface FeatureModule {
  name: string;
  /**
   * What the feature's own use cases need beyond the core (rate limiters, keys, trust anchors),
   * declared as members of FeatureDeps in the feature's files and built here once at start, in
   * list order, from the core. Give the precise return type (a Pick of FeatureDeps), not
   * Partial<FeatureDeps>: src/modules.ts derives from it that every member is provided.
   */
  dependencies?: (core: DependencyBase) => Promise<Partial<FeatureDeps>> | Partial<FeatureDeps>;
  /** Kinds of credential the feature issues, resolved to callers by the HTTP adapter (core/module/authenticator.ts). */
  authenticators?: readonly Authenticator[];
  /** Credentials in the feature's URLs, kept out of the request log (core/http/log-redaction.ts). */
  logRedactions?: readonly LogRedaction[];
  /** Operator commands run against the stores with the service stopped (`npm run <name>`, src/cli/operator.ts). */
  commands?: readonly OperatorCommand[];
  /** Event catalogues the feature's streams hold (audit history: types, versions, redaction). */
  events?: readonly Record<string, EventDefinition>[];
  /**
   * Read models the feature owns, migrated and run in list order. Paired with the feature by
   * the composition root (src/modules.ts withReadModels), never set by the feature's own module:
   * features do not import the read side's projectors.
   */
  projectors?: readonly Projector[];
  /** REST routes, thin adapters over the feature's use cases. */
  routes?: (deps: AppDeps) => readonly RouteSpec[];
  /** Agent tools (served over MCP at /mcp), thin adapters over the same use cases as the routes. */
  tools?: (deps: AppDeps) => readonly ToolSpec[];
  /** Durable workflows the feature runs, each with its activities (both engines run this list). */
  workflows?: (deps: WorkflowDeps) => readonly WorkflowRegistration[];
  /** Error codes the feature throws, with their statuses. */
  errors?: ErrorStatuses;
  /** Fields, list filters and search matches the feature adds to other features' resources (core/module/extensions.ts). */
  extensions?: readonly ResourceExtension[];
  /** Who may read each category of stream the feature records, through the audit door: the feature's own read rule (core/es/stream-read-rules.ts). */
  streamReadRules?: readonly StreamReadRule[];
}

/**
 * Every module's dependencies, built once at start, in list order, from the core (the
 * composition root). Fails when two modules provide the same member or one provides undefined;
 * that every member is provided is checked at compile time, by src/modules.ts.
 */
export async function buildFeatureDeps(modules: readonly FeatureModule[], core: DependencyBase): Promise<FeatureDeps> {
  const provided: Record<string, unknown> = {};
  const providers = new Map<string, string>();
  for (const module of modules) {
    for (const [name, value] of Object.entries((await module.dependencies?.(core)) ?? {})) {
      if (providers.has(name)) throw new Error(`The dependency ${name} is provided by both the ${providers.get(name)} and the ${module.name} module.`);
      if (value === undefined) throw new Error(`The ${module.name} module provides its dependency ${name} as undefined.`);
      providers.set(name, module.name);
      provided[name] = value;
    }
  }
  return provided as unknown as FeatureDeps;
}
