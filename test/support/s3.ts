import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, ListMultipartUploadsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { freePort } from './processes.js';
import { requires, type Gate } from './requires.js';

/**
 * A real S3-compatible server for the blob store's suites: the one at S3_TEST_ENDPOINT (with
 * S3_TEST_ACCESS_KEY_ID and S3_TEST_SECRET_ACCESS_KEY), or else a versitygw (VERSITYGW_BIN, or
 * `versitygw` in the Go bin directory or on the PATH) started here, serving a temporary directory
 * on a free port, one per test process, stopped when the process exits.
 */

export interface S3Server {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}

const external = process.env.S3_TEST_ENDPOINT?.trim();

function findVersitygw(): string | undefined {
  const home = os.homedir();
  const candidates = [
    process.env.VERSITYGW_BIN,
    process.env.GOBIN && path.join(process.env.GOBIN, 'versitygw'),
    process.env.GOPATH && path.join(process.env.GOPATH, 'bin', 'versitygw'),
    path.join(home, 'go', 'bin', 'versitygw'),
    ...(process.env.PATH ?? '').split(path.delimiter).map((dir) => dir && path.join(dir, 'versitygw')),
  ];
  return candidates.find((file): file is string => Boolean(file) && fs.existsSync(file as string));
}

export const versitygwBin = findVersitygw();

/** Whether an S3 server is there for `what`; otherwise the suite skips and says so. */
export function requiresS3(what: string): Gate {
  return requires(
    {
      server: 'S3-compatible server',
      variable: 'S3_TEST_ENDPOINT',
      available: Boolean(external) || Boolean(versitygwBin),
      how: 'or VERSITYGW_BIN; `go install github.com/versity/versitygw/cmd/versitygw@v1.8.0` puts it in ~/go/bin, and .ci/run does',
    },
    what,
  );
}

/** The service's default S3_REGION (an EU region, as processing is). */
const REGION = 'eu-central-1';

let started: Promise<S3Server> | undefined;

/** The run's S3 server (started once per test process). */
export function s3Server(): Promise<S3Server> {
  if (external) {
    return Promise.resolve({
      endpoint: external,
      accessKeyId: process.env.S3_TEST_ACCESS_KEY_ID ?? '',
      secretAccessKey: process.env.S3_TEST_SECRET_ACCESS_KEY ?? '',
      region: process.env.S3_TEST_REGION ?? 'eu-central-1',
    });
  }
  started ??= startVersitygw();
  return started;
}

async function startVersitygw(): Promise<S3Server> {
  if (!versitygwBin) throw new Error('no versitygw binary (VERSITYGW_BIN)');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-s3-'));
  const port = await freePort();
  const accessKeyId = 'photoverify-test';
  const secretAccessKey = crypto.randomBytes(18).toString('base64url');
  // vitest ends its worker processes with a signal, which skips 'exit' handlers: a small shell
  // watchdog stops the server (and removes its directory) once this process is gone, however it ended.
  const watchdog = [
    '"$VERSITYGW" "$@" & server=$!',
    'trap \'kill $server 2>/dev/null; rm -rf "$ROOT"; exit 0\' TERM INT',
    'while kill -0 "$OWNER" 2>/dev/null && kill -0 $server 2>/dev/null; do sleep 1; done',
    'kill $server 2>/dev/null; wait $server; rm -rf "$ROOT"',
  ].join('\n');
  const args = ['--access', accessKeyId, '--secret', secretAccessKey, '--region', REGION, '--port', `127.0.0.1:${port}`, 'posix', root];
  const child: ChildProcess = spawn('sh', ['-c', watchdog, 'versitygw-watchdog', ...args], {
    env: { ...process.env, VERSITYGW: versitygwBin, ROOT: root, OWNER: String(process.pid) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  // The test process must be able to end while the server runs.
  child.unref();
  (child.stdout as unknown as { unref?: () => void }).unref?.();
  (child.stderr as unknown as { unref?: () => void }).unref?.();
  process.once('exit', () => child.kill('SIGTERM'));
  const endpoint = `http://127.0.0.1:${port}`;
  // Generous: the first start on a loaded machine can take a while.
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`versitygw exited: ${output}`);
    const answered = await fetch(endpoint).then(
      () => true,
      () => false,
    );
    if (answered) return { endpoint, accessKeyId, secretAccessKey, region: REGION };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGTERM');
  throw new Error(`versitygw did not answer on ${endpoint}: ${output}`);
}

export function s3Client(server: S3Server): S3Client {
  return new S3Client({
    endpoint: server.endpoint,
    region: server.region,
    credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** A new empty bucket on the server (one per suite or service, so runs never see each other's objects). */
export async function newBucket(server: S3Server): Promise<string> {
  const bucket = `pv-${crypto.randomUUID()}`;
  const client = s3Client(server);
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    client.destroy();
  }
  return bucket;
}

/** Every object key in the bucket, and the keys of unfinished multipart uploads. */
export async function listBucket(server: S3Server, bucket: string): Promise<{ objects: string[]; uploads: string[] }> {
  const client = s3Client(server);
  try {
    const objects: string[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
      objects.push(...(page.Contents ?? []).map((o) => o.Key!));
      token = page.NextContinuationToken;
    } while (token);
    const uploads = ((await client.send(new ListMultipartUploadsCommand({ Bucket: bucket }))).Uploads ?? []).map((u) => u.Key!);
    return { objects: objects.sort(), uploads };
  } finally {
    client.destroy();
  }
}

/** The service's settings for a new bucket on the run's server (BLOB_STORE=s3 in test/support/service.ts). */
export async function s3ServiceEnv(): Promise<Record<string, string>> {
  const server = await s3Server();
  return {
    S3_ENDPOINT: server.endpoint,
    S3_BUCKET: await newBucket(server),
    S3_REGION: server.region,
    S3_ACCESS_KEY_ID: server.accessKeyId,
    S3_SECRET_ACCESS_KEY: server.secretAccessKey,
    S3_FORCE_PATH_STYLE: 'true',
  };
}
