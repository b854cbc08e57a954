import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { c2paReader } from './provenance/c2pa-reader.js';
import type { Config } from './core/config.js';
import { describeBlobStore } from './adapters/blobs/index.js';

/**
 * What the start-up log line says (docs/decisions/ D-045): the address the server actually
 * bound, a URL a person on that machine can open, and each component the configuration chose,
 * with every secret in a connection string masked.
 */

const MASK = '***';
const SECRET_PARAM = /pass|secret|token|key/i;

/** A connection string with its password (and any password-like query parameter) replaced by ***. */
export function maskSecrets(connection: string): string {
  let url: URL;
  try {
    url = new URL(connection);
  } catch {
    // Not a URL (e.g. a bare host:port): still never print what looks like credentials.
    return connection.replace(/\/\/([^:/@]*):[^@/]*@/, `//$1:${MASK}@`);
  }
  if (url.password) url.password = MASK;
  for (const name of [...url.searchParams.keys()]) {
    if (SECRET_PARAM.test(name)) url.searchParams.set(name, MASK);
  }
  // URLSearchParams percent-encodes the mask; keep it readable.
  return url.toString().replaceAll(encodeURIComponent(MASK), MASK);
}

const WILDCARDS = new Set(['0.0.0.0', '::', '']);

/** `0.0.0.0:8080` or `[::1]:8080`: the socket's own address, as bound. */
export function boundAddress(address: AddressInfo): string {
  return address.family === 'IPv6' ? `[${address.address}]:${address.port}` : `${address.address}:${address.port}`;
}

/** A URL to open on this machine: a wildcard bind answers on localhost; otherwise the bound address itself. */
export function localUrl(address: AddressInfo, hostname = 'localhost'): string {
  if (WILDCARDS.has(address.address)) return `http://${hostname}:${address.port}`;
  return address.family === 'IPv6' ? `http://[${address.address}]:${address.port}` : `http://${address.address}:${address.port}`;
}

export interface Components {
  database: string;
  event_store: string;
  workflow_engine: string;
  mail: string;
  blob_store: string;
  /** Native c2pa-rs when built, else c2pa-wasm (D-058). */
  c2pa_reader: string;
}

/** Each component as configured, in words, secrets masked. */
export function describeComponents(config: Config): Components {
  const pglite = `PGlite (embedded PostgreSQL) in ${path.join(config.DATA_DIR, 'pglite')}`;
  const database = config.DATABASE_URL ? `PostgreSQL ${maskSecrets(config.DATABASE_URL)}` : pglite;
  return {
    database,
    event_store: config.EVENTSTORE_URL ? `EventStoreDB ${maskSecrets(config.EVENTSTORE_URL)}` : `the database (${config.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`,
    workflow_engine: config.TEMPORAL_ADDRESS
      ? `Temporal ${maskSecrets(config.TEMPORAL_ADDRESS)} (namespace ${config.TEMPORAL_NAMESPACE}, task queue ${config.TEMPORAL_TASK_QUEUE})`
      : `in-process (${config.WORKFLOW_CONCURRENCY} at a time)`,
    mail: config.SMTP_URL ? `SMTP ${maskSecrets(config.SMTP_URL)}` : `file outbox ${path.join(config.DATA_DIR, 'outbox')} (no SMTP_URL)`,
    blob_store: maskSecrets(describeBlobStore(config)),
    c2pa_reader: c2paReader().description,
  };
}
