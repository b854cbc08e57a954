/** `photoverify credentials FILE [--json] [--trust-anchors PEM]... [--tsa-anchors PEM]... [--legacy-anchors PEM]...` */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
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
    for (const a of e.actions) lines.push(`  - ${a.action}${a.digitalSourceType ? ` [${a.digitalSourceType}]` : ''}${a.softwareAgent ? ` by ${a.softwareAgent}` : ''}`);
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
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        json: { type: 'boolean', default: false },
        'trust-anchors': { type: 'string', multiple: true, default: [] },
        'tsa-anchors': { type: 'string', multiple: true, default: [] },
        'legacy-anchors': { type: 'string', multiple: true, default: [] },
      },
    });
  } catch (error) {
    process.stderr.write(`photoverify credentials: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  const file = parsed.positionals[0];
  if (!file || parsed.positionals.length > 1) {
    process.stderr.write('Usage: photoverify credentials FILE [--json] [--trust-anchors PEM] [--tsa-anchors PEM] [--legacy-anchors PEM]\n');
    return 2;
  }
  try {
    // The C2PA reader (wasm) loads only when a file is to be checked.
    const [{ checkCredentials }, { loadTrustAnchors }] = await Promise.all([import('../../provenance/check.js'), import('../../provenance/trust.js')]);
    const anchors = await loadTrustAnchors({
      signerAnchorFiles: parsed.values['trust-anchors'],
      tsaAnchorFiles: parsed.values['tsa-anchors'],
      legacySignerAnchorFiles: parsed.values['legacy-anchors'],
    });
    const report = await checkCredentials(new Uint8Array(await readFile(file)), anchors);
    if (parsed.values.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else printHuman(file, report);
    return 0;
  } catch (error) {
    const code = error instanceof AppError ? error.code : 'ERROR';
    process.stderr.write(`photoverify credentials: ${code}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
}
