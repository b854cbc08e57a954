import type { RouteSpec } from './route-spec.js';
import type { ToolSpec } from './tool-spec.js';
import type { AppDeps, WorkflowDeps } from './deps.js';
import type { ErrorStatuses } from './errors.js';
import type { ResourceExtension } from './extensions.js';
import type { EventDefinition } from './events.js';
import type { Projector } from './projector.js';
import type { WorkflowRegistration } from './workflow.js';

/**
 * A feature as the service is composed from it. src/modules.ts lists the modules; the
 * projectors, routes (and with them the OpenAPI document), agent tools (MCP), workflows, the audit
 * catalogue and the error catalogue are all derived from that one list, so adding a feature is its folder plus a line.
 */
export interface FeatureModule {
  name: string;
  /** Event catalogues the feature's streams hold (audit history: types, versions, redaction). */
  events?: readonly Record<string, EventDefinition>[];
  /** Read models the feature owns, migrated and run in list order. */
  projectors?: readonly Projector[];
  /** REST routes, thin adapters over the feature's use cases. */
  routes?: (deps: AppDeps) => readonly RouteSpec[];
  /** Agent tools (served over MCP at /mcp), thin adapters over the same use cases as the routes. */
  tools?: (deps: AppDeps) => readonly ToolSpec[];
  /** Durable workflows the feature runs, each with its activities (both engines run this list). */
  workflows?: (deps: WorkflowDeps) => readonly WorkflowRegistration[];
  /** Error codes the feature throws, with their statuses. */
  errors?: ErrorStatuses;
  /** Fields, list filters and search matches the feature adds to other features' resources (core/extensions.ts). */
  extensions?: readonly ResourceExtension[];
}
