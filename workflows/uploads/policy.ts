/**
 * How long an upload lives. Pure constants: the expiry workflow (bundled by Temporal) and the
 * decider both read them.
 */

/** Upload URLs, like every pre-signed URL of the service, last 1 hour (spec 8). */
export const UPLOAD_TTL_SECONDS = 3600;

/**
 * An unused upload's file is deleted this long after its id expires, not at once: a verify call
 * that accepted the id just before it expired is still copying the file, and must not lose it
 * (D-076). The copy takes seconds (at most MAX_UPLOAD_BYTES from the local blob store).
 */
export const UPLOAD_EXPIRY_GRACE_MS = 15 * 60_000;

/** When an upload whose id expires at `expiresAt` may have its file deleted. */
export const uploadDeletableAt = (expiresAt: string | Date): Date => new Date(new Date(expiresAt).getTime() + UPLOAD_EXPIRY_GRACE_MS);
