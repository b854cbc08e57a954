/**
 * Reads and validates a C2PA manifest store with c2pa-rs (native or wasm: c2pa-reader.ts),
 * offline. c2pa-rs knows a single trust anchor list, so the separate signer / TSA / legacy
 * lists are enforced with extra validation passes that run only when a trust decision could
 * depend on the wrong list.
 */
import { c2paReader } from './c2pa-reader.js';
import { collectStatuses, computeValidationState, type StatusBuckets, type ValidationState } from './status.js';
import type { TrustAnchors } from './trust.js';

export type SignerTrust = 'trusted' | 'legacy' | 'untrusted' | 'unchecked';

export interface ManifestStore {
  active_manifest?: string;
  manifests?: Record<string, Manifest>;
  validation_state?: string;
  validation_results?: unknown;
}

export interface Manifest {
  claim_generator?: string;
  claim_generator_info?: Array<{ name?: string; version?: string }>;
  title?: string;
  assertions?: Array<{ label?: string; data?: unknown }>;
  ingredients?: Array<{
    title?: string;
    format?: string;
    relationship?: string;
    active_manifest?: string;
    /** Failures the ingredient had when the signer took it (v1/v2 ingredients): a list of statuses. */
    validation_status?: unknown;
    /** The same for v3 ingredients: success / informational / failure buckets with deltas. */
    validation_results?: unknown;
  }>;
  signature_info?: { alg?: string; issuer?: string; common_name?: string; cert_serial_number?: string; time?: string };
}

export type ReadOutcome =
  | {
      kind: 'manifest';
      store: ManifestStore;
      statuses: StatusBuckets;
      state: ValidationState;
      /** The state c2pa-rs itself reported for the main pass, kept for cross-checking. */
      reportedState: string;
      signerTrust: SignerTrust;
    }
  | { kind: 'no_manifest' }
  | { kind: 'remote_manifest'; url: string }
  | { kind: 'unknown_algorithm'; error: string }
  | { kind: 'prerelease'; error: string }
  | { kind: 'unreadable'; error: string };

/** Reader settings: never fetch remote manifests or OCSP responses on untrusted input. */
export function readerContext(anchors: string[]): string {
  return JSON.stringify({
    verify: { remote_manifest_fetch: false, ocsp_fetch: false, verify_trust: true, verify_timestamp_trust: true },
    ...(anchors.length > 0 ? { trust: { trust_anchors: anchors.join('') } } : {}),
  });
}

async function readPass(mime: string, bytes: Uint8Array, anchors: string[]): Promise<ManifestStore> {
  return JSON.parse(await c2paReader().readJson(mime, bytes, readerContext(anchors))) as ManifestStore;
}

const hasSuccess = (buckets: StatusBuckets, code: string) =>
  buckets.success.some((s) => s.scope === 'active' && s.code === code);

/** Moves a success code of the active manifest to another bucket under a new code. */
function demote(buckets: StatusBuckets, code: string, to: 'failure' | 'informational', newCode: string, why: string): StatusBuckets {
  const moved = buckets.success.filter((s) => s.scope === 'active' && s.code === code);
  return {
    ...buckets,
    success: buckets.success.filter((s) => !moved.includes(s)),
    [to]: [...buckets[to], ...moved.map((s) => ({ ...s, code: newCode, explanation: `${why} (${s.explanation})` }))],
  };
}

function classifyError(error: unknown): ReadOutcome {
  const text = error instanceof Error ? error.message : String(error);
  const kind = /C2pa\((\w+)/.exec(text)?.[1];
  if (kind === 'JumbfNotFound') return { kind: 'no_manifest' };
  if (kind === 'RemoteManifestUrl') return { kind: 'remote_manifest', url: /"([^"]+)"/.exec(text)?.[1] ?? '' };
  if (kind === 'UnknownAlgorithm') return { kind: 'unknown_algorithm', error: text };
  if (kind === 'PrereleaseError') return { kind: 'prerelease', error: text };
  return { kind: 'unreadable', error: text };
}

const without = (list: string[], remove: string[]) => list.filter((pem) => !remove.includes(pem));

export async function readManifestStore(bytes: Uint8Array, mime: string, anchors: TrustAnchors): Promise<ReadOutcome> {
  const combined = [...new Set([...anchors.signer, ...anchors.tsa])];
  let store: ManifestStore;
  try {
    store = await readPass(mime, bytes, combined);
  } catch (error) {
    return classifyError(error);
  }
  const reportedState = store.validation_state ?? 'Invalid';
  let statuses = collectStatuses(store.validation_results);

  const tsaOnly = without(anchors.tsa, anchors.signer);
  if (hasSuccess(statuses, 'signingCredential.trusted') && tsaOnly.length > 0) {
    const viaTsa = collectStatuses((await readPass(mime, bytes, tsaOnly)).validation_results);
    if (hasSuccess(viaTsa, 'signingCredential.trusted')) {
      statuses = demote(statuses, 'signingCredential.trusted', 'failure', 'signingCredential.untrusted',
        'signing certificate chains only to a TSA trust anchor, which is not a signer anchor');
    }
  }
  const signerOnly = without(anchors.signer, anchors.tsa);
  if (hasSuccess(statuses, 'timeStamp.trusted') && signerOnly.length > 0) {
    const viaSigner = collectStatuses((await readPass(mime, bytes, signerOnly)).validation_results);
    if (hasSuccess(viaSigner, 'timeStamp.trusted')) {
      statuses = demote(statuses, 'timeStamp.trusted', 'informational', 'timeStamp.untrusted',
        'timestamp authority chains only to a signer trust anchor, which is not a TSA anchor');
    }
  }

  let signerTrust: SignerTrust = hasSuccess(statuses, 'signingCredential.trusted')
    ? 'trusted'
    : anchors.signer.length > 0
      ? 'untrusted'
      : 'unchecked';
  if (signerTrust !== 'trusted' && anchors.legacy.length > 0) {
    const legacyPass = collectStatuses((await readPass(mime, bytes, [...new Set([...anchors.legacy, ...anchors.tsa])])).validation_results);
    if (hasSuccess(legacyPass, 'signingCredential.trusted')) {
      signerTrust = 'legacy';
      statuses = demote(legacyPass, 'signingCredential.trusted', 'informational', 'signingCredential.legacyTrustList',
        'signing certificate chains to the retired interim (legacy) trust list, not the current one');
    }
  }
  return { kind: 'manifest', store, statuses, state: computeValidationState(statuses), reportedState, signerTrust };
}
