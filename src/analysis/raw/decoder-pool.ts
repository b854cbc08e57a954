/**
 * A small, bounded pool of libraw-wasm instances. Each instance is a worker thread holding a
 * ~256 MB wasm heap, so the pool is kept small (default 1 on a 2-core box) and instances are
 * disposed when idle, on a watchdog verdict and on any worker failure. Idle workers are unref'd,
 * so a process that forgets `shutdownRawDecoders()` still exits.
 *
 * The watchdog judges a decode by the decoder thread's own processor time, not by the clock
 * (D-094): on a busy machine a decode waits for a
 * core and takes long on the clock while doing no more work, and that is the service's fault,
 * never the file's. Only a decoder that spent its whole CPU budget is evidence against the file.
 */
import { availableParallelism } from 'node:os';
import type LibRaw from 'libraw-wasm';
import { installWorkerShim } from './worker-shim.js';

export interface DecodeLimits {
  /** Processor time the decoder thread may use for one decode; more is evidence the file makes it loop. */
  cpuBudgetMs: number;
  /** The decoder thread used no processor time for this long: stuck (a lost message), a service fault. */
  stallMs: number;
  /** Where processor time cannot be read (no /proc): a decode not finished on the clock within this is a service fault. */
  wallLimitMs: number;
}

export interface RawDecoderPoolOptions extends Partial<DecodeLimits> {
  /** Concurrent decoders (worker threads). Default: 1, or 2 with 4+ cores. */
  size?: number;
  /** Idle instances are disposed after this long. Default 5 s. */
  idleMs?: number;
}

/**
 * The decoder spent its whole CPU budget without finishing: the file keeps it busy (a hostile or
 * damaged RAW). A verdict on the file; the worker has been terminated.
 */
export class DecodeBudgetExceededError extends Error {
  constructor(
    readonly cpuMs: number,
    readonly cpuBudgetMs: number,
  ) {
    super(`RAW decode used ${cpuMs} ms of processor time without finishing (budget ${cpuBudgetMs} ms)`);
    this.name = 'DecodeBudgetExceededError';
  }
}

/**
 * The decode made no progress for reasons that say nothing about the file (the decoder thread
 * got no processor time, or cannot be measured and the clock ran out): a service fault, worth
 * retrying on a fresh worker. The worker has been terminated.
 */
export class DecodeStalledError extends Error {
  readonly serviceFault = true;
  constructor(
    message: string,
    readonly waitedMs: number,
  ) {
    super(message);
    this.name = 'DecodeStalledError';
  }
}

/** Thrown when the worker thread died (wasm abort, out of memory). */
export class DecoderCrashError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DecoderCrashError';
  }
}

/**
 * A decode's CPU budget sized by its work: the file's bytes stand for its pixels (1-2 bytes per
 * pixel in every supported format). A 7.5 MB Canon 30D CR2 decodes in ~0.5 s of CPU; its budget
 * is 35 s, 70 times that, so only a decoder that loops is stopped by it.
 */
export function decodeCpuBudgetMs(fileBytes: number): number {
  return 20_000 + Math.ceil((fileBytes / 1_000_000) * 2_000);
}

export const defaultStallMs = 60_000;
export const defaultWallLimitMs = 180_000;

interface ShimWorker {
  onerror: ((event: { message: string }) => void) | null;
  cpuTimeMs(): number | undefined;
  ref(): void;
  unref(): void;
}

interface Slot {
  instance: LibRaw;
  idleTimer?: NodeJS.Timeout;
}

type LibRawConstructor = new () => LibRaw;

let libRawClass: Promise<LibRawConstructor> | undefined;

function loadLibRaw(): Promise<LibRawConstructor> {
  installWorkerShim();
  libRawClass ??= import('libraw-wasm').then((m) => m.default as unknown as LibRawConstructor);
  return libRawClass;
}

function workerOf(instance: LibRaw): ShimWorker {
  return (instance as unknown as { worker: ShimWorker }).worker;
}

export class RawDecoderPool {
  readonly size: number;
  /** Limits for jobs that do not give their own; `cpuBudgetMs` undefined: sized per file by decode.ts. */
  readonly limits: Partial<DecodeLimits>;
  readonly idleMs: number;
  private readonly idle: Slot[] = [];
  private busy = 0;
  private readonly waiting: (() => void)[] = [];
  private closed = false;

  constructor(options: RawDecoderPoolOptions = {}) {
    this.size = options.size ?? (availableParallelism() >= 4 ? 2 : 1);
    this.limits = { cpuBudgetMs: options.cpuBudgetMs, stallMs: options.stallMs, wallLimitMs: options.wallLimitMs };
    this.idleMs = options.idleMs ?? 5_000;
    if (!Number.isInteger(this.size) || this.size < 1) {
      throw new RangeError(`RawDecoderPool size must be an integer >= 1, got ${String(options.size)}`);
    }
  }

  /**
   * Runs `job` on a LibRaw instance. The instance is reused afterwards only if the job says so
   * (a clean decode): after a failed unpack LibRaw can be left in a state where the next open()
   * never answers (seen after a CR3 stub), and after a watchdog verdict or worker failure it is
   * disposed too. The pool's own limits override the job's (tests force a verdict with them).
   * The watchdog starts when the job does: time queued for a decoder does not count.
   */
  async run<T>(job: (libraw: LibRaw) => Promise<{ value: T; reusable: boolean }>, limits: Partial<DecodeLimits> = {}): Promise<T> {
    if (this.closed) throw new Error('RawDecoderPool is shut down');
    await this.reserve();
    let slot: Slot | undefined;
    let healthy = false;
    try {
      slot = this.idle.pop() ?? { instance: new (await loadLibRaw())() };
      clearTimeout(slot.idleTimer);
      const worker = workerOf(slot.instance);
      worker.ref();
      const { value, reusable } = await withWatchdog(job(slot.instance), worker, {
        cpuBudgetMs: this.limits.cpuBudgetMs ?? limits.cpuBudgetMs ?? decodeCpuBudgetMs(0),
        stallMs: this.limits.stallMs ?? limits.stallMs ?? defaultStallMs,
        wallLimitMs: this.limits.wallLimitMs ?? limits.wallLimitMs ?? defaultWallLimitMs,
      });
      healthy = reusable;
      return value;
    } finally {
      if (slot) {
        if (healthy && !this.closed) this.park(slot);
        else slot.instance.dispose();
      }
      this.release();
    }
  }

  /** Disposes every idle instance and refuses new work; running jobs finish first. */
  shutdown(): void {
    this.closed = true;
    for (const slot of this.idle.splice(0)) {
      clearTimeout(slot.idleTimer);
      slot.instance.dispose();
    }
  }

  private park(slot: Slot): void {
    workerOf(slot.instance).unref();
    slot.idleTimer = setTimeout(() => {
      const i = this.idle.indexOf(slot);
      if (i >= 0) this.idle.splice(i, 1);
      slot.instance.dispose();
    }, this.idleMs);
    slot.idleTimer.unref();
    this.idle.push(slot);
  }

  private reserve(): Promise<void> {
    if (this.busy < this.size) {
      this.busy++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.busy--;
  }
}

/**
 * Races `work` against the decoder thread's processor time (sampled a few times per limit, at
 * least once a second): over budget is a verdict on the file, no progress for `stallMs` a
 * service fault; where processor time cannot be read, only the clock's `wallLimitMs` applies,
 * and it is a service fault too (nothing is known about the file).
 */
function withWatchdog<T>(work: Promise<T>, worker: ShimWorker, limits: DecodeLimits): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const startedAt = Date.now();
    const cpuAtStart = worker.cpuTimeMs();
    let lastCpu = cpuAtStart;
    let progressAt = startedAt;
    const sampleMs = Math.max(5, Math.min(1_000, Math.min(limits.cpuBudgetMs, limits.stallMs, limits.wallLimitMs) / 4));
    let checkedAt = startedAt;
    const check = () => {
      const now = Date.now();
      // This thread was late to check (busy or descheduled): the decoder may have been waiting
      // for its next call from here, so the gap is not the decoder's stall.
      if (now - checkedAt > 2 * sampleMs + 1_000) progressAt = now;
      checkedAt = now;
      const cpu = worker.cpuTimeMs();
      if (cpu === undefined) {
        // The thread may not have written its id yet; without /proc it never will.
        if (now - startedAt >= limits.wallLimitMs) {
          reject(new DecodeStalledError(`RAW decode did not finish within ${limits.wallLimitMs} ms and its processor time cannot be measured`, now - startedAt));
        }
        return;
      }
      const used = cpu - (cpuAtStart ?? 0);
      if (used >= limits.cpuBudgetMs) return reject(new DecodeBudgetExceededError(used, limits.cpuBudgetMs));
      if (lastCpu === undefined || cpu > lastCpu) {
        lastCpu = cpu;
        progressAt = now;
      } else if (now - progressAt >= limits.stallMs) {
        reject(new DecodeStalledError(`RAW decoder made no progress for ${now - progressAt} ms`, now - progressAt));
      }
    };
    const timer = setInterval(check, sampleMs);
    worker.onerror = (event) => reject(new DecoderCrashError(`RAW decoder worker failed: ${event.message}`));
    work.then(resolve, reject).finally(() => {
      clearInterval(timer);
      worker.onerror = null;
    });
  });
}

let shared: RawDecoderPool | undefined;

/** The process-wide pool; options apply only when it is first created. */
export function rawDecoderPool(options?: RawDecoderPoolOptions): RawDecoderPool {
  shared ??= new RawDecoderPool(options);
  return shared;
}

/** Replaces the process-wide pool (e.g. a different size); the old one is shut down. */
export function configureRawDecoders(options: RawDecoderPoolOptions): void {
  shared?.shutdown();
  shared = new RawDecoderPool(options);
}

/** Disposes all decoder workers. Call on shutdown and in test teardown. */
export function shutdownRawDecoders(): void {
  shared?.shutdown();
  shared = undefined;
}
