/**
 * `photoverify audit verify <verification-id> --url URL --key KEY [--trust PEM]` and
 * `photoverify audit verify --file BUNDLE --trust PEM`: the offline verifier (src/core/audit/audit-verify.ts,
 * the same code the auditor's page runs in the browser) over a bundle fetched from the service or
 * read from a file. Each check goes to stdout as it is printed; the first broken link, named,
 * to stderr; the exit code says which (specs.ts).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { certificateFingerprints, verifyBundle, type AuditCheck } from '../../core/audit/audit-verify.js';
import { bundleReplays } from '../../modules.js';
import { parseCommand } from '../args.js';
import { auditSpec } from '../specs.js';
import { ClientError, VerificationClient } from '../verify/client.js';

const REQUEST_MS = 60_000;
const CERTIFICATE_PATH = '/v1/anchors/certificate';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Source = { kind: 'file'; file: string; trust: string } | { kind: 'service'; id: string; url: string; key: string; trust?: string; save?: string };

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommand(auditSpec, argv);
  if (typeof parsed === 'number') return parsed;
  const source = sourceOf(parsed.values as Record<string, string | boolean | undefined>, parsed.positionals);
  if (typeof source === 'string') return usageError(source);
  const json = parsed.values.json === true;

  let bundle: unknown;
  let trust: string;
  let trustFrom: string;
  try {
    if (source.kind === 'file') {
      bundle = parseJson(await readText(source.file, '--file'), `--file ${source.file}`);
    } else {
      const client = new VerificationClient(source.url, source.key);
      const text = await client.text(`/v1/verifications/${encodeURIComponent(source.id)}/audit-bundle`, { authenticated: true, timeoutMs: REQUEST_MS });
      bundle = parseJson(text, 'the audit bundle');
      if (source.save) await writeFile(source.save, text);
      if (!source.trust) {
        trust = await client.text(CERTIFICATE_PATH, { authenticated: false, timeoutMs: REQUEST_MS });
        trustFrom = `${source.url.replace(/\/+$/, '')}${CERTIFICATE_PATH} (as the service publishes it; pin it with --trust to stop trusting the service for it)`;
      }
    }
    if (source.trust) {
      trust = await readText(source.trust, '--trust');
      trustFrom = source.trust;
    }
  } catch (error) {
    process.stderr.write(`photoverify audit: ${error instanceof ClientError ? error.message : (error as Error).message}\n`);
    return 2;
  }

  const fingerprints = await certificateFingerprints(trust!);
  if (!fingerprints.length) return usageError(`${trustFrom!} holds no PEM certificate.`);
  const checks = await verifyBundle(bundle, trust!, bundleReplays);
  const broken = checks.find((c) => !c.ok);
  if (json) {
    process.stdout.write(`${JSON.stringify({ ok: !broken, trusted: { source: trustFrom!, sha256: fingerprints }, checks }, null, 2)}\n`);
  } else {
    process.stdout.write(`Trusting ${trustFrom!}:\n${fingerprints.map((f) => `  SHA-256 ${f}\n`).join('')}\n${describe(checks)}`);
  }
  if (!broken) {
    if (!json) process.stdout.write(`\nAll ${checks.length} checks passed.\n`);
    return 0;
  }
  process.stderr.write(`photoverify audit: broken link: ${broken.name}: ${broken.detail}\n`);
  return broken.name === 'anchored' ? 3 : 1;
}

function describe(checks: AuditCheck[]): string {
  const width = Math.max(...checks.map((c) => c.name.length)) + 2;
  return checks.map((c) => `${c.ok ? 'pass' : 'FAIL'}  ${c.name.padEnd(width)}${c.detail}\n`).join('');
}

function sourceOf(values: Record<string, string | boolean | undefined>, positionals: string[]): Source | string {
  const [action, id, ...extra] = positionals;
  if (action !== 'verify') return action ? `unknown action "${action}"; the action is "verify".` : 'the action is missing: photoverify audit verify ...';
  if (extra.length) return `unexpected argument "${extra[0]}".`;
  const str = (name: string) => (typeof values[name] === 'string' && values[name] !== '' ? (values[name] as string) : undefined);
  const file = str('file');
  const trust = str('trust');
  if (file) {
    if (id) return 'give either a VERIFICATION-ID (fetched from --url) or --file, not both.';
    if (!trust) return '--trust is required with --file: a saved bundle is checked against the certificate you pin.';
    return { kind: 'file', file, trust };
  }
  if (!id) return 'a VERIFICATION-ID (with --url and --key) or --file BUNDLE is required.';
  if (!UUID.test(id)) return `${id} is not a verification id (a UUID).`;
  const url = str('url');
  const key = str('key');
  if (!url) return '--url (or PHOTOVERIFY_URL) is required with a VERIFICATION-ID.';
  if (!key) return '--key (or PHOTOVERIFY_API_KEY) is required with a VERIFICATION-ID.';
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `--url must be http:// or https://, not ${parsed.protocol}`;
  } catch {
    return `--url ${url} is not a URL; expected e.g. https://verify.example.eu`;
  }
  return { kind: 'service', id, url, key, trust, save: str('save') };
}

async function readText(file: string, option: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(`cannot read the ${option} file ${file}: ${code === 'ENOENT' ? 'no such file' : (code ?? (error as Error).message)}`);
  }
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${what} is not JSON.`);
  }
}

function usageError(text: string): number {
  process.stderr.write(`photoverify audit: ${text}\nUsage: photoverify audit ${auditSpec.synopsis}\nRun "photoverify audit --help" for the options and exit codes.\n`);
  return 2;
}
