import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino, type Logger } from 'pino';
import { loadConfig } from '../../src/core/config.js';
import { startService, type Service } from '../../src/service.js';
import type { Clock } from '../../src/adapters/workflows/clock.js';
import type { DatabaseTarget } from './databases.js';
import { capturedLogger, recordSecretsIn } from './log-capture.js';
import { listBucket, s3ServiceEnv } from './s3.js';

export interface TestService {
  service: Service;
  url: string;
  dataDir: string;
  /** Number of events in the log: bad requests must leave it unchanged. */
  eventCount(): Promise<number>;
  /**
   * Every stored blob, staged ones and unfinished uploads included, in whichever store the
   * service uses (files under dataDir/blobs, or its bucket): refused uploads must leave it unchanged.
   */
  storedBlobs(): Promise<string[]>;
  /**
   * Every workflow finished and every read model caught up with the log. Workflow events are
   * projected asynchronously (on PostgreSQL a poll may pass before the last one is seen).
   */
  settled(): Promise<void>;
  /**
   * Stops the service and starts it again on the same database and data dir (options.persistent:
   * PGlite on disk), as a process restart would; `service` and `url` then name the new one.
   */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export interface TestServiceOptions {
  /** The service's clock (deps.now and the in-process engine's timers). */
  clock?: Clock;
  /** How often the in-process engine looks for due runs (default 30 s). */
  workflowSweepMs?: number;
  /** PGlite in the data dir instead of in memory, so that `restart` keeps the database. */
  persistent?: boolean;
  /** The service's logger; by default the run's captured log (test/support/log-capture.ts), or silent. */
  logger?: Logger;
}

/** A real service on a real socket (port 0), on the given database, with a scratch data dir. */
export async function startTestService(target: DatabaseTarget, env: Record<string, string> = {}, options: TestServiceOptions = {}): Promise<TestService> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-test-'));
  const scratch = await target.scratchUrl();
  // BLOB_STORE=s3: the same suite with its blobs in a new bucket on the run's S3 server (test/support/s3.ts).
  const blobStore = process.env.BLOB_STORE === 's3' ? await s3ServiceEnv() : {};
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    PASSWORD_HASH_COST: '10',
    LOG_LEVEL: 'silent',
    ...(scratch.url ? { DATABASE_URL: scratch.url } : {}),
    ...blobStore,
    ...env,
  });
  const logger = options.logger ?? capturedLogger() ?? pino({ level: 'silent' });
  const start = () =>
    startService(config, { logger, inMemoryDatabase: !scratch.url && !options.persistent, clock: options.clock, workflowSweepMs: options.workflowSweepMs });
  const service = await start();
  const t: TestService = {
    service,
    url: service.url,
    dataDir,
    async eventCount() {
      const rows = await t.service.deps.knex('events').count<{ count: string }[]>('* as count');
      return Number(rows[0]?.count ?? 0);
    },
    async storedBlobs() {
      const { S3_ENDPOINT, S3_BUCKET, S3_REGION, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY } = t.service.deps.config;
      if (S3_ENDPOINT && S3_BUCKET) {
        const server = { endpoint: S3_ENDPOINT, region: S3_REGION, accessKeyId: S3_ACCESS_KEY_ID ?? '', secretAccessKey: S3_SECRET_ACCESS_KEY ?? '' };
        const { objects, uploads } = await listBucket(server, S3_BUCKET);
        return [...objects, ...uploads.map((key) => `(upload) ${key}`)];
      }
      const root = path.join(dataDir, 'blobs');
      return (fs.readdirSync(root, { recursive: true, withFileTypes: true }) as fs.Dirent[]).filter((e) => e.isFile()).map((e) => path.relative(root, path.join(e.parentPath, e.name)));
    },
    async settled() {
      await t.service.deps.workflows.idle();
      if (!(await t.service.deps.readModels.waitFor(await t.service.deps.store.headPosition(), 30_000))) throw new Error('read models did not catch up within 30 s');
    },
    async restart() {
      if (!scratch.url && !options.persistent) throw new Error('restart needs a database that outlives the service: pass { persistent: true }');
      await t.service.stop();
      t.service = await start();
      t.url = t.service.url;
    },
    async stop() {
      await t.service.stop();
      recordMailedSecrets(dataDir);
      await scratch.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return t;
}

/** The links in the outbox's e-mails carry tokens (invitations, set-password): looked for in the logs too. */
function recordMailedSecrets(dataDir: string): void {
  const outbox = path.join(dataDir, 'outbox');
  if (!fs.existsSync(outbox)) return;
  for (const file of fs.readdirSync(outbox)) {
    const text = fs.readFileSync(path.join(outbox, file), 'utf8').replace(/=\r?\n/g, '');
    for (const link of text.match(/https?:\/\/[^\s"'<>]+/g) ?? []) recordSecretsIn(link);
  }
}

export interface CallOptions {
  token?: string;
  apiKey?: string;
  json?: unknown;
  body?: string;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  body: any;
  headers: Headers;
}

/** HTTP over the socket, the way a client does it. */
export function client(baseUrl: string) {
  return async function call(method: string, route: string, options: CallOptions = {}): Promise<CallResult> {
    const headers: Record<string, string> = { ...options.headers };
    recordSecretsIn({ token: options.token, raw_key: options.apiKey, body: options.json });
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.apiKey) headers['x-api-key'] = options.apiKey;
    let body: string | undefined = options.body;
    if (options.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(options.json);
    } else if (body !== undefined) {
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${baseUrl}${route}`, { method, headers, body, redirect: 'manual' });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    recordSecretsIn(parsed);
    recordSecretsIn(response.headers.get('location') ?? '');
    return { status: response.status, body: parsed, headers: response.headers };
  };
}

let counter = 0;
/** Registers an account and logs its admin in. */
export async function registerAccount(call: ReturnType<typeof client>, overrides: Record<string, unknown> = {}) {
  counter += 1;
  const admin = (overrides.admin as { email: string; password: string } | undefined) ?? {
    email: `admin${counter}-${Date.now()}@example.eu`,
    name: `Admin ${counter}`,
    password: 'a long enough password',
  };
  const { email, password } = admin;
  recordSecretsIn({ password });
  const registered = await call('POST', '/v1/accounts', { json: { name: `Account ${counter}`, ...overrides, admin } });
  if (registered.status !== 201) throw new Error(`registration failed: ${registered.status} ${JSON.stringify(registered.body)}`);
  const login = await call('POST', '/v1/accounts/login', { json: { email, password } });
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${JSON.stringify(login.body)}`);
  return { account: registered.body.account, user: registered.body.user, token: login.body.access_token as string, email, password };
}

/**
 * An image-only verification of one fixture file (path under ../shared/fixtures), uploaded with
 * the token; its id. Anything but 201 fails, with the answer in the message.
 */
export async function uploadImage(baseUrl: string, token: string, file = 'images/rs_sample1.webp', name = path.basename(file)): Promise<string> {
  const form = new FormData();
  form.append('image', new Blob([new Uint8Array(fs.readFileSync(path.resolve(import.meta.dirname, '../../../shared/fixtures', file)))]), name);
  const response = await fetch(`${baseUrl}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const body = await response.text();
  if (response.status !== 201) throw new Error(`upload of ${file} answered ${response.status}: ${body}`);
  return (JSON.parse(body) as { id: string }).id;
}

/**
 * The Canon EOS 30D pair (its camera preview as the photo, named IMG_5952.jpg, and its CR2)
 * uploaded with the token; the verification's id. Anything but 201 fails, with the answer.
 */
export async function uploadPair(baseUrl: string, token: string): Promise<string> {
  const file = (name: string) => new Blob([new Uint8Array(fs.readFileSync(path.resolve(import.meta.dirname, '../../../shared/fixtures/pairs/canon_eos_30d_cr2', name)))]);
  const form = new FormData();
  form.append('image', file('IMG_5952.camera-preview.jpg'), 'IMG_5952.jpg');
  form.append('raw', file('IMG_5952.CR2'), 'IMG_5952.CR2');
  const response = await fetch(`${baseUrl}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const body = await response.text();
  if (response.status !== 201) throw new Error(`pair upload answered ${response.status}: ${body}`);
  return (JSON.parse(body) as { id: string }).id;
}
