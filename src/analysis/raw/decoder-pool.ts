/**
 * A small, bounded pool of libraw-wasm instances. Each instance is a worker thread holding a
 * ~256 MB wasm heap, so the pool is kept small (default 1 on a 2-core box) and instances are
 * disposed when idle, on timeout and on any worker failure. Idle workers are unref'd, so a
 * process that forgets `shutdownRawDecoders()` still exits.
 */
import { availableParallelism } from 'node:os';
import type LibRaw from 'libraw-wasm';
import { installWorkerShim } from './worker-shim.js';

export interface RawDecoderPoolOptions {
  /** Concurrent decoders (worker threads). Default: 1, or 2 with 4+ cores. */
  size?: number;
  /** A decode that takes longer is abandoned and its worker killed. Default 30 s. */
  timeoutMs?: number;
  /** Idle instances are disposed after this long. Default 5 s. */
  idleMs?: number;
}

/** Thrown when a decode exceeded the time limit; the worker has been terminated. */
export class DecodeTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`RAW decode did not finish within ${timeoutMs} ms`);
    this.name = 'DecodeTimeoutError';
  }
}

/** Thrown when the worker thread died (wasm abort, out of memory). */
export class DecoderCrashError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DecoderCrashError';
  }
}

interface ShimWorker {
  onerror: ((event: { message: string }) => void) | null;
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
  readonly timeoutMs: number;
  readonly idleMs: number;
  private readonly idle: Slot[] = [];
  private busy = 0;
  private readonly waiting: (() => void)[] = [];
  private closed = false;

  constructor(options: RawDecoderPoolOptions = {}) {
    this.size = options.size ?? (availableParallelism() >= 4 ? 2 : 1);
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.idleMs = options.idleMs ?? 5_000;
    if (!Number.isInteger(this.size) || this.size < 1) {
      throw new RangeError(`RawDecoderPool size must be an integer >= 1, got ${String(options.size)}`);
    }
  }

  /**
   * Runs `job` on a LibRaw instance. The instance is reused afterwards only if the job says so
   * (a clean decode): after a failed unpack LibRaw can be left in a state where the next open()
   * never answers (seen after a CR3 stub), and on timeout or worker failure it is disposed too.
   */
  async run<T>(job: (libraw: LibRaw) => Promise<{ value: T; reusable: boolean }>, timeoutMs = this.timeoutMs): Promise<T> {
    if (this.closed) throw new Error('RawDecoderPool is shut down');
    await this.reserve();
    let slot: Slot | undefined;
    let healthy = false;
    try {
      slot = this.idle.pop() ?? { instance: new (await loadLibRaw())() };
      clearTimeout(slot.idleTimer);
      const worker = workerOf(slot.instance);
      worker.ref();
      const { value, reusable } = await withWatchdog(job(slot.instance), worker, timeoutMs);
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

function withWatchdog<T>(work: Promise<T>, worker: ShimWorker, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new DecodeTimeoutError(timeoutMs)), timeoutMs);
    worker.onerror = (event) => reject(new DecoderCrashError(`RAW decoder worker failed: ${event.message}`));
    work.then(resolve, reject).finally(() => {
      clearTimeout(timer);
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
