import type { Knex } from 'knex';

/** Which database holds the events and read models (health reports it). */
export type DatabaseKind = 'pglite' | 'postgres';
import type { Logger } from 'pino';
import type { ReadModels } from './projector.js';
import type { WorkflowEngine } from './workflow.js';
import type { Config } from './config.js';
import type { EventStore } from './event-store.js';
import type { EventDefinition } from './events.js';
import type { ResourceExtension } from './extensions.js';
import type { BlobStore } from './blob-store.js';
import type { UrlSigner } from './signed-urls.js';
import type { KeyedLock } from './keyed-lock.js';
import type { SignerConfig } from '../provenance/signer-config.js';
import type { TrustAnchors } from '../provenance/trust.js';
import type { RateLimiter } from './rate-limit.js';
import type { Mailer } from './mail.js';
import type { PrincipalCache } from './principal-cache.js';

/** Everything the use cases need, built once by the composition root (src/service.ts). */
export interface AppDeps {
  config: Config;
  knex: Knex;
  databaseKind: DatabaseKind;
  store: EventStore;
  readModels: ReadModels;
  /** Every module's event catalogues (the audit history's types and redactions). */
  eventCatalogues: readonly Record<string, EventDefinition>[];
  /** Every module's contributions to other features' resources (views, list filters, search). */
  extensions: readonly ResourceExtension[];
  log: Logger;
  now: () => Date;
  jwtSecret: Uint8Array;
  /** Principals of recently seen credentials, emptied when credentials change (D-048). */
  principals: PrincipalCache;
  loginLimiter: RateLimiter;
  /** Keyless uploads per client address. */
  anonymousLimiter: RateLimiter;
  /** Claim attempts per account. */
  claimLimiter: RateLimiter;
  /** Hash checked when a login names an unknown user, so timing does not reveal which e-mails exist. */
  decoyPasswordHash: Promise<string>;
  blobs: BlobStore;
  urlSigner: UrlSigner;
  /** Identifies the analysis code that produced a result (recorded on every verification). */
  pipelineBuild: string;
  workflows: WorkflowEngine;
  /** C2PA trust anchors (signer, TSA, legacy lists) used to validate credentials. */
  trust: TrustAnchors;
  /** The C2PA signer of verified pairs' credentials (loaded once, on first use). */
  signer: () => Promise<SignerConfig>;
  /** Serialises this process's writers of contended streams (monthly usage). */
  streamLocks: KeyedLock;
  /** Outgoing mail: SMTP, or the file outbox (only the mail delivery workflow sends; others call queueMail). */
  mailer: Mailer;
}

/**
 * What a module's workflows are built from: every dependency but the engine itself (which is
 * built from the workflows), and a hook to release what the activities hold at shutdown.
 */
export type WorkflowDeps = Omit<AppDeps, 'workflows'> & {
  /** Runs once the engine has stopped taking work and drained its running steps. */
  onStop(release: () => Promise<void>): void;
};
