/**
 * Makes libraw-wasm run in Node. The package (and the emscripten pthreads inside it) create
 * browser `Worker`s; Node has only `worker_threads`. This installs a minimal `globalThis.Worker`
 * whose threads get the browser globals the package relies on: `self`, `postMessage`,
 * `onmessage`, `WorkerGlobalScope` (emscripten picks its web code path from it), `name`
 * ('em-pthread' marks a pthread), and a `fetch` that can read the `file:` URL of libraw.wasm.
 */
import { Worker as ThreadWorker } from 'node:worker_threads';
import { threadCpuMs } from './thread-cpu.js';

/**
 * Runs inside each thread before the worker module loads. Messages that arrive while the module
 * is still loading are queued and replayed once it has set `self.onmessage`: without the queue
 * the first call sometimes never answers.
 */
const bootstrap = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFile } = require('node:fs/promises');
const { fileURLToPath } = require('node:url');
const g = globalThis;
// The thread's kernel id, so the parent can read its CPU time from /proc (thread-cpu.ts).
try {
  const link = require('node:fs').readlinkSync('/proc/thread-self');
  Atomics.store(workerData.tid, 0, Number(link.split('/').pop()) || 0);
} catch {}
g.self = g;
g.name = workerData.name;
g.WorkerGlobalScope = class WorkerGlobalScope {};
const nativeFetch = g.fetch;
g.fetch = async (input, init) => {
  const url = String(input instanceof URL ? input.href : input);
  if (!url.startsWith('file:')) return nativeFetch(input, init);
  const body = await readFile(fileURLToPath(url));
  return new Response(body, { status: 200, headers: { 'content-type': 'application/wasm' } });
};
g.postMessage = (data, transfer) => parentPort.postMessage(data, transfer);
let handler = null;
const queued = [];
Object.defineProperty(g, 'onmessage', {
  configurable: true,
  get: () => handler,
  set: (fn) => {
    handler = fn;
    while (handler && queued.length > 0) handler({ data: queued.shift() });
  },
});
parentPort.on('message', (data) => {
  if (handler) handler({ data });
  else queued.push(data);
});
process.on('unhandledRejection', (reason) => {
  if (typeof g.onunhandledrejection === 'function') g.onunhandledrejection({ reason });
  else throw reason;
});
import(workerData.url);
`;

type MessageHandler = (event: { data: unknown }) => void;
type ErrorHandler = (event: { message: string; filename?: string; lineno?: number; error: unknown }) => void;

/** The subset of the DOM Worker API that libraw-wasm and emscripten use. */
class NodeWebWorker {
  onmessage: MessageHandler | null = null;
  onerror: ErrorHandler | null = null;
  private readonly thread: ThreadWorker;
  /** Written by the thread as it starts: its kernel thread id (0 until then, or where there is no /proc). */
  private readonly tid = new Int32Array(new SharedArrayBuffer(4));

  constructor(url: string | URL, options: { name?: string } = {}) {
    this.thread = new ThreadWorker(bootstrap, {
      eval: true,
      workerData: { url: String(url instanceof URL ? url.href : url), name: options.name ?? '', tid: this.tid },
    });
    this.thread.on('message', (data: unknown) => this.onmessage?.({ data }));
    this.thread.on('error', (error: Error) =>
      this.onerror?.({ message: error.message, error }),
    );
  }

  postMessage(data: unknown, transfer?: readonly unknown[]): void {
    this.thread.postMessage(data, (transfer ?? []) as never);
  }

  /**
   * Processor time this thread has used, in ms; undefined where it cannot be read (no /proc,
   * or the thread has not started yet). The decoder's watchdog judges a decode by it.
   */
  cpuTimeMs(): number | undefined {
    const tid = Atomics.load(this.tid, 0);
    return tid > 0 ? threadCpuMs(tid) : undefined;
  }

  terminate(): void {
    void this.thread.terminate();
  }

  /** Lets the event loop end while this worker idles (pthread pool workers stay around). */
  unref(): void {
    this.thread.unref();
  }

  ref(): void {
    this.thread.ref();
  }
}

let installed = false;

/** Idempotent: installs the Worker shim once per process when no real Worker exists. */
export function installWorkerShim(): void {
  if (installed) return;
  installed = true;
  const g = globalThis as { Worker?: unknown };
  if (g.Worker === undefined) g.Worker = NodeWebWorker;
}
