/**
 * The PSD builder's stand-in for the suites about what surrounds it (the export's life, its
 * routes and pages): it stores a small file where the real builder would and answers with its
 * fields (test/psd builds real files). Use it from a `vi.mock` factory of
 * src/features/psd-export/psd-file.js through a dynamic import (the factory is hoisted).
 */
export interface StubPsdDeps {
  blobs: { put(key: string, bytes: Uint8Array): Promise<{ size: number; sha256: string }> };
}

export async function storeStubPsd(
  deps: StubPsdDeps,
  verificationId: string,
  { canvas = { width: 30, height: 20 }, bytes = Buffer.from(`8BPS stub export of ${verificationId}`) }: { canvas?: { width: number; height: number }; bytes?: Uint8Array } = {},
) {
  const blobKey = `verifications/${verificationId}/export.psd`;
  const stored = await deps.blobs.put(blobKey, bytes);
  return { blobKey, sha256: stored.sha256, fileSizeBytes: stored.size, canvasWidth: canvas.width, canvasHeight: canvas.height };
}

/** The 30D's canvas, for suites whose pages show the export's size. */
export const CANVAS_30D = { width: 3504, height: 2336 };
