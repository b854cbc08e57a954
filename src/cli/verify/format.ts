/** The readable form of a Verification record, and the exit-code rule that goes with it. */
import type { Verification } from './client.js';

/**
 * Success is what the mode can reach at best: `verified` for a RAW pair; `provenance`
 * (trusted Content Credentials) for image-only, which can never be `verified`.
 */
export function isSuccess(v: Verification): boolean {
  if (v.status !== 'completed') return false;
  return v.assurance_level === 'verified' || (v.verification_mode === 'image_only' && v.assurance_level === 'provenance');
}

export function describeVerification(v: Verification): string {
  const rows: [string, string][] = [
    ['Verification', `${v.id}${v.verification_mode ? ` (${v.verification_mode})` : ''}`],
    ['Name', v.name ?? ''],
    ['Status', v.status],
  ];
  if (v.failure_reason) rows.push(['Failure', v.failure_reason]);
  if (v.assurance_level) rows.push(['Assurance', `${v.assurance_level}${v.assurance_reason ? ` — ${v.assurance_reason}` : ''}`]);
  if (v.verdict) rows.push(['Verdict', `${v.verdict}${v.verdict_reason ? ` (${v.verdict_reason})` : ''}`]);
  if (v.capture_verified !== undefined && v.capture_verified !== null) rows.push(['Capture', v.capture_verified ? 'verified' : 'not verified']);
  if (v.status === 'completed' && typeof v.result_confidence === 'number') {
    // The spec is explicit that this is not a probability; say so where people read it.
    rows.push(['Confidence', `${v.result_confidence.toFixed(3)} (average export similarity, not a probability)`]);
  }
  if (v.short_code) rows.push(['Short code', v.short_code]);
  const width = Math.max(...rows.map(([label]) => label.length)) + 2;
  const lines = rows.filter(([, value]) => value !== '').map(([label, value]) => `${`${label}:`.padEnd(width)}${value}`);

  const results = v.results ?? [];
  if (results.length > 0) {
    lines.push('Analyses:');
    const named = results.map((r) => ({ ...r, name: String(r.details?.analysis ?? '?') })).sort((a, b) => a.name.localeCompare(b.name));
    const nameWidth = Math.max(...named.map((r) => r.name.length));
    for (const r of named) {
      const outcome = r.result === true ? 'pass' : r.result === false ? 'FAIL' : 'n/a ';
      // A passing check needs no explanation; a failed or inconclusive one does.
      const note = r.result !== true && typeof r.details?.note === 'string' ? `  ${r.details.note}` : '';
      lines.push(`  ${r.name.padEnd(nameWidth)}  ${outcome}  confidence ${Number(r.confidence_score).toFixed(2)}${note}`);
    }
  }
  return lines.join('\n') + '\n';
}
