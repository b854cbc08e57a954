/**
 * `photoverify credentials FILE [--json] [--data-dir DIR] [--trust-anchors PEM]... [--tsa-anchors PEM]... [--legacy-anchors PEM]...`
 *
 * Trust comes from the service's own settings, loaded by the service's own function
 * (provenance/trust-config.ts): C2PA_TRUST_ANCHORS, C2PA_TSA_TRUST_ANCHORS,
 * C2PA_LEGACY_TRUST_ANCHORS, C2PA_SIGNING_KEY/CHAIN, and with `--data-dir` (or DATA_DIR) the
 * development CA of that data directory. Run with the service's environment, it gives the
 * service's verdict. The `--*-anchors` options add PEM files to the lists from the environment.
 */
import { readFile } from 'node:fs/promises';
import { parseCommand } from '../args.js';
import { credentialsSpec } from '../specs.js';
import { AppError } from '../../core/errors.js';
import type { CredentialsReport } from '../../provenance/check.js';

function printHuman(file: string, report: CredentialsReport): void {
  const e = report.evidence_report;
  const lines = [
    `File:        ${file} (${e.format})`,
    `Verdict:     ${report.verdict} (${report.verdict_reason})`,
    `Assurance:   ${report.assurance_level}`,
    `Credentials: ${e.outcome}${e.validation_state ? `, state ${e.validation_state}` : ''}`,
  ];
  if (e.remote_manifest_url) lines.push(`Remote manifest (not fetched): ${e.remote_manifest_url}`);
  if (e.error) lines.push(`Reader error: ${e.error}`);
  if (e.signer) lines.push(`Signer:      ${e.signer.common_name ?? '?'} / ${e.signer.issuer ?? '?'} (trust: ${e.signer.trust})`);
  if (e.timestamp) lines.push(`Timestamp:   ${e.timestamp.time ?? '?'} (${e.timestamp.trusted ? 'trusted TSA' : 'TSA not trusted'})`);
  if (e.claim_generator) lines.push(`Generator:   ${e.claim_generator}`);
  if (e.actions.length > 0) {
    lines.push('Actions:');
    for (const a of e.actions) {
      lines.push(`  - ${a.action}${a.digitalSourceType ? ` [${a.digitalSourceType}]` : ''}${a.softwareAgent ? ` by ${a.softwareAgent}` : ''}${a.description ? `: "${a.description}"` : ''}`);
    }
  }
  if (e.ingredients.length > 0) {
    lines.push('Ingredients:');
    for (const i of e.ingredients) lines.push(`  - ${i.title ?? '?'} (${i.format ?? '?'}, ${i.relationship ?? '?'}${i.has_manifest ? ', has credentials' : ''})`);
  }
  if (e.ai_declarations.length > 0) {
    lines.push('AI declarations:');
    for (const d of e.ai_declarations) lines.push(`  - ${d.sourceType} via ${d.source} at ${d.location}`);
  }
  for (const bucket of ['failure', 'informational', 'success'] as const) {
    if (e.status_codes[bucket].length === 0) continue;
    lines.push(`Status ${bucket}:`);
    for (const s of e.status_codes[bucket]) lines.push(`  - ${s.code}${s.scope === 'active' ? '' : ` [${s.scope}]`}: ${s.explanation}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommand(credentialsSpec, argv);
  if (typeof parsed === 'number') return parsed;
  const values = parsed.values as { json: boolean; 'data-dir'?: string; 'trust-anchors': string[]; 'tsa-anchors': string[]; 'legacy-anchors': string[] };
  const file = parsed.positionals[0];
  if (!file || parsed.positionals.length > 1) {
    process.stderr.write(
      `photoverify credentials: ${file ? 'one FILE at a time' : 'FILE is required'}.\nUsage: photoverify credentials ${credentialsSpec.synopsis}\nRun "photoverify credentials --help" for the options and exit codes.\n`,
    );
    return 2;
  }
  try {
    // The C2PA reader (wasm) loads only when a file is to be checked.
    const [{ checkCredentials }, { loadTrustConfiguration }] = await Promise.all([
      import('../../provenance/check.js'),
      import('../../provenance/trust-config.js'),
    ]);
    const env = process.env;
    const list = (fromEnv: string | undefined, fromOptions: string[]) => [fromEnv, ...fromOptions].filter(Boolean).join(',');
    const { trust: anchors } = await loadTrustConfiguration(
      {
        ...env,
        C2PA_TRUST_ANCHORS: list(env.C2PA_TRUST_ANCHORS, values['trust-anchors']),
        C2PA_TSA_TRUST_ANCHORS: list(env.C2PA_TSA_TRUST_ANCHORS, values['tsa-anchors']),
        C2PA_LEGACY_TRUST_ANCHORS: list(env.C2PA_LEGACY_TRUST_ANCHORS, values['legacy-anchors']),
      },
      { dataDir: values['data-dir'] },
    );
    const report = await checkCredentials(new Uint8Array(await readFile(file)), anchors);
    if (values.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else printHuman(file, report);
    return 0;
  } catch (error) {
    const code = error instanceof AppError ? error.code : 'ERROR';
    process.stderr.write(`photoverify credentials: ${code}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
}
