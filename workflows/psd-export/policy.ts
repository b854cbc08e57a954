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

/** The PSD format's largest side (Adobe's specification: width and height 1 to 30,000; PSB, not written here, goes beyond). */
export const PSD_MAX_SIDE = 30_000;

/**
 * The largest canvas the service exports (width x height, orientation applied): 32 MP. ag-psd
 * writes the whole file in memory, so an export's peak grows with the canvas: about 38 MiB a
 * megapixel over a 190 MiB base for an incompressible photo (noise: RLE saves nothing). Measured
 * 1,107 / 1,416 / 1,717 MiB at 24 / 32 / 40 MP (bench/psd-export.ts measurePsdExport, noisyPhoto;
 * docs/psd-export.md "How it runs, and its memory"): 32 MP keeps the worst case within the
 * 1.5 GiB budget of one export with 8 % to spare.
 */
export const PSD_MAX_CANVAS_PIXELS = 32_000_000;
