import crypto from 'node:crypto';
import type { StoredEvent } from '../es/event-store.js';
import type { Principal } from '../principal.js';
import type { ReadModels } from '../es/projector.js';
import { streamName } from '../es/streams.js';

/**
 * Principals resolved from credentials (session tokens, API keys), kept for a few seconds so a
 * client's burst of requests does not look its key and user up on every one (D-048).
 *
 * Correctness does not rest on the expiry: every page of events that reaches the read models
 * and could change what a credential stands for (anything on an account or API-key stream:
 * a revoked key, a user's role or account) empties the cache before any read-your-writes wait
 * on it resolves. A revocation therefore takes effect for the next request in this process
 * (the revoke call answers only after its events are projected) and within one projection poll
 * in other processes sharing the database. Only successes are cached; a rejected credential is
 * looked up again every time. Entries never outlive the credential's own expiry.
 */
export class PrincipalCache {
  private readonly entries = new Map<string, { principal: Principal; untilMs: number }>();

  constructor(
    private readonly ttlMs = 5_000,
    private readonly maxEntries = 10_000,
  ) {}

  /** Empties the cache whenever projected events touch what credentials resolve to. */
  watch(readModels: Pick<ReadModels, 'onApplied'>): () => void {
    return readModels.onApplied((events) => {
      if (events.some(changesCredentials)) this.clear();
    });
  }

  get(credential: string, nowMs: number): Principal | undefined {
    const key = keyOf(credential);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.untilMs <= nowMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.principal;
  }

  /** `expiresAtMs`: when the credential itself stops being valid. */
  set(credential: string, principal: Principal, nowMs: number, expiresAtMs: number): void {
    if (this.ttlMs <= 0) return;
    // Oldest first: Map keeps insertion order, so the first key is the one to drop.
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(keyOf(credential), { principal: Object.freeze({ ...principal }), untilMs: Math.min(nowMs + this.ttlMs, expiresAtMs) });
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}

/** Keyed by a hash: the cache holds no credential itself. */
const keyOf = (credential: string) => crypto.createHash('sha256').update(credential).digest('base64url');

/** Key use is telemetry (at most once a minute per key): it changes nothing a principal carries. */
const CREDENTIAL_STREAMS = [streamName('account', ''), streamName('apikey', '')];
const changesCredentials = (event: StoredEvent) => event.type !== 'ApiKeyUsed' && CREDENTIAL_STREAMS.some((prefix) => event.stream.startsWith(prefix));
