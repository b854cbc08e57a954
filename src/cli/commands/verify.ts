/**
 * `photoverify verify --image FILE [--raw FILE] --url URL --key KEY`: the client side of the
 * spec's workflow (section 1): create the verification, poll it (every 20 s, give up after
 * 10 min by default), print the result. Progress goes to stderr, the result to stdout.
 */
import { parseCommand } from '../args.js';
import { verifySpec } from '../specs.js';
import { checkInput, ClientError, VerificationClient, type InputFile, type Verification } from '../verify/client.js';
import { describeVerification, isSuccess } from '../verify/format.js';
import { formatElapsed, Progress } from '../verify/progress.js';

const TERMINAL = new Set(['completed', 'failed']);
const MAX_REQUEST_MS = 30_000;

interface Options {
  image: string;
  raw?: string;
  url: string;
  key: string;
  intervalMs: number;
  timeoutMs: number;
  json: boolean;
}

export async function run(argv: string[]): Promise<number> {
  const options = parseOptions(argv);
  if (typeof options === 'number') return options;

  const progress = new Progress();
  const fail = (message: string, code: number) => {
    progress.stop();
    process.stderr.write(`photoverify verify: ${message}\n`);
    return code;
  };
  const client = new VerificationClient(options.url, options.key);

  let id: string;
  try {
    const files: InputFile[] = [await checkInput('image', options.image)];
    if (options.raw) files.push(await checkInput('raw', options.raw));
    progress.note(`uploading ${files.map((f) => `${f.path} (${megabytes(f.size)})`).join(' + ')} to ${options.url}`);
    progress.status('uploading', false); // announced just above; the spinner runs on a terminal
    id = await client.create(files);
    progress.note(`created verification ${id}`);
  } catch (error) {
    return fail(message(error), 2);
  }

  // Ctrl-C stops waiting, not the verification: tell the user where to find it later.
  const onInterrupt = () => {
    progress.stop();
    process.stderr.write(`\nphotoverify verify: interrupted; verification ${id} goes on on the server (GET /v1/verifications/${id}).\n`);
    process.exit(130);
  };
  process.once('SIGINT', onInterrupt);
  try {
    const outcome = await poll(client, id, options, progress);
    progress.stop();
    if (outcome.kind === 'error') return fail(outcome.message, 2);
    const last = outcome.verification;
    if (last) process.stdout.write(options.json ? `${JSON.stringify(last, null, 2)}\n` : describeVerification(last));
    if (outcome.kind === 'timeout') {
      return fail(
        `timed out after ${formatElapsed(options.timeoutMs)}: verification ${id} is still ${last?.status ?? 'not readable'}; ` +
          `it goes on on the server (GET /v1/verifications/${id}).`,
        3,
      );
    }
    return isSuccess(outcome.verification) ? 0 : 1;
  } finally {
    process.off('SIGINT', onInterrupt);
    progress.stop();
  }
}

type Outcome =
  | { kind: 'done'; verification: Verification }
  | { kind: 'timeout'; verification: Verification | undefined }
  | { kind: 'error'; message: string };

/** Polls until a terminal status or the deadline; transient failures are retried until then. */
async function poll(client: VerificationClient, id: string, options: Options, progress: Progress): Promise<Outcome> {
  const deadline = Date.now() + options.timeoutMs;
  let last: Verification | undefined;
  for (;;) {
    const remaining = deadline - Date.now();
    try {
      last = await client.get(id, Math.min(MAX_REQUEST_MS, remaining));
      progress.status(last.status); // the terminal status too: its line carries the total time
      if (TERMINAL.has(last.status)) return { kind: 'done', verification: last };
    } catch (error) {
      if (!(error instanceof ClientError && error.retryable)) return { kind: 'error', message: message(error) };
      progress.note(`${error.message.split('\n')[0]}; retrying`);
    }
    const wait = Math.min(options.intervalMs, deadline - Date.now());
    if (wait <= 0) return { kind: 'timeout', verification: last };
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

function parseOptions(argv: string[]): Options | number {
  const parsedArgs = parseCommand(verifySpec, argv);
  if (typeof parsedArgs === 'number') return parsedArgs;
  const values = parsedArgs.values as { image?: string; raw?: string; url?: string; key?: string; interval: string; timeout: string; json: boolean };
  const { url, key } = values;
  if (!values.image) return usageError('--image is required.');
  if (!url) return usageError('--url (or PHOTOVERIFY_URL) is required.');
  if (!key) return usageError('--key (or PHOTOVERIFY_API_KEY) is required.');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return usageError(`--url ${url} is not a URL; expected e.g. https://verify.example.eu`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return usageError(`--url must be http:// or https://, not ${parsed.protocol}`);
  const interval = seconds('--interval', values.interval);
  const timeout = seconds('--timeout', values.timeout);
  if (typeof interval === 'string') return usageError(interval);
  if (typeof timeout === 'string') return usageError(timeout);
  return { image: values.image, raw: values.raw, url, key, intervalMs: interval, timeoutMs: timeout, json: values.json };
}

/** Milliseconds, or the message explaining why the value is refused. */
function seconds(flag: string, value: string): number | string {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) return `${flag} must be a positive number of seconds, not "${value}".`;
  return Math.round(n * 1000);
}

function usageError(text: string): number {
  process.stderr.write(`photoverify verify: ${text}\nUsage: photoverify verify ${verifySpec.synopsis}\nRun "photoverify verify --help" for the options, defaults and exit codes.\n`);
  return 2;
}

function message(error: unknown): string {
  return error instanceof ClientError ? error.message : `unexpected failure: ${(error as Error)?.stack ?? String(error)}`;
}

function megabytes(bytes: number): string {
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(0)} KB` : `${(bytes / 1048576).toFixed(1)} MB`;
}
