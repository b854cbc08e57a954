import type { Anchor } from '../../core/audit/audit-verify.js';
import type { AppDeps } from '../../core/module/deps.js';
import { anchoredInColumn, anchorSummary, type AnchorSummary } from '../../../projections/anchors/index.js';
import { certificateChainPem } from '../../provenance/es256.js';

/** An `anchored_in` item (contract 2 of issue 25; docs/audit.md "Anchors"): the one type, the verifier's. */
export type AnchoredIn = Anchor;

/** The verification's `anchored_in` items, oldest first; the caller has checked it may see the verification. */
export async function anchoredIn(deps: Pick<AppDeps, 'knex'>, verificationId: string): Promise<AnchoredIn[]> {
  const row = await deps.knex.select(deps.knex.raw('(?) as anchored_in', [anchoredInColumn(deps.knex, 'v.id')])).from(deps.knex.raw('(select ?::uuid as id) v', [verificationId])).first();
  const value = row?.anchored_in;
  return (typeof value === 'string' ? JSON.parse(value) : (value ?? [])) as AnchoredIn[];
}

/** The verification's batch in brief (the report page), null until it is anchored. */
export const anchorOf = (deps: Pick<AppDeps, 'knex'>, verificationId: string): Promise<AnchorSummary | null> => anchorSummary(deps.knex, verificationId);

/** The published certificate chain anchors are signed under, PEM, end-entity first. */
export async function publishedCertificate(deps: Pick<AppDeps, 'signer'>): Promise<string> {
  return certificateChainPem(await deps.signer()).join('');
}
