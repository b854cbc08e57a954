/**
 * The tamper-evident event log: a hash chain per stream (issue 25, contract 1; docs/audit.md
 * gives the same algorithm for outsiders). All digests are SHA-256 as 64 lowercase hex
 * characters, over the UTF-8 bytes of the text named:
 * - `fieldDigest(value) = sha256hex(canonicalJson(value))`;
 * - `dataCommitment(data) = sha256hex(canonicalJson({ <field>: fieldDigest(data[field]) ... }))`
 *   over the fields JSON keeps (a field whose value is undefined is not stored, so not hashed).
 *   One digest per field, so a view that redacts a field can give its digest instead and the
 *   event still hashes the same;
 * - `contentHash(event) = sha256hex(canonicalJson({ id, type, version, data: dataCommitment(data), metadata }))`;
 * - `linkHash(previousHash, stream, revision, contentHash) =
 *   sha256hex((previousHash ?? '') + '\n' + stream + '\n' + revision + '\n' + contentHash)`,
 *   revision in decimal; previousHash is the `hash` of the stream's event at revision - 1, null
 *   at revision 0. An event's `hash` is its link hash.
 * The event store computes them at append time (the PostgreSQL append function repeats
 * `linkHash` in SQL under its append lock); a read model never touches them.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';

export { canonicalJson };

/** What an event's content hash covers: everything but where and when it was stored. */
export interface HashableEvent {
  id: string;
  type: string;
  version: number;
  data: Record<string, unknown>;
  metadata: unknown;
}

/** An event as the chain is checked: its content and its place. */
export interface ChainedEvent extends HashableEvent {
  stream: string;
  revision: number;
  content_hash: string;
  hash: string;
  previous_hash: string | null;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export function fieldDigest(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

/** The per-field digests `dataCommitment` hashes; `digests` replaces fields given only as their digest (a redacted view). */
export function fieldDigests(data: Record<string, unknown>, digests: Readonly<Record<string, string>> = {}): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [field, value] of Object.entries(data)) if (canonicalJsonKeeps(value)) fields[field] = fieldDigest(value);
  for (const [field, digest] of Object.entries(digests)) fields[field] = digest;
  return fields;
}

export function dataCommitment(data: Record<string, unknown>, digests?: Readonly<Record<string, string>>): string {
  return sha256Hex(canonicalJson(fieldDigests(data, digests)));
}

/** `digests`: fields the caller only knows by their `fieldDigest` (the audit history's `redacted_fields`). */
export function contentHash(event: HashableEvent, digests?: Readonly<Record<string, string>>): string {
  return sha256Hex(canonicalJson({ id: event.id, type: event.type, version: event.version, data: dataCommitment(event.data, digests), metadata: event.metadata }));
}

export function linkHash(previousHash: string | null, stream: string, revision: number, content: string): string {
  return sha256Hex(`${previousHash ?? ''}\n${stream}\n${revision}\n${content}`);
}

export type ChainCheck = { ok: true; checked: number } | { ok: false; revision: number; reason: string };

/**
 * Checks one stream's events, in the order given, from revision 0: each event's content hash
 * against its content, its previous hash against the event before, its revision against its
 * place, and its hash against the link. Names the first broken link. `digests(event)` gives the
 * digests of the fields a view redacted (the audit history's `redacted_fields`).
 */
export function verifyChain(
  events: readonly ChainedEvent[],
  digests: (event: ChainedEvent) => Readonly<Record<string, string>> | undefined = () => undefined,
): ChainCheck {
  let previous: ChainedEvent | undefined;
  for (const [index, event] of events.entries()) {
    const broken = (reason: string): ChainCheck => ({ ok: false, revision: event.revision, reason });
    if (previous && event.stream !== previous.stream) return broken(`the event belongs to stream ${event.stream}, not ${previous.stream}`);
    if (event.revision !== index) return broken(`revision ${event.revision} found where revision ${index} belongs (an event is missing or out of order)`);
    const expectedPrevious = previous?.hash ?? null;
    if (event.previous_hash !== expectedPrevious) return broken(`previous_hash ${event.previous_hash} is not the hash of the event before (${expectedPrevious})`);
    const content = contentHash(event, digests(event));
    if (content !== event.content_hash) return broken(`content_hash ${event.content_hash} does not match the event's content (${content})`);
    const link = linkHash(expectedPrevious, event.stream, event.revision, content);
    if (link !== event.hash) return broken(`hash ${event.hash} does not match the link (${link})`);
    previous = event;
  }
  return { ok: true, checked: events.length };
}

/** Whether canonicalJson writes an object member with this value (undefined, functions and symbols are left out). */
function canonicalJsonKeeps(value: unknown): boolean {
  return value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';
}
