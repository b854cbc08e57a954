import net from 'node:net';
import path from 'node:path';
import { z } from 'zod';

/**
 * Every setting comes from the environment, validated once at start-up. An invalid variable
 * stops the process with a message naming it, so a typo never silently falls back to a default.
 */
const optionalString = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional();

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** express's named subnets for "trust proxy". */
const NAMED_SUBNETS = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** An address, a CIDR (address/prefix length) or a named subnet, as express's "trust proxy" accepts them. */
function isProxyAddress(item: string): boolean {
  if (NAMED_SUBNETS.has(item)) return true;
  const [address, prefix, ...rest] = item.split('/');
  const family = net.isIP(address ?? '');
  if (family === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

/**
 * Which proxies may tell the client's address in X-Forwarded-For (express's "trust proxy").
 * Unset or "false": none, the socket's peer is the client. A whole number: that many hops.
 * Otherwise a comma-separated list of addresses, CIDRs and loopback, linklocal, uniquelocal.
 */
const trustProxy = optionalString.pipe(
  z
    .string()
    .optional()
    .transform((value, context): boolean | number | string => {
      if (value === undefined || value === 'false') return false;
      if (value === 'true') return true;
      if (/^\d+$/.test(value)) return Number(value);
      const items = value.split(',').map((item) => item.trim());
      const invalid = items.filter((item) => !isProxyAddress(item));
      if (invalid.length > 0) {
        context.addIssue({ code: 'custom', message: `not a proxy address, CIDR or loopback/linklocal/uniquelocal: ${invalid.join(', ')}` });
        return z.NEVER;
      }
      return items.join(',');
    }),
);

/** An EU processing region (eu-central-1): PROCESSING_REGION must be one or the service does not start; the compliance summary restates the rule. */
export const EU_REGION = /^eu-[a-z]+-\d+$/;

const configSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('0.0.0.0'),
  TRUST_PROXY: trustProxy,
  DATA_DIR: z.string().min(1).default('./data'),
  PUBLIC_BASE_URL: optionalString.pipe(z.url().optional()),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SERVICE_NAME: z.string().min(1).default('PhotoVerify'),
  /** Region recorded on every event; the service is EU-only, so anything else is refused. */
  PROCESSING_REGION: z
    .string()
    .regex(EU_REGION, 'must be an EU region such as eu-central-1 (processing runs in the European Union)')
    .default('eu-central-1'),
  DATABASE_URL: optionalString.pipe(z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL').optional()),
  EVENTSTORE_URL: optionalString.pipe(
    z.string().regex(/^(esdb|esdb\+discover|kurrentdb|kdb):\/\//, 'must be an esdb:// connection string').optional(),
  ),
  TEMPORAL_ADDRESS: optionalString,
  /** Issue 26: which work this process takes (api: HTTP; worker: workflows; all: both, the embedded setup). */
  ROLE: z.enum(['api', 'worker', 'all']).default('all'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().trim().min(1).default('photoverify-verifications'),
  /** S3-compatible blob storage (issue 26): S3_ENDPOINT and S3_BUCKET together, or neither (the file store). */
  S3_ENDPOINT: optionalString.pipe(z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional()),
  S3_BUCKET: optionalString,
  S3_REGION: z.string().trim().min(1).default('eu-central-1'),
  S3_ACCESS_KEY_ID: optionalString,
  S3_SECRET_ACCESS_KEY: optionalString,
  S3_FORCE_PATH_STYLE: z.enum(['true', 'false']).default('true').transform((value) => value === 'true'),
  S3_DOWNLOADS: z.enum(['proxy', 'redirect']).default('proxy'),
  SMTP_URL: optionalString.pipe(z.string().regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL').optional()),
  MAIL_FROM: z.string().default('PhotoVerify <no-reply@photoverify.local>'),
  MAIL_RETRY_INITIAL_MS: positiveInt(30_000),
  MAIL_DELIVERY_ATTEMPTS: positiveInt(12),
  JWT_SECRET: optionalString.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
  JWT_TTL_SECONDS: positiveInt(3600),
  APP_SESSION_IDLE_SECONDS: positiveInt(1800),
  APP_SESSION_ABSOLUTE_SECONDS: positiveInt(12 * 3600),
  /** log2 of scrypt's N. 17 (128 MiB) follows OWASP; tests lower it to stay fast. */
  PASSWORD_HASH_COST: z.coerce.number().int().min(10).max(20).default(17),
  JSON_BODY_LIMIT_BYTES: positiveInt(64 * 1024),
  MAX_UPLOAD_BYTES: positiveInt(100 * 1024 * 1024),
  MCP_INLINE_MAX_BYTES: positiveInt(8 * 1024 * 1024),
  UPGRADE_URL: optionalString.pipe(z.url().optional()),
  /** Longest a command's response waits for the read models to reach its events. */
  READ_MODEL_WAIT_MS: positiveInt(5000),
  SHUTDOWN_GRACE_MS: positiveInt(10_000),
  LOGIN_RATE_LIMIT_PER_15_MIN: positiveInt(20),
  ANONYMOUS_UPLOADS_PER_HOUR: positiveInt(20),
  CLAIM_ATTEMPTS_PER_15_MIN: positiveInt(10),
  C2PA_TRUST_ANCHORS: optionalString,
  C2PA_TSA_TRUST_ANCHORS: optionalString,
  C2PA_LEGACY_TRUST_ANCHORS: optionalString,
  C2PA_SIGNING_KEY: optionalString,
  C2PA_SIGNING_CHAIN: optionalString,
  C2PA_TSA_URL: optionalString.pipe(z.url().optional()),
  WORKFLOW_CONCURRENCY: positiveInt(2),
  /** Light runs (image-only checks, mail) need not wait behind CPU-bound pair analyses (D-050). */
  WORKFLOW_RUN_CONCURRENCY: positiveInt(16),
  WORKFLOW_SWEEP_MS: positiveInt(30_000),
  /** Longer than any upload request lives (D-101). */
  METERING_RELEASE_GRACE_MS: positiveInt(15 * 60_000),
  /** Spec 1: the RAW is used only for the check (issue 25). */
  RAW_RETENTION: z.enum(['discard', 'keep']).default('discard'),
  /** PGlite's default (128 MB) is most of an idle embedded service's memory (D-049). */
  /** Anchors (issue 25): a batch is sealed when its oldest record has waited this long, or when this many wait. */
  ANCHOR_INTERVAL_SECONDS: positiveInt(300),
  ANCHOR_BATCH_SIZE: z.coerce.number().int().min(1).max(1024).default(256),
  ANCHOR_TSA_URL: optionalString.pipe(z.url().optional()),
  PGLITE_SHARED_BUFFERS_MB: positiveInt(16),
  CRASH_AT: optionalString.pipe(z.string().regex(/^[A-Za-z][A-Za-z0-9]*\.[A-Za-z][A-Za-z0-9]*:(before|after)$/, 'expected <workflow>.<activity>:before|after').optional()),
}).superRefine((value, context) => {
  // PGlite's directory belongs to one process, which therefore does everything.
  if (value.ROLE !== 'all' && !value.DATABASE_URL) {
    context.addIssue({ code: 'custom', path: ['ROLE'], message: `ROLE=${value.ROLE} needs DATABASE_URL (PostgreSQL shared by the API and worker processes); the embedded PGlite belongs to one process, which runs as ROLE=all` });
  }
  // Half an S3 configuration would silently fall back to local files on one instance of many.
  if (Boolean(value.S3_ENDPOINT) !== Boolean(value.S3_BUCKET)) {
    context.addIssue({ code: 'custom', path: [value.S3_ENDPOINT ? 'S3_BUCKET' : 'S3_ENDPOINT'], message: 'S3_ENDPOINT and S3_BUCKET are set together (both: S3 blob storage; neither: files in DATA_DIR/blobs)' });
  }
  if (Boolean(value.S3_ACCESS_KEY_ID) !== Boolean(value.S3_SECRET_ACCESS_KEY)) {
    context.addIssue({ code: 'custom', path: [value.S3_ACCESS_KEY_ID ? 'S3_SECRET_ACCESS_KEY' : 'S3_ACCESS_KEY_ID'], message: 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set together (neither: the AWS SDK\'s default credentials)' });
  }
});

export type Config = Omit<z.infer<typeof configSchema>, 'DATA_DIR' | 'PUBLIC_BASE_URL'> & {
  DATA_DIR: string;
  PUBLIC_BASE_URL: string;
};

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || '(environment)'}: ${issue.message} (got ${JSON.stringify(env[String(issue.path[0])] ?? null)})`),
    );
  }
  const value = parsed.data;
  return {
    ...value,
    DATA_DIR: path.resolve(value.DATA_DIR),
    PUBLIC_BASE_URL: (value.PUBLIC_BASE_URL ?? `http://localhost:${value.PORT}`).replace(/\/+$/, ''),
  };
}

/** The variables and what they mean, as the README's configuration table lists them. */
export const configDocumentation: Record<keyof z.infer<typeof configSchema>, string> = {
  PORT: 'HTTP port the service listens on.',
  HOST: 'Interface to bind.',
  TRUST_PROXY: 'Which proxies in front of the service may name the client in X-Forwarded-For (client addresses drive the login and keyless MCP limits): a hop count, or a comma-separated list of addresses, CIDRs and loopback, linklocal, uniquelocal (as express\'s "trust proxy"). Unset or false: none, the connecting peer is the client.',
  DATA_DIR: 'Directory for all embedded state: PGlite database, blobs, generated secrets, development keys and the mail outbox.',
  PUBLIC_BASE_URL: 'Externally visible base URL, used in links (share URLs, signed URLs). Defaults to http://localhost:PORT.',
  LOG_LEVEL: 'pino log level.',
  SERVICE_NAME: 'Name shown on badges.',
  PROCESSING_REGION: 'EU region recorded on every event as evidence of where processing ran.',
  DATABASE_URL: 'PostgreSQL connection string for events and read models. Unset: embedded PGlite in DATA_DIR/pglite.',
  EVENTSTORE_URL: 'EventStoreDB connection string (esdb://...). Unset: events live in PostgreSQL/PGlite.',
  TEMPORAL_ADDRESS: 'Temporal frontend host:port. Unset: workflows run in-process.',
  ROLE: '`all`: this process serves HTTP and runs the workflows (the embedded setup). `api`: uploads, reads, pages and /mcp; it starts workflows but runs none. `worker`: runs the workflows (analyses, PSD builds, mail, timers, recovery sweeps) and answers only /health and /ready on PORT. api and worker need DATABASE_URL; without TEMPORAL_ADDRESS one process per database runs the workflows (docs/operations.md, "Roles").',
  TEMPORAL_NAMESPACE: 'Temporal namespace.',
  TEMPORAL_TASK_QUEUE: 'Temporal task queue of the verification workflows and activities (every process of one deployment uses the same).',
  S3_ENDPOINT: 'S3-compatible endpoint URL for blobs (uploads, renditions, PSD exports, mail bodies), e.g. https://s3.eu-central-1.amazonaws.com or http://versitygw:7070; set together with S3_BUCKET. Unset: files in DATA_DIR/blobs (one instance only). docs/operations.md, "S3 blob storage".',
  S3_BUCKET: 'Bucket holding the blobs (it must exist); staged uploads live under its .staging/ prefix until committed.',
  S3_REGION: 'Region the S3 requests are signed for (the bucket\'s region on AWS).',
  S3_ACCESS_KEY_ID: 'Access key for S3_ENDPOINT; set with S3_SECRET_ACCESS_KEY. Unset: the AWS SDK\'s default credentials (environment, instance role).',
  S3_SECRET_ACCESS_KEY: 'Secret key for S3_ACCESS_KEY_ID.',
  S3_FORCE_PATH_STYLE: '`true`: requests address the bucket in the path (http://endpoint/bucket/key), as most S3-compatible servers need; `false`: as a host name (bucket.endpoint), as AWS prefers.',
  S3_DOWNLOADS: '`proxy`: pre-signed download links (/blobs/...) stream through the service, so users need to reach only the service (the S3 endpoint may be internal). `redirect`: they answer 302 to an S3 pre-signed URL (at most 1 hour), which users must be able to reach; the bytes then bypass the service.',
  SMTP_URL: 'SMTP server (smtp:// or smtps://, credentials in the URL) that sends the service\'s mail (share invitations and notices, member invitations, request submission notices). Unset: each message is written as an .eml file to DATA_DIR/outbox instead.',
  MAIL_FROM: 'Sender (From) of the service\'s mail; its domain is the right-hand side of every Message-ID.',
  MAIL_RETRY_INITIAL_MS: 'Delay before the second delivery attempt of a message; each further delay doubles, up to 1 hour.',
  MAIL_DELIVERY_ATTEMPTS: 'Delivery attempts of one message before it is recorded as failed (MailDeliveryFailed); an SMTP 5xx refusal fails it at once.',
  JWT_SECRET: 'HS256 secret for access tokens (>= 32 chars). Unset: generated once into DATA_DIR/secrets.',
  JWT_TTL_SECONDS: 'Lifetime of access tokens from /v1/accounts/login.',
  APP_SESSION_IDLE_SECONDS: 'A web app session ends after this long without a page (its last use is recorded at most once a minute).',
  APP_SESSION_ABSOLUTE_SECONDS: 'A web app session ends this long after sign-in, however active.',
  PASSWORD_HASH_COST: 'log2 of the scrypt cost N for password hashes.',
  JSON_BODY_LIMIT_BYTES: 'Largest accepted JSON request body (413 above).',
  MAX_UPLOAD_BYTES: 'Largest accepted uploaded file (413 above).',
  MCP_INLINE_MAX_BYTES: 'Largest file an MCP tool accepts inline (base64 in the arguments); larger files go through create_upload. The /mcp body limit is derived from it.',
  UPGRADE_URL: 'Page where an account changes its plan (checkout or contact form); the MCP tool get_upgrade_link hands it out with account_id and plan appended. Unset: the tool says plans are changed by the operator.',
  READ_MODEL_WAIT_MS: 'Longest a command response waits for read models to include its events.',
  SHUTDOWN_GRACE_MS: 'Time allowed for in-flight requests to finish on SIGTERM/SIGINT.',
  LOGIN_RATE_LIMIT_PER_15_MIN: 'Failed-login attempts allowed per e-mail and client address per 15 minutes.',
  ANONYMOUS_UPLOADS_PER_HOUR: 'Keyless (anonymous) verifications over MCP allowed per client address per hour.',
  CLAIM_ATTEMPTS_PER_15_MIN: 'Claim attempts (POST /v1/verifications/claim) allowed per account per 15 minutes.',
  C2PA_TRUST_ANCHORS: 'Comma-separated PEM files of trusted C2PA signer anchors (e.g. the official C2PA trust list). The development CA is added in embedded mode.',
  C2PA_TSA_TRUST_ANCHORS: 'Comma-separated PEM files of trusted timestamp-authority anchors (kept separate from signer anchors).',
  C2PA_LEGACY_TRUST_ANCHORS: 'Comma-separated PEM files of the old interim trust list; credentials under it are reported as legacy.',
  C2PA_SIGNING_KEY: 'PEM private key (EC P-256) that signs credentials of verified pairs, anchor batches and compliance summaries (ES256); loaded at start, which refuses any other key naming this setting. Unset: a development CA and signer are created in DATA_DIR/c2pa-dev.',
  C2PA_SIGNING_CHAIN: 'PEM certificate chain for C2PA_SIGNING_KEY, end-entity first.',
  C2PA_TSA_URL: 'RFC 3161 timestamp authority used when signing. Unset: no timestamp.',
  WORKFLOW_CONCURRENCY: 'Verifications analysed at the same time by the in-process workflow engine.',
  WORKFLOW_RUN_CONCURRENCY: 'Workflow runs the in-process engine executes at once (image-only checks, mail, pairs waiting for an analysis thread); runs waiting on a timer do not count.',
  WORKFLOW_SWEEP_MS: 'How often the in-process workflow engine resumes unfinished runs and runs the recovery sweeps (it also does when the service starts).',
  METERING_RELEASE_GRACE_MS: 'Age past which a metered RAW+image reservation whose verification was never queued (a process killed mid-upload), or a PSD export reservation whose export was never recorded, is released; must exceed the longest upload or export request.',
  ANCHOR_INTERVAL_SECONDS: 'Anchors: a batch of completed verifications is sealed (Merkle root signed, docs/audit.md) once its oldest record has waited this many seconds, or sooner when ANCHOR_BATCH_SIZE records wait.',
  ANCHOR_BATCH_SIZE: 'Anchors: the most records in one batch (1-1024); this many waiting seal a batch at once.',
  ANCHOR_TSA_URL: 'RFC 3161 timestamp authority that timestamps each anchor batch\'s signed tree head (an operator setting, never from a request). Unset: anchors are signed, not timestamped.',
  RAW_RETENTION: '`discard`: a RAW file is deleted once its verification has finished (its hashes, metadata and the renditions the report and the PSD export need stay; event RawFileDiscarded). `keep`: RAW files are kept until their verification is deleted.',
  PGLITE_SHARED_BUFFERS_MB: 'Shared buffers of the embedded PGlite database (ignored with DATABASE_URL); PGlite keeps them in its WebAssembly memory.',
  CRASH_AT: 'Crash tests only, never in production: `<workflow>.<activity>:before` or `:after` makes the in-process engine kill its own process (SIGKILL) the first time a run reaches that step (test/workflows/crash-points.test.ts).',
};

/**
 * The path part of PUBLIC_BASE_URL without its trailing slash ('' at the root): pages link with
 * absolute paths under it, since a proxy may mount the service below /.
 */
export const publicBasePath = (config: Pick<Config, 'PUBLIC_BASE_URL'>): string => new URL(config.PUBLIC_BASE_URL).pathname.replace(/\/+$/, '');
