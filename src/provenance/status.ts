/**
 * Validation status codes in success / informational / failure buckets (c2pa-rs
 * validation_results), and the overall state computed from them by one pure function.
 */

export type StatusBucket = 'success' | 'informational' | 'failure';
export type ValidationState = 'Invalid' | 'Valid' | 'Trusted';

export interface StatusCode {
  code: string;
  explanation: string;
  url?: string;
  /** `active` = the active manifest; otherwise the ingredient URI the delta belongs to. */
  scope: string;
}

export type StatusBuckets = Record<StatusBucket, StatusCode[]>;

export const emptyBuckets = (): StatusBuckets => ({ success: [], informational: [], failure: [] });

interface RawStatus {
  code?: unknown;
  explanation?: unknown;
  url?: unknown;
}
interface RawBuckets {
  success?: RawStatus[];
  informational?: RawStatus[];
  failure?: RawStatus[];
}

function fromRaw(raw: RawBuckets | undefined, scope: string, into: StatusBuckets): void {
  for (const bucket of ['success', 'informational', 'failure'] as const) {
    for (const status of raw?.[bucket] ?? []) {
      if (typeof status.code !== 'string') continue;
      into[bucket].push({
        code: status.code,
        explanation: typeof status.explanation === 'string' ? status.explanation : '',
        ...(typeof status.url === 'string' ? { url: status.url } : {}),
        scope,
      });
    }
  }
}

/** Every status of the active manifest and of each ingredient delta. */
export function collectStatuses(validationResults: unknown): StatusBuckets {
  const buckets = emptyBuckets();
  const results = (validationResults ?? {}) as {
    activeManifest?: RawBuckets;
    ingredientDeltas?: Array<{ ingredientAssertionURI?: string; validationDeltas?: RawBuckets }>;
  };
  fromRaw(results.activeManifest, 'active', buckets);
  for (const delta of results.ingredientDeltas ?? []) {
    fromRaw(delta.validationDeltas, delta.ingredientAssertionURI ?? 'ingredient', buckets);
  }
  return buckets;
}

/**
 * Failures that do not make a manifest Invalid: an untrusted signer only withholds `Trusted`,
 * and CAWG identity assertions are validated separately from the C2PA claim.
 */
export const nonInvalidating = (code: string): boolean =>
  code === 'signingCredential.untrusted' || code.startsWith('cawg.');

/**
 * As c2pa-rs computes `validation_state`: any invalidating failure of the active manifest or of
 * an ingredient delta (a failure in an ingredient's manifest that the active manifest's signer
 * did not record when it took the ingredient) makes the store Invalid; only the active
 * manifest's own signer decides `Trusted`.
 */
export function computeValidationState(buckets: StatusBuckets): ValidationState {
  if (buckets.failure.some((s) => !nonInvalidating(s.code))) return 'Invalid';
  if (buckets.success.some((s) => s.scope === 'active' && s.code === 'signingCredential.trusted')) return 'Trusted';
  return 'Valid';
}

/** Failure codes of the active manifest and of the ingredient deltas, each in reading order. */
export function failureCodes(buckets: StatusBuckets): { active: string[]; ingredients: string[] } {
  return {
    active: buckets.failure.filter((s) => s.scope === 'active').map((s) => s.code),
    ingredients: buckets.failure.filter((s) => s.scope !== 'active').map((s) => s.code),
  };
}
