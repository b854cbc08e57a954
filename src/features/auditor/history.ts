import { sealedHeadsOf } from '../../core/audit/audit-verify.js';
import type { AuditBundle } from './bundle.js';

/**
 * What the auditor's page shows, made from an audit bundle (pure): the verification's streams
 * as a timeline in words, each event's hash with a link to the one before it, and the anchors.
 * The page renders this model only, so the owner's signed-in route (issue 27) renders the same
 * page from the owner's bundle with its own links.
 */
export interface HistoryModel {
  verification: { name: string; short_code: string; status: string; created_at: string };
  streams: { stream: string; title: string; events: HistoryEvent[] }[];
  anchors: HistoryAnchor[];
  links: HistoryLinks;
}

export interface HistoryLinks {
  /** The bundle as JSON (what the checks in the page read; downloadable for the CLI's --file). */
  bundle: string;
  /** The service's published certificate (PEM): what the browser's checks trust. */
  certificate: string;
  /** The compiled src/core/audit/audit-verify.js, served by this origin. */
  verifier: string;
  /** The page the history belongs to (the shared report), if any. */
  back?: { href: string; label: string };
}

export interface HistoryEvent {
  /** The element id the next event's "previous" links to. */
  anchor: string;
  revision: number;
  what: string;
  type: string;
  when: string;
  who: string;
  region: string;
  correlation: string;
  hash: string;
  /** The hash of the event before, and where it is on the page (null at revision 0). */
  previous: { hash: string; anchor: string | null } | null;
}

export interface HistoryAnchor {
  batch_id: string;
  sealed_at: string;
  root: string;
  leaf: string;
  /** Which event the anchor seals, and where it is on the page. */
  /** Which events the anchor seals (the head of each stream it names), and where each is on the page. */
  sealed_events: { stream: string; revision: number; hash: string; anchor: string }[];
  timestamp: string | null;
}

/** "VerificationGraded" → "Verification graded". */
export const eventWords = (type: string): string => {
  const words = type.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** Who acted, without names: the hashes cover the ids as recorded, the page shows them short. */
export function actorWords(actor: { type?: unknown; id?: unknown } | undefined): string {
  const id = typeof actor?.id === 'string' ? actor.id.slice(0, 8) : '';
  switch (actor?.type) {
    case 'user':
      return `A user of the account (${id}…)`;
    case 'api_key':
      return `An API key of the account (${id}…)`;
    case 'anonymous':
      return 'Someone without an account';
    case 'system':
      return 'The service';
    default:
      return 'Unknown';
  }
}

const streamTitles: Record<string, string> = { verification: 'The verification', psdexport: 'Its PSD export' };

const eventAnchor = (streamIndex: number, revision: number) => `event-${streamIndex}-${revision}`;

export function historyModel(bundle: AuditBundle, links: HistoryLinks): HistoryModel {
  const v = bundle.verification;
  const streams = Object.entries(bundle.streams).map(([stream, events], streamIndex) => {
    const byHash = new Map(events.map((e) => [e.hash, eventAnchor(streamIndex, e.revision)]));
    return {
      stream,
      title: streamTitles[stream.split('-')[0]!] ?? stream,
      events: events.map((e) => ({
        anchor: eventAnchor(streamIndex, e.revision),
        revision: e.revision,
        what: eventWords(e.type),
        type: e.type,
        when: e.metadata.occurred_at,
        who: actorWords(e.metadata.actor),
        region: e.metadata.processing_region,
        correlation: e.metadata.correlation_id,
        hash: e.hash,
        previous: e.previous_hash === null ? null : { hash: e.previous_hash, anchor: byHash.get(e.previous_hash) ?? null },
      })),
    };
  });
  return {
    verification: { name: String(v.name ?? ''), short_code: String(v.short_code ?? ''), status: String(v.status ?? ''), created_at: String(v.created_at ?? '') },
    streams,
    anchors: bundle.anchors.map((a) => ({
      batch_id: a.batch_id,
      sealed_at: a.sealed_at,
      root: a.root,
      leaf: `record ${a.leaf_index + 1} of ${a.tree_size}`,
      sealed_events: sealedHeadsOf(a.record).map((h) => ({
        stream: h.stream,
        revision: h.revision,
        hash: h.event_hash,
        anchor: streams.find((s) => s.stream === h.stream)?.events.find((e) => e.revision === h.revision)?.anchor ?? '',
      })),
      timestamp: a.timestamp?.authority ?? null,
    })),
    links,
  };
}
