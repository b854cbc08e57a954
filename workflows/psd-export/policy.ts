/**
 * How long a PSD export lives and how often it may be downloaded (spec 8). Pure constants: the
 * workflow (bundled by Temporal), the decider and the views all read them.
 */

/** An export is downloadable for 30 days after it completed; then its file is deleted. */
export const PSD_EXPORT_TTL_MS = 30 * 86_400_000;

/** Downloads per export. */
export const PSD_DOWNLOADS_LIMIT = 5;

/** When an export completed at `completedAt` expires. */
export const psdExportExpiresAt = (completedAt: string | Date): Date => new Date(new Date(completedAt).getTime() + PSD_EXPORT_TTL_MS);
