import type { VerificationView } from './view.js';
import { levelWords, reasonWords, verdictWords } from './words.js';

/**
 * A verification in a few plain words, for an agent's conversation (MCP tools): where it
 * stands, and once graded, what the assurance level and verdict mean, in the words the shared
 * report page uses too (words.ts).
 */
export function summarize(v: VerificationView): string {
  const what = v.verification_mode === 'raw_pair' ? 'RAW+image pair' : 'image-only (Content Credentials)';
  const head = `Verification ${v.id} of "${v.name}", ${what}:`;
  if (v.status === 'failed') return `${head} failed${v.failure_reason ? `: ${v.failure_reason}` : '.'}`;
  if (v.status !== 'completed' || !v.assurance_level) return `${head} ${v.status.replace('_', ' ')}; not graded yet.`;
  const level = levelWords[v.assurance_level];
  const parts = [`${head} ${level.label}. ${v.verification_mode === 'raw_pair' ? level.pair : level.imageOnly}`];
  if (v.verification_mode === 'image_only' && v.verdict) {
    parts.push(`Verdict: ${verdictWords[v.verdict].label}. ${v.verdict_reason ? reasonWords[v.verdict_reason] : ''}`.trim());
  } else if (v.assurance_reason) {
    parts.push(`Why: ${v.assurance_reason}`);
  }
  if (v.capture_verified !== null) parts.push(`capture_verified: ${v.capture_verified}.`);
  return parts.join(' ');
}
