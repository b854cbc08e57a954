import { Worker } from 'node:worker_threads';
import { AppError } from '../../core/errors.js';
import type { AnalysisJob, AnalysisReply, PairJob, ThreadAnalysis } from './analysis-thread.js';

/**
 * The analysis could not finish for a reason of the service's (a decoder that made no progress
 * on a busy machine), not of the files: retried by the workflow, and if it persists the
 * verification fails as a service fault, unmetered (D-094).
 */
export class AnalysisServiceFault extends Error {
  override readonly name = 'AnalysisServiceFault';
}

/**
 * Runs pair analyses in worker threads, one job per thread at a time. Threads start on
 * demand, are reused, and are terminated on close. A thread that dies fails only its own job.
 * A job whose signal aborts (the workflow's deadline passed) stops at once: a waiting job
 * leaves the queue, a running one has its thread terminated (a fresh one replaces it).
 * A thread idle for `idleMs` is terminated: with it go its decoders' WebAssembly memory and
 * the analysis modules it loaded (a pair's thread holds 150-400 MB), D-049.
 */
export class AnalysisPool {
  private readonly idle: Worker[] = [];
  private readonly busy = new Set<Worker>();
  private readonly waiting: ((worker: Worker) => void)[] = [];
  private readonly idleTimers = new Map<Worker, NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly size: number,
    private readonly options: { idleMs?: number } = {},
  ) {}

  /** Threads alive (busy or idle). */
  get threads(): number {
    return this.idle.length + this.busy.size;
  }

  async analyze(job: PairJob, signal?: AbortSignal): Promise<ThreadAnalysis> {
    return ((await this.run(job, signal)) as { analysis: ThreadAnalysis }).analysis;
  }

  /** The RAW rendered at full size as the analysis renders it, as a lossless PNG; null for a RAW the decoder cannot render. */
  async renderRaw(raw: Uint8Array, signal?: AbortSignal): Promise<Uint8Array | null> {
    return ((await this.run({ render: raw }, signal)) as { rendition: Uint8Array | null }).rendition;
  }

  private async run(job: AnalysisJob, signal?: AbortSignal): Promise<Extract<AnalysisReply, { ok: true }>> {
    signal?.throwIfAborted();
    const worker = await this.acquire(signal);
    let answered = false;
    try {
      const reply = await new Promise<AnalysisReply>((resolve, reject) => {
        const onError = (error: Error) => {
          cleanup();
          reject(error);
        };
        const onExit = (code: number) => {
          cleanup();
          reject(new Error(`analysis thread exited with code ${code}`));
        };
        const onMessage = (message: AnalysisReply) => {
          cleanup();
          resolve(message);
        };
        const onAbort = () => {
          cleanup();
          reject(signal!.reason);
        };
        const cleanup = () => {
          worker.off('message', onMessage).off('error', onError).off('exit', onExit);
          signal?.removeEventListener('abort', onAbort);
        };
        worker.on('message', onMessage).on('error', onError).on('exit', onExit);
        signal?.addEventListener('abort', onAbort, { once: true });
        worker.postMessage(job);
      });
      // The thread answered: it is healthy whatever the job's outcome, and goes back to the pool.
      answered = true;
      this.release(worker);
      if (reply.ok) return reply;
      if (reply.appError) {
        const { code, message, suggestion, details } = reply.appError;
        throw new AppError(code, message, { suggestion, details });
      }
      throw reply.serviceFault ? new AnalysisServiceFault(reply.message) : new Error(reply.message);
    } catch (error) {
      // No answer (the thread died, or the job was aborted mid-analysis): the thread goes.
      if (!answered) this.discard(worker);
      throw error;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.idleTimers.values()) clearTimeout(timer);
    this.idleTimers.clear();
    const all = [...this.idle, ...this.busy];
    this.idle.length = 0;
    this.busy.clear();
    await Promise.all(all.map((w) => w.terminate()));
  }

  private async acquire(signal?: AbortSignal): Promise<Worker> {
    if (this.closed) throw new Error('analysis pool is closed');
    const ready = this.idle.pop();
    if (ready) {
      clearTimeout(this.idleTimers.get(ready));
      this.idleTimers.delete(ready);
      this.busy.add(ready);
      return ready;
    }
    if (this.busy.size < this.size) {
      // Compiled (dist/): the thread's own .js. From source (vitest, tsx): an .mjs entry registers tsx first.
      const entry = import.meta.url.endsWith('.ts') ? './analysis-thread-entry.mjs' : './analysis-thread.js';
      const worker = new Worker(new URL(entry, import.meta.url));
      worker.unref();
      this.busy.add(worker);
      return worker;
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const index = this.waiting.indexOf(take);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(signal!.reason);
      };
      const take = (worker: Worker) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(worker);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(take);
    });
  }

  private release(worker: Worker): void {
    const next = this.waiting.shift();
    if (next) return next(worker);
    this.busy.delete(worker);
    this.idle.push(worker);
    const idleMs = this.options.idleMs ?? 30_000;
    const timer = setTimeout(() => {
      this.idleTimers.delete(worker);
      const index = this.idle.indexOf(worker);
      if (index < 0) return;
      this.idle.splice(index, 1);
      void worker.terminate();
    }, idleMs);
    timer.unref();
    this.idleTimers.set(worker, timer);
  }

  private discard(worker: Worker): void {
    this.busy.delete(worker);
    void worker.terminate();
    const next = this.waiting.shift();
    if (next) void this.acquire().then(next);
  }
}
