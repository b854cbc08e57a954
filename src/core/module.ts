import type { Knex } from 'knex';
import type { RouteSpec } from './route-spec.js';
import type { AppDeps, WorkflowDeps } from './deps.js';
import type { ErrorStatuses } from './errors.js';
import type { EventDefinition } from './events.js';
import type { Projector } from './projector.js';
import type { WorkflowRegistration } from './workflow.js';

/**
 * A feature as the service is composed from it. src/modules.ts lists the modules; the
 * projectors, routes (and with them the OpenAPI document), workflows, the audit catalogue and
 * the error catalogue are all derived from that one list, so adding a feature is its folder plus a line.
 */
export interface FeatureModule {
  name: string;
  /** Event catalogues the feature's streams hold (audit history: types, versions, redaction). */
  events?: readonly Record<string, EventDefinition>[];
  /** Read models the feature owns, migrated and run in list order. */
  projectors?: readonly Projector[];
  /** REST routes, thin adapters over the feature's use cases. */
  routes?: (deps: AppDeps) => readonly RouteSpec[];
  /** Durable workflows the feature runs, each with its activities (both engines run this list). */
  workflows?: (deps: WorkflowDeps) => readonly WorkflowRegistration[];
  /** Error codes the feature throws, with their statuses. */
  errors?: ErrorStatuses;
  /** Fields the feature adds to another feature's resource (e.g. `comment_count` on a Verification). */
  resourceFields?: readonly ResourceFields[];
}

/**
 * Fields one feature contributes to a resource another feature owns, so the owner need not
 * know the contributor: the owner asks for the ids of one response at once (one query per
 * contributor, whatever the page size). Ids without an entry keep the owner's defaults.
 */
export interface ResourceFields {
  /** The resource the fields belong to, e.g. 'verification'. */
  resource: string;
  read(knex: Knex, ids: readonly string[]): Promise<ReadonlyMap<string, Record<string, unknown>>>;
}

/** Every contributor's fields for these ids of `resource`, merged per id. */
export async function contributedFields(
  contributors: readonly ResourceFields[],
  knex: Knex,
  resource: string,
  ids: readonly string[],
): Promise<Map<string, Record<string, unknown>>> {
  const merged = new Map<string, Record<string, unknown>>();
  if (ids.length === 0) return merged;
  for (const contributor of contributors.filter((c) => c.resource === resource)) {
    for (const [id, fields] of await contributor.read(knex, ids)) merged.set(id, { ...merged.get(id), ...fields });
  }
  return merged;
}
