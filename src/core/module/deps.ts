import type { Knex } from 'knex';

/** Which database holds the events and read models (health reports it). */
export type DatabaseKind = 'pglite' | 'postgres';
import type { Logger } from 'pino';
import type { ReadModels } from '../es/projector.js';
import type { WorkflowEngine } from '../es/workflow.js';
import type { Config } from '../config.js';
import type { EventStore } from '../es/event-store.js';
import type { EventDefinition } from '../es/events.js';
import type { ErrorStatuses } from '../errors.js';
import type { ResourceExtension } from './extensions.js';
import type { StreamReadRule } from '../es/stream-read-rules.js';
import type { BlobStore } from '../blob-store.js';
import type { UrlSigner } from '../http/signed-urls.js';
import type { KeyedLock } from '../es/keyed-lock.js';
import type { Mailer } from '../mail.js';
import type { PrincipalCache } from '../http/principal-cache.js';
import type { Principal } from '../principal.js';

/**
 * What every feature may use, built by the composition root (src/service.ts) from
 * configuration and the adapters, before any feature's own dependencies.
 */
export interface CoreDeps {
  config: Config;
  knex: Knex;
  databaseKind: DatabaseKind;
  store: EventStore;
  readModels: ReadModels;
  /** Every module's event catalogues (the audit history's types and redactions). */
  eventCatalogues: readonly Record<string, EventDefinition>[];
  /** Every module's error codes and their statuses (AppError.statusIn, isUserError read it). */
  errorCatalogue: ErrorStatuses;
  /** Every module's contributions to other features' resources (views, list filters, search). */
  extensions: readonly ResourceExtension[];
  /** Every module's read rules of its stream categories (the audit door asks them: core/es/stream-read-rules.ts). */
  streamReadRules: readonly StreamReadRule[];
  /** Every module's ways of turning a request's credentials into a caller, in list order (adapters/http/auth.ts). */
  authenticators: readonly Authenticator[];
  log: Logger;
  now: () => Date;
  /** Principals of recently seen credentials, emptied when credentials change (D-048). */
  principals: PrincipalCache;
  blobs: BlobStore;
  urlSigner: UrlSigner;
  workflows: WorkflowEngine;
  /** Serialises this process's writers of contended streams (monthly usage, an account's tags). */
  streamLocks: KeyedLock;
  /** Outgoing mail: SMTP, or the file outbox (only the mail delivery workflow sends; others call queueMail). */
  mailer: Mailer;
}

/**
 * What features add for themselves (rate limiters, keys, trust anchors): empty here, augmented
 * by each feature in its own dependencies file
 * (`declare module '../../core/module/deps.js' { interface FeatureDeps { ... } }`) and provided by its
 * module's `dependencies` (core/module/module.ts). src/modules.ts checks at compile time that every
 * member is provided by some module; the composition root checks at start that none is
 * provided twice or left undefined (buildFeatureDeps).
 */
export interface FeatureDeps {}

/** Everything the use cases need, built once by the composition root (src/service.ts). */
export type AppDeps = CoreDeps & FeatureDeps;

/** What a module's dependencies are built from: the core, before the workflow engine (built from the workflows, which may use them). */
export type DependencyBase = Omit<CoreDeps, 'workflows'>;

/**
 * What a module's workflows are built from: every dependency but the engine itself (which is
 * built from the workflows), and a hook to release what the activities hold at shutdown.
 */
export type WorkflowDeps = Omit<AppDeps, 'workflows'> & {
  /** Runs once the engine has stopped taking work and drained its running steps. */
  onStop(release: () => Promise<void>): void;
};

/**
 * One kind of credential a feature issues and resolves (session tokens, API keys). The HTTP
 * adapter (adapters/http/auth.ts) reads the request's headers and hands each credential to the
 * authenticator it belongs to, so it names no feature:
 * - a credential in an authenticator's own `header` is that authenticator's;
 * - a bearer token is the authenticator's whose `bearerPrefix` it starts with, else the one
 *   authenticator without a prefix (the composition root checks there is exactly one).
 */
export interface Authenticator {
  /** What it resolves, in words (start-up checks name it). */
  name: string;
  /** A request header whose value is always this kind of credential (lower case, e.g. "x-api-key"). */
  header?: string;
  /** Bearer tokens starting with this are this kind; absent for the fallback kind. */
  bearerPrefix?: string;
  /**
   * The principal the credential stands for and when it stops standing for it (the principal
   * cache keeps it no longer); throws an AuthenticationError (401) for an unusable credential.
   */
  resolve(deps: AppDeps, credential: string): Promise<{ principal: Principal; expiresAt: Date }>;
}
