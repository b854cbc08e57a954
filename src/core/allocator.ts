/**
 * glibc's malloc keeps what a process frees: each thread that allocated gets an arena of up to
 * 64 MiB that outlives the thread, and once a large block has been freed the mmap threshold
 * rises to its size, so later multi-megabyte buffers (uploads, decoded frames) come from those
 * arenas and fragment them. After 10 concurrent 30D pairs the service held ~920 MiB a minute
 * later; with these two settings, 331-338 MiB (D-062, docs/performance.md). They are read only
 * when the process starts, so the launchers set them: `npm start` (package.json, the same
 * values) and process managers (docs/operations.md). The start-up log says when they are missing.
 */
export const allocatorEnv = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' } as const;

/** The C library's version when it is glibc (null on musl, macOS, Windows). */
function glibcVersion(): string | null {
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return header?.glibcVersionRuntime ?? null;
}

/** For the start-up log: the allocator settings in force, or what is missing. */
export function describeAllocator(env: NodeJS.ProcessEnv = process.env, glibc: string | null = glibcVersion()): { text: string; tuned: boolean } {
  if (!glibc) return { text: 'not glibc (no tuning needed)', tuned: true };
  const missing = Object.keys(allocatorEnv).filter((name) => !env[name]);
  if (missing.length === 0) return { text: `glibc ${glibc}, ${Object.keys(allocatorEnv).map((name) => `${name}=${env[name]}`).join(' ')}`, tuned: true };
  return {
    text: `glibc ${glibc} without ${missing.join(', ')}: memory freed after analyses stays with the process (set ${Object.entries(allocatorEnv).map(([k, v]) => `${k}=${v}`).join(' ')}, as npm start does)`,
    tuned: false,
  };
}
