/**
 * Secrets never reach logs (issue 21, must-work 6; DESIGN "Robustness rules"), checked over the
 * whole suite: every in-process test service logs (at info) to a file per test process under the
 * directory the global setup names in PV_TEST_LOG_DIR, and the client helper records every secret
 * it sees (passwords it sends, tokens, raw API keys, share and invitation tokens, signed URL
 * signatures, upload ids) to a file beside it. The global teardown (vitest.config.ts) then looks
 * for every recorded secret in every log line and fails the run, naming each one found.
 *
 * Vitest 4.1 logs a throwing globalSetup teardown ("error during close") but keeps exit code 0
 * (fixed upstream after 4.1, vitest-dev/vitest#10794), so the teardown sets process.exitCode too.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino, type Logger } from 'pino';

const ENV = 'PV_TEST_LOG_DIR';

/** The capture directory of this run (undefined outside a vitest run with the global setup). */
export const captureDir = (): string | undefined => process.env[ENV] || undefined;

let processLogger: Logger | undefined;

/**
 * One logger per test process, writing synchronously (the teardown reads the files as soon as the
 * workers are gone) to <dir>/<pid>.log; undefined when not capturing.
 */
export function capturedLogger(): Logger | undefined {
  const dir = captureDir();
  if (!dir) return undefined;
  processLogger ??= pino({ level: 'info' }, pino.destination({ dest: path.join(dir, `${process.pid}.log`), sync: true, mkdir: true }));
  return processLogger;
}

const recorded = new Set<string>();

/** Notes a secret the suite used, to be looked for in every log at the end. */
export function recordSecret(secret: unknown): void {
  const dir = captureDir();
  if (!dir || typeof secret !== 'string' || secret.length < 12 || recorded.has(secret)) return;
  recorded.add(secret);
  fs.appendFileSync(path.join(dir, `${process.pid}.secrets`), `${JSON.stringify(secret)}\n`);
}

const SECRET_FIELDS = new Set(['password', 'new_password', 'current_password', 'access_token', 'raw_key', 'token', 'invite', 'attestation']);
const SECRET_IN_URL: RegExp[] = [
  /[?&]sig=([A-Za-z0-9_-]{20,})/g, // a pre-signed blob URL's signature
  /\/shared\/([A-Za-z0-9_-]{16,})/g, // a share link's token
  /[?&]invite=([A-Za-z0-9_-]{16,})/g, // an invitee's proof
  /\/uploads\/(up_[A-Za-z0-9_.-]{16,})/g, // an upload id (it authorises the PUT)
  /#([A-Za-z0-9_-]{16,})/g, // an invitation or set-password token after '#'
];

/** Every secret in a value: by field name, and inside any URL-like text. */
export function secretsIn(value: unknown, field = ''): string[] {
  if (typeof value === 'string') {
    const out = SECRET_FIELDS.has(field) ? [value] : [];
    for (const pattern of SECRET_IN_URL) for (const match of value.matchAll(pattern)) out.push(match[1]!);
    return out.filter((secret) => secret.length >= 12);
  }
  if (Array.isArray(value)) return value.flatMap((item) => secretsIn(item, field));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([key, item]) => secretsIn(item, key));
  return [];
}

/** Records every secret in a value (see secretsIn). */
export function recordSecretsIn(value: unknown): void {
  if (captureDir()) for (const secret of secretsIn(value)) recordSecret(secret);
}

/** The runs of a text that a secret could be found as: [A-Za-z0-9_-] runs of 12 or more. */
const RUN = /[A-Za-z0-9_-]{12,}/g;

/** Every recorded secret found in any captured log line: [secret (abridged), file:line]. */
export function findLeaks(dir: string): { secret: string; where: string }[] {
  const secrets = new Set<string>();
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.secrets'))) {
    for (const line of fs.readFileSync(path.join(dir, file), 'utf8').split('\n')) if (line) secrets.add(JSON.parse(line) as string);
  }
  // A secret made of one run is looked up in a set of the logs' runs; others (a password with spaces) by substring.
  const byRun = new Map<string, string>();
  const bySubstring: string[] = [];
  for (const secret of secrets) {
    const runs = secret.match(RUN) ?? [];
    const longest = runs.sort((a, b) => b.length - a.length)[0];
    if (longest && longest.length >= 16) byRun.set(longest, secret);
    else bySubstring.push(secret);
  }
  const leaks: { secret: string; where: string }[] = [];
  const seen = new Set<string>();
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.log'))) {
    const lines = fs.readFileSync(path.join(dir, file), 'utf8').split('\n');
    lines.forEach((line, index) => {
      const hits = [...(line.match(RUN) ?? []).flatMap((run) => (byRun.has(run) ? [byRun.get(run)!] : [])), ...bySubstring.filter((s) => line.includes(s))];
      for (const secret of hits) {
        if (seen.has(secret)) continue;
        seen.add(secret);
        leaks.push({ secret: `${secret.slice(0, 24)}…`, where: `${file}:${index + 1}: ${line.slice(0, 300)}` });
      }
    });
  }
  return leaks;
}

/** Vitest globalSetup: a fresh capture directory for the run, and the scan at the end. */
export default function setup(): () => void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-test-logs-'));
  process.env[ENV] = dir;
  return () => {
    const leaks = findLeaks(dir);
    if (leaks.length === 0) {
      fs.rmSync(dir, { recursive: true, force: true });
      return;
    }
    const message = `${leaks.length} secret(s) used by the tests were written to the service log (logs kept in ${dir}):\n${leaks.map((l) => `  ${l.secret} in ${l.where}`).join('\n')}`;
    process.stderr.write(`\n[log scan] ${message}\n`);
    process.exitCode = 1;
    throw new Error(message);
  };
}
