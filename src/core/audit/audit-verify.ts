/**
 * The offline verifier of an audit bundle (issue 25, docs/audit.md "Checking a verification
 * offline"): given what `GET /v1/verifications/{id}/audit-bundle` answers and the certificate the
 * user pins, it recomputes everything else and trusts nothing from the service:
 * 1. each stream's hash chain (src/core/audit/hash-chain.ts's algorithm, content hashes recomputed from
 *    the events, a redacted field taken as the digest `redacted_fields` gives);
 * 2. for each anchor: that its record names this verification, its stream, the hash of that
 *    revision in the stream as checked in 1, and the verification's file hashes; the record hash;
 *    the Merkle inclusion of the record hash in the root (RFC 6962, src/core/audit/merkle.ts); that the
 *    signed statement is the canonical JSON of this batch, root, tree size and sealing time; the
 *    ES256 signature over it; that the signing certificate chains to a pinned certificate, each
 *    certificate valid at the sealing time; and the RFC 3161 token: its message imprint and its own
 *    signature (by the certificate the token carries; whether that authority is trusted is for
 *    the auditor to check against their TSA's CA: this verifier pins the service's certificate).
 * It stops at the first broken link and names it: a later check on top of a broken one would
 * only say something about bytes already known to be wrong.
 *
 * WebCrypto only (`globalThis.crypto.subtle`) and canonical-json.js, no Node built-ins: the very
 * same compiled file runs in Node 20 (the CLI) and in the auditor's page in the browser.
 */
import { canonicalJson } from './canonical-json.js';
import { base64ToBytes, children, oidText, pemBlocks, readTlv, whole, type Tlv } from './der-read.js';

export interface AuditCheck {
  /** Stable name of the link checked, e.g. `hash chain verification-<id>`, `replay`, `sealed`, `signature`. */
  name: string;
  ok: boolean;
  /** What was checked and found, in words (on failure: what does not match). */
  detail: string;
}

/** The format the service writes (issue 35): a summary rebuilt by replay, events as hashed, records naming every stream. */
export const AUDIT_BUNDLE_FORMAT = 'photoverify-audit-bundle/2';
/** The first format (issue 25): still read; its summary is checked where it can be, and the checks it cannot have are named. */
export const AUDIT_BUNDLE_FORMAT_V1 = 'photoverify-audit-bundle/1';

/** The fields of an event its hashes cover (src/core/audit/hash-chain.ts), and the digests of those shown redacted. */
const HASHED_EVENT_FIELDS = ['id', 'stream', 'revision', 'type', 'version', 'data', 'metadata', 'content_hash', 'hash', 'previous_hash', 'redacted_fields'];

export interface BundleEvent {
  id: string;
  stream: string;
  revision: number;
  type: string;
  version: number;
  data: Record<string, unknown>;
  metadata: { account_id: string | null; actor: { type: string; id: string }; causation_id: string; correlation_id: string; processing_region: string; occurred_at: string };
  content_hash: string;
  hash: string;
  previous_hash: string | null;
  redacted_fields?: Record<string, string>;
}

/** One stream an anchor record seals: its head when sealed (src/core/audit/merkle.ts SealedHead). */
export interface SealedHead {
  stream: string;
  revision: number;
  event_hash: string;
}

/**
 * What a verification is anchored as (docs/audit.md "Anchors"; src/core/audit/merkle.ts hashes it):
 * - second format (issue 35): every stream of the verification's audit bundle at its head when
 *   sealed, sorted by stream name, so a bundle that drops a stream or a sealed event fails; a
 *   verification is sealed again whenever one of them grows after it completed;
 * - first format (issue 25): the verification stream's last event when it completed. Batches
 *   sealed before issue 35 hold these; they stay checkable.
 * `raw_sha256` is null when the verification had no RAW file.
 */
export type BundleAnchorRecord =
  | { verification_id: string; streams: SealedHead[]; image_sha256: string; raw_sha256: string | null }
  | (SealedHead & { verification_id: string; image_sha256: string; raw_sha256: string | null });

/** The heads a record seals, in either format. */
export const sealedHeadsOf = (record: BundleAnchorRecord): SealedHead[] =>
  'streams' in record ? record.streams : [{ stream: record.stream, revision: record.revision, event_hash: record.event_hash }];

/** An item of a Verification's `anchored_in` and of a bundle's `anchors`: all an offline check of one record needs. */
export interface Anchor {
  batch_id: string;
  sealed_at: string;
  root: string;
  tree_size: number;
  leaf_index: number;
  record: BundleAnchorRecord;
  record_hash: string;
  inclusion_proof: string[];
  signature: { algorithm: string; value: string; signed: string; certificate_chain: string[] };
  timestamp: { authority: string; token: string } | null;
}

export interface Bundle {
  format: string;
  verification: Record<string, unknown> & { id: string; image_photo_hash: string; raw_photo_hash: string };
  streams: Record<string, BundleEvent[]>;
  anchors: Anchor[];
}

/**
 * A stream kind's replay: the fold its read model runs (projections/<feature>/replay.ts
 * `replayStream`), from its events to the fields the bundle shows of it; null when the events
 * make nothing (none, or deleted). Given by the caller, so this file stays one that runs in the
 * browser and the rules stay written once.
 */
export type StreamReplay = (events: readonly BundleEvent[]) => Record<string, unknown> | null;
export interface BundleReplays {
  /** `verification-<id>`: the verification's own fields. */
  verification: StreamReplay;
  /** `psdexport-<id>`: the bundle's `psd_export`. */
  psdexport: StreamReplay;
}

const verificationStreamOf = (id: string) => `verification-${id}`;
const psdExportStreamOf = (id: string) => `psdexport-${id}`;

/**
 * The bundle's `verification` as its events make it: what the service shows (src/features/auditor/
 * bundle.ts builds it with this) and what the verifier compares the shown one with.
 */
export function bundleSummary(verificationId: string, streams: Record<string, readonly BundleEvent[]>, replays: BundleReplays): Record<string, unknown> {
  const own = replays.verification(streams[verificationStreamOf(verificationId)] ?? []);
  const psd = streams[psdExportStreamOf(verificationId)];
  return { id: verificationId, ...own, psd_export: psd ? replays.psdexport(psd) : null };
}

/** The fields a first-format bundle shows in another shape than the replay gives: listed as shown, not checked. */
const V1_UNREPLAYED = new Set(['results', 'psd_export']);

/** A check failed: the message is its detail. */
class Broken extends Error {}

const fail = (detail: string): never => {
  throw new Broken(detail);
};

/**
 * Runs the checks in order and returns them, ending at the first that fails (its `ok` false).
 * `trust`: the PEM certificate(s) the user pins (the service's published certificate or its CA).
 * `replays`: the read models' folds (BundleReplays). Never throws: a malformed bundle is a
 * failed check like any other.
 */
export async function verifyBundle(input: unknown, trust: string, replays: BundleReplays): Promise<AuditCheck[]> {
  const checks: AuditCheck[] = [];
  const run = async (name: string, check: () => Promise<string> | string): Promise<boolean> => {
    try {
      checks.push({ name, ok: true, detail: await check() });
      return true;
    } catch (error) {
      const detail = error instanceof Broken ? error.message : `could not be checked: ${(error as Error)?.message ?? String(error)}`;
      checks.push({ name, ok: false, detail });
      return false;
    }
  };

  let bundle: Bundle | undefined;
  if (!(await run('bundle', () => ((bundle = readBundle(input)), `${bundle.format}: ${Object.keys(bundle.streams).length} stream(s), ${bundle.anchors.length} anchor(s), verification ${bundle.verification.id}`)))) return checks;
  const b = bundle!;
  const v1 = b.format === AUDIT_BUNDLE_FORMAT_V1;

  let pinned: Certificate[] = [];
  if (!(await run('pinned certificate', async () => {
    pinned = pemCertificates(trust).map(parseCertificate);
    if (!pinned.length) fail('no certificate in the PEM you pinned');
    const prints = await Promise.all(pinned.map((c) => fingerprint(c.der)));
    return pinned.map((c, i) => `${c.subjectName} (SHA-256 ${prints[i]})`).join('; ');
  }))) return checks;

  for (const [stream, events] of Object.entries(b.streams)) {
    if (!(await run(`hash chain ${stream}`, () => checkChain(b, stream, events)))) return checks;
  }

  if (!(await run('replay', () => checkReplay(b, replays)))) return checks;

  if (!(await run('anchored', () => (b.anchors.length ? `${b.anchors.length} anchor(s), in batch ${b.anchors.map((a) => a.batch_id).join(', ')}` : fail('the verification has no anchor yet: completed verifications are sealed into a signed batch every few minutes; try again later'))))) {
    return checks;
  }

  for (const [index, anchor] of b.anchors.entries()) {
    const name = (check: string) => (b.anchors.length > 1 ? `${check} (anchor ${index + 1})` : check);
    const steps: [string, () => Promise<string> | string][] = [
      ['anchored record', () => checkRecord(b, anchor)],
      ['record hash', () => checkRecordHash(anchor)],
      ['merkle inclusion', () => checkInclusion(anchor)],
      ['signed statement', () => checkStatement(anchor)],
      ['signature', () => checkSignature(anchor)],
      ['certificate chain', () => checkCertificateChain(anchor, pinned)],
      ['timestamp', () => checkTimestamp(anchor)],
    ];
    for (const [check, body] of steps) if (!(await run(name(check), body))) return checks;
  }
  await run('sealed', () => checkSealed(b));
  if (v1) await run('format', () => 'version 1 bundle: its anchors seal only the verification stream as it completed (a PSD export or a later event cannot be shown sealed), and its events’ position and recorded_at are not covered by any hash; a bundle fetched today is version 2');
  return checks;
}

/** SHA-256 fingerprints (colon-free lowercase hex) of every certificate in a PEM text, in order. */
export async function certificateFingerprints(pem: string): Promise<string[]> {
  return Promise.all(pemCertificates(pem).map(fingerprint));
}

// ---------------------------------------------------------------------------------------------
// The bundle's shape (untrusted input: every field read is checked)

const HEX64 = /^[0-9a-f]{64}$/;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function readBundle(input: unknown): Bundle {
  if (!isObject(input)) fail('not a JSON object');
  const value = input as Record<string, unknown>;
  if (value.format !== AUDIT_BUNDLE_FORMAT && value.format !== AUDIT_BUNDLE_FORMAT_V1) fail(`format is ${JSON.stringify(value.format)}, expected ${AUDIT_BUNDLE_FORMAT} (or ${AUDIT_BUNDLE_FORMAT_V1})`);
  const unknown = Object.keys(value).filter((key) => !['format', 'verification', 'streams', 'anchors'].includes(key));
  if (unknown.length) fail(`the bundle carries ${unknown.join(', ')}, which no check covers`);
  const verification = value.verification;
  if (!isObject(verification) || typeof verification.id !== 'string' || typeof verification.image_photo_hash !== 'string' || typeof verification.raw_photo_hash !== 'string') {
    fail('verification must have id, image_photo_hash and raw_photo_hash');
  }
  if (!isObject(value.streams) || !Object.keys(value.streams).length) fail('streams must name at least one stream');
  for (const [stream, events] of Object.entries(value.streams as Record<string, unknown>)) {
    if (!Array.isArray(events) || !events.every(isObject)) fail(`stream ${stream} must be a list of events`);
  }
  if (!Array.isArray(value.anchors) || !value.anchors.every(isObject)) fail('anchors must be a list');
  if (value.format === AUDIT_BUNDLE_FORMAT_V1 && (value.anchors as Record<string, unknown>[]).some((a) => isObject(a.record) && 'streams' in a.record)) {
    fail('a version 1 bundle cannot hold a version 2 anchor record (a version 2 bundle relabelled?)');
  }
  return value as unknown as Bundle;
}

// ---------------------------------------------------------------------------------------------
// Hash chain (the algorithm of src/core/audit/hash-chain.ts, re-derived with WebCrypto)

const encoder = new TextEncoder();

async function sha256(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as BufferSource));
}

const toHex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

function fromHex(hex: string): Uint8Array {
  if (!HEX64.test(hex)) fail(`not a SHA-256 hex digest: ${JSON.stringify(hex)}`);
  return Uint8Array.from(hex.match(/../g)!, (pair) => parseInt(pair, 16));
}

const sha256Hex = async (text: string): Promise<string> => toHex(await sha256(encoder.encode(text)));

async function contentHash(event: BundleEvent): Promise<string> {
  const digests: Record<string, string> = {};
  for (const [field, value] of Object.entries(event.data)) if (value !== undefined) digests[field] = await sha256Hex(canonicalJson(value));
  for (const [field, digest] of Object.entries(event.redacted_fields ?? {})) digests[field] = digest;
  const data = await sha256Hex(canonicalJson(digests));
  return sha256Hex(canonicalJson({ id: event.id, type: event.type, version: event.version, data, metadata: event.metadata }));
}

async function checkChain(bundle: Bundle, stream: string, events: BundleEvent[]): Promise<string> {
  if (!events.length) fail('the stream has no events');
  const id = bundle.verification.id;
  if (stream !== verificationStreamOf(id) && stream !== psdExportStreamOf(id)) fail(`the bundle of verification ${id} carries stream ${stream}, which is not one of its own`);
  let previous: string | null = null;
  const unhashed = new Set<string>();
  for (const [index, event] of events.entries()) {
    const at = `revision ${index}`;
    for (const key of Object.keys(event)) if (!HASHED_EVENT_FIELDS.includes(key)) unhashed.add(key);
    if (bundle.format === AUDIT_BUNDLE_FORMAT && unhashed.size) fail(`${at} (${event.type}): the event carries ${[...unhashed].join(', ')}, which its hashes do not cover`);
    if (!isObject(event.data) || typeof event.id !== 'string' || typeof event.type !== 'string') fail(`${at}: the event lacks id, type or data`);
    if (event.redacted_fields !== undefined && !isObject(event.redacted_fields)) fail(`${at}: redacted_fields is not an object`);
    if (event.stream !== stream) fail(`${at}: the event belongs to stream ${event.stream}, not ${stream}`);
    if (event.revision !== index) fail(`${at}: revision ${event.revision} found in its place (an event is missing or out of order)`);
    if (event.previous_hash !== previous) fail(`${at} (${event.type}): previous_hash ${event.previous_hash} is not the hash of the event before (${previous})`);
    const content = await contentHash(event);
    if (content !== event.content_hash) fail(`${at} (${event.type}): the event's content hashes to ${content}, not its content_hash ${event.content_hash}: it was changed after it was recorded`);
    const link = await sha256Hex(`${previous ?? ''}\n${stream}\n${index}\n${content}`);
    if (link !== event.hash) fail(`${at} (${event.type}): hash ${event.hash} is not the link of the previous hash and this content (${link})`);
    previous = event.hash;
  }
  const shown = unhashed.size ? `; shown, not checked (outside the hashes): ${[...unhashed].join(', ')}` : '';
  return `${events.length} event(s) linked from revision 0; head ${previous}${shown}`;
}

// ---------------------------------------------------------------------------------------------
// Replay: the summary the bundle shows, rebuilt from its hashed events

/** The first place two JSON values differ, as a path below `at` (`raw_metadata.model`, `results[2].details.ssim`), or null. */
function firstDifference(shown: unknown, replayed: unknown, at: string): string | null {
  if (shown === undefined || replayed === undefined) return shown === replayed ? null : at;
  if (canonicalJson(shown) === canonicalJson(replayed)) return null;
  if (Array.isArray(shown) && Array.isArray(replayed)) {
    if (shown.length !== replayed.length) return `${at} (${shown.length} item(s) shown, ${replayed.length} replayed)`;
    for (const [i, item] of shown.entries()) {
      const inner = firstDifference(item, replayed[i], `${at}[${i}]`);
      if (inner) return inner;
    }
  }
  if (isObject(shown) && isObject(replayed)) {
    for (const key of new Set([...Object.keys(shown), ...Object.keys(replayed)])) {
      const inner = firstDifference(shown[key], replayed[key], `${at}.${key}`);
      if (inner) return inner;
    }
  }
  return at;
}

/** A value in a message: JSON, cut short. */
const shortJson = (value: unknown): string => {
  const text = value === undefined ? '(absent)' : canonicalJson(value);
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
};

const valueAt = (root: unknown, path: string): unknown => {
  let value = root;
  for (const part of path.match(/[^.[\]]+/g) ?? []) value = Array.isArray(value) ? value[Number(part)] : isObject(value) ? value[part] : undefined;
  return value;
};

/**
 * Every field of the bundle's `verification` is compared with the same field of the summary its
 * hashed events replay to (bundleSummary, the read models' own folds); a field the replay does
 * not give is named as shown, not checked.
 */
function checkReplay(bundle: Bundle, replays: BundleReplays): string {
  const replayed = bundleSummary(bundle.verification.id, bundle.streams, replays);
  const checked: string[] = [];
  const notChecked: string[] = [];
  for (const [field, shown] of Object.entries(bundle.verification)) {
    if (!(field in replayed) || (bundle.format === AUDIT_BUNDLE_FORMAT_V1 && V1_UNREPLAYED.has(field))) {
      notChecked.push(field);
      continue;
    }
    const path = firstDifference(shown, replayed[field], `verification.${field}`);
    if (path) fail(`${path}: the bundle shows ${shortJson(valueAt({ verification: bundle.verification }, path))}, its events replay to ${shortJson(valueAt({ verification: replayed }, path))}`);
    checked.push(field);
  }
  return `${checked.length} field(s) shown equal their replay from the hashed events (${checked.join(', ')})${notChecked.length ? `; shown, not checked: ${notChecked.join(', ')}` : ''}`;
}

// ---------------------------------------------------------------------------------------------
// Sealed: which events the anchors seal, which are only chained, which streams are missing

/**
 * The latest revision any anchor seals of each stream. A stream an anchor seals must be in the
 * bundle (checkRecord has matched each sealed head's hash); events after the last sealed
 * revision are chained, not yet sealed: named, not failed (a later batch seals them).
 */
function checkSealed(bundle: Bundle): string {
  const sealed = new Map<string, { revision: number; batch: string }>();
  for (const anchor of bundle.anchors) {
    for (const head of sealedHeadsOf(anchor.record)) {
      const before = sealed.get(head.stream);
      if (!before || head.revision > before.revision) sealed.set(head.stream, { revision: head.revision, batch: anchor.batch_id });
    }
  }
  for (const [stream, { revision, batch }] of sealed) {
    if (!bundle.streams[stream]) fail(`stream ${stream} is sealed to revision ${revision} by batch ${batch}, but the bundle does not carry it`);
  }
  const parts: string[] = [];
  const unsealed: string[] = [];
  for (const [stream, events] of Object.entries(bundle.streams)) {
    const upTo = sealed.get(stream);
    if (upTo) parts.push(`${stream} revisions 0-${upTo.revision} (batch ${upTo.batch})`);
    const after = events.filter((e) => e.revision > (upTo?.revision ?? -1));
    if (after.length) unsealed.push(`${stream} revision${after.length > 1 ? 's' : ''} ${after.map((e) => `${e.revision} (${e.type})`).join(', ')}`);
  }
  return `sealed: ${parts.join('; ') || 'nothing'}${unsealed.length ? `. Chained, not yet sealed: ${unsealed.join('; ')} (a later batch seals them; fetch the bundle again to see them sealed)` : ''}`;
}

// ---------------------------------------------------------------------------------------------
// The anchor: record, record hash, Merkle inclusion

const bareDigest = (value: string): string => value.replace(/^sha256:/, '');

function checkRecord(bundle: Bundle, anchor: Anchor): string {
  const { record } = anchor;
  if (!isObject(record)) fail('the anchor has no record');
  const id = bundle.verification.id;
  if (record.verification_id !== id) fail(`the record names verification ${record.verification_id}, not ${id}`);
  const heads = sealedHeadsOf(record);
  if (!Array.isArray(heads) || !heads.length || !heads.every(isObject)) fail('the record names no stream');
  const named: string[] = [];
  for (const head of heads) {
    if (head.stream !== verificationStreamOf(id) && head.stream !== psdExportStreamOf(id)) fail(`the record names stream ${head.stream}, not one of verification ${id}`);
    const events = bundle.streams[head.stream];
    if (!events) fail(`the record seals stream ${head.stream} to revision ${head.revision}, but the bundle does not carry it`);
    const event = events!.find((e) => e.revision === head.revision);
    if (!event) fail(`the record seals ${head.stream} to revision ${head.revision}, which the bundle does not carry (a sealed event was dropped)`);
    if (head.event_hash !== event!.hash) fail(`the record's hash of ${head.stream} revision ${head.revision} is ${head.event_hash}, not that event's hash (${event!.hash})`);
    named.push(`${head.stream} revision ${head.revision} (${event!.type})`);
  }
  const image = bareDigest(bundle.verification.image_photo_hash);
  if (record.image_sha256 !== image) fail(`the record's image_sha256 ${record.image_sha256} is not the verification's image hash ${image}`);
  const raw = bareDigest(bundle.verification.raw_photo_hash) || null;
  if (record.raw_sha256 !== raw) fail(`the record's raw_sha256 ${record.raw_sha256} is not the verification's RAW hash ${raw}`);
  return `${named.join(', ')}, image ${image.slice(0, 12)}…${raw ? `, RAW ${raw.slice(0, 12)}…` : ', no RAW'}`;
}

async function checkRecordHash(anchor: Anchor): Promise<string> {
  const r = anchor.record;
  const fields =
    'streams' in r
      ? { verification_id: r.verification_id, streams: r.streams.map((h) => ({ stream: h.stream, revision: h.revision, event_hash: h.event_hash })), image_sha256: r.image_sha256, raw_sha256: r.raw_sha256 }
      : { verification_id: r.verification_id, stream: r.stream, revision: r.revision, event_hash: r.event_hash, image_sha256: r.image_sha256, raw_sha256: r.raw_sha256 };
  const computed = await sha256Hex(canonicalJson(fields));
  if (computed !== anchor.record_hash) fail(`the record hashes to ${computed}, not the record_hash ${anchor.record_hash}`);
  return computed;
}

const LEAF = Uint8Array.of(0);
const NODE = Uint8Array.of(1);
const concat = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) (out.set(part, at), (at += part.length));
  return out;
};

/** RFC 9162 2.1.3.2: the root an inclusion proof leads to from a leaf at `index` of `size`, or a reason it leads nowhere. */
async function checkInclusion(anchor: Anchor): Promise<string> {
  const { leaf_index: index, tree_size: size, inclusion_proof: proof } = anchor;
  if (!Number.isInteger(index) || !Number.isInteger(size) || index < 0 || index >= size) fail(`leaf ${index} is outside a tree of ${size}`);
  if (!Array.isArray(proof)) fail('inclusion_proof is not a list');
  let fn = index;
  let sn = size - 1;
  let r = await sha256(concat(LEAF, fromHex(anchor.record_hash)));
  for (const node of proof) {
    if (sn === 0) fail(`the proof is longer than a tree of ${size} needs`);
    const sibling = fromHex(node);
    if (fn % 2 === 1 || fn === sn) {
      r = await sha256(concat(NODE, sibling, r));
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = await sha256(concat(NODE, r, sibling));
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  if (sn !== 0) fail(`the proof is shorter than a tree of ${size} needs`);
  if (toHex(r) !== anchor.root) fail(`the proof leads to ${toHex(r)}, not the root ${anchor.root}`);
  return `leaf ${index} of ${size} → root ${anchor.root}`;
}

// ---------------------------------------------------------------------------------------------
// The signed statement and its signature

function checkStatement(anchor: Anchor): string {
  const { signature } = anchor;
  if (!isObject(signature) || typeof signature.signed !== 'string') fail('the anchor has no signed statement');
  const expected = canonicalJson({ batch_id: anchor.batch_id, root: anchor.root, tree_size: anchor.tree_size, sealed_at: anchor.sealed_at });
  if (signature.signed !== expected) fail(`the signed statement ${signature.signed} does not name this batch, root, tree size and sealing time (${expected})`);
  return `batch ${anchor.batch_id}, ${anchor.tree_size} record(s), sealed ${anchor.sealed_at}`;
}

function base64Bytes(text: string, what: string): Uint8Array {
  try {
    return base64ToBytes(text);
  } catch {
    return fail(`${what} is not base64`);
  }
}

async function checkSignature(anchor: Anchor): Promise<string> {
  const { signature } = anchor;
  if (signature.algorithm !== 'ES256') fail(`algorithm ${signature.algorithm}: only ES256 is used`);
  if (!Array.isArray(signature.certificate_chain) || !signature.certificate_chain.length) fail('no signing certificate');
  const leaf = parseCertificate(pemCertificates(signature.certificate_chain[0]!)[0] ?? fail('the signing certificate is not PEM'));
  const value = base64Bytes(signature.value, 'the signature');
  if (value.length !== 64) fail(`the signature is ${value.length} bytes; ES256 (IEEE P1363 r||s) is 64`);
  const ok = await crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, await ecKey(leaf), value as BufferSource, encoder.encode(signature.signed) as BufferSource);
  if (!ok) fail(`the signature does not verify with the key of ${leaf.subjectName}`);
  return `ES256 by ${leaf.subjectName}`;
}

async function checkCertificateChain(anchor: Anchor, pinned: Certificate[]): Promise<string> {
  const at = new Date(anchor.sealed_at);
  if (Number.isNaN(at.getTime())) fail(`sealed_at ${anchor.sealed_at} is not a time`);
  const path = anchor.signature.certificate_chain.map((pem, i) => parseCertificate(pemCertificates(pem)[0] ?? fail(`certificate ${i + 1} of the chain is not PEM`)));
  const names: string[] = [];
  for (const [i, cert] of path.entries()) {
    validAt(cert, at);
    names.push(cert.subjectName);
    if (pinned.some((p) => sameBytes(p.der, cert.der))) return `${names.join(' ← ')} (pinned), each valid on ${anchor.sealed_at}`;
    const pinnedIssuer = pinned.find((p) => sameBytes(p.subject, cert.issuer));
    if (pinnedIssuer) {
      validAt(pinnedIssuer, at);
      if (!(await signedBy(cert, pinnedIssuer))) fail(`${cert.subjectName} is not signed by the pinned ${pinnedIssuer.subjectName}`);
      return `${[...names, pinnedIssuer.subjectName].join(' ← ')} (pinned), each valid on ${anchor.sealed_at}`;
    }
    const issuer = path[i + 1];
    if (!issuer) break;
    if (!sameBytes(issuer.subject, cert.issuer)) fail(`${cert.subjectName} names an issuer other than the next certificate, ${issuer.subjectName}`);
    if (!(await signedBy(cert, issuer))) fail(`${cert.subjectName} is not signed by ${issuer.subjectName}`);
  }
  return fail(`the chain ${names.join(' ← ')} does not lead to a certificate you pinned`);
}

function validAt(cert: Certificate, at: Date): void {
  if (at < cert.notBefore || at > cert.notAfter) {
    fail(`${cert.subjectName} is valid from ${cert.notBefore.toISOString()} to ${cert.notAfter.toISOString()}, not at the sealing time ${at.toISOString()}`);
  }
}

async function signedBy(cert: Certificate, issuer: Certificate): Promise<boolean> {
  if (cert.signatureAlgorithm !== ECDSA_WITH_SHA256) fail(`${cert.subjectName} is not signed with ECDSA/SHA-256 (the only algorithm this verifier reads)`);
  return crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, await ecKey(issuer), p1363(cert.signature) as BufferSource, cert.tbs as BufferSource);
}

async function ecKey(cert: Certificate): Promise<CryptoKey> {
  try {
    return await crypto.subtle.importKey('spki', cert.spki as BufferSource, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
  } catch {
    return fail(`the key of ${cert.subjectName} is not an ECDSA P-256 key (the only kind this verifier reads)`);
  }
}

// ---------------------------------------------------------------------------------------------
// RFC 3161 timestamp token

async function checkTimestamp(anchor: Anchor): Promise<string> {
  if (anchor.timestamp === null || anchor.timestamp === undefined) return 'none: the service has no timestamp authority configured (the sealing time is the service’s own word)';
  const token = base64Bytes(anchor.timestamp.token, 'the timestamp token');
  const parsed = readTimestampToken(token);
  if (parsed.hashAlgorithm !== SHA256_OID) fail('the token’s message imprint is not SHA-256');
  const expected = await sha256(encoder.encode(anchor.signature.signed));
  if (!sameBytes(parsed.hashedMessage, expected)) fail(`the token’s message imprint ${toHex(parsed.hashedMessage)} is not SHA-256 of the signed statement (${toHex(expected)})`);
  const signer = await checkTokenSignature(parsed);
  return (
    `${anchor.timestamp.authority}: the token timestamps SHA-256 of the signed statement at ${parsed.genTime}, signed by ${signer} with the certificate the token carries. ` +
    'Whether that authority is one you trust is not checked here (you pinned the service’s certificate, not a timestamp authority’s): check it with `openssl ts -verify -CAfile <your TSA CA>`'
  );
}

interface TimestampToken {
  hashAlgorithm: string;
  hashedMessage: Uint8Array;
  genTime: string;
  /** The DER TSTInfo the signer's messageDigest covers. */
  tstInfo: Uint8Array;
  /** The certificates the token carries. */
  certificates: Uint8Array[];
  signerInfo: { sid: Uint8Array; sidIsIssuerAndSerial: boolean; digestAlgorithm: string; signedAttrs: Uint8Array | null; signatureAlgorithm: string; signature: Uint8Array };
}

/** The parts of a TimeStampToken the checks read (ContentInfo → SignedData → TSTInfo and SignerInfo; RFC 3161 2.4.2, RFC 5652 5). */
function readTimestampToken(token: Uint8Array): TimestampToken {
  try {
    const contentInfo = children(readTlv(token, 0), token);
    const signedData = children(children(contentInfo[1]!, token)[0]!, token);
    const encap = children(signedData[2]!, token);
    const octets = children(encap[1]!, token)[0]!;
    const tstBytes = token.subarray(octets.start, octets.end);
    const tst = children(readTlv(tstBytes, 0), tstBytes);
    const imprint = children(tst[2]!, tstBytes);
    const algorithm = children(imprint[0]!, tstBytes)[0]!;
    const genTime = tst[4]!;
    const certificates = signedData.find((t) => t.tag === 0xa0);
    const signerInfos = signedData.at(-1)!;
    const info = children(children(signerInfos, token)[0]!, token);
    const oidOf = (tlv: Tlv) => oidText(token.subarray(children(tlv, token)[0]!.start, children(tlv, token)[0]!.end));
    const attrs = info[3]!.tag === 0xa0 ? info[3]! : null;
    const rest = attrs ? info.slice(4) : info.slice(3);
    return {
      hashAlgorithm: oidText(tstBytes.subarray(algorithm.start, algorithm.end)),
      hashedMessage: tstBytes.subarray(imprint[1]!.start, imprint[1]!.end),
      genTime: String.fromCharCode(...tstBytes.subarray(genTime.start, genTime.end)),
      tstInfo: tstBytes,
      certificates: certificates ? children(certificates, token).filter((c) => c.tag === 0x30).map((c) => whole(token, c)) : [],
      signerInfo: {
        sid: whole(token, info[1]!),
        sidIsIssuerAndSerial: info[1]!.tag === 0x30,
        digestAlgorithm: oidOf(info[2]!),
        // Signed as a SET (RFC 5652 5.4): the [0] IMPLICIT tag is replaced by SET's.
        signedAttrs: attrs ? concat(Uint8Array.of(0x31), token.subarray(attrs.offset + 1, attrs.end)) : null,
        signatureAlgorithm: oidOf(rest[0]!),
        signature: token.subarray(rest[1]!.start, rest[1]!.end),
      },
    };
  } catch (error) {
    return fail(`the timestamp token is not a DER TimeStampToken (${(error as Error).message})`);
  }
}

const DIGESTS: Record<string, { name: string; size: number }> = {
  '2.16.840.1.101.3.4.2.1': { name: 'SHA-256', size: 32 },
  '2.16.840.1.101.3.4.2.2': { name: 'SHA-384', size: 48 },
  '2.16.840.1.101.3.4.2.3': { name: 'SHA-512', size: 64 },
};
const MESSAGE_DIGEST = '1.2.840.113549.1.9.4';
const EC_PUBLIC_KEY = '1.2.840.10045.2.1';
const CURVES: Record<string, { name: string; size: number }> = { '1.2.840.10045.3.1.7': { name: 'P-256', size: 32 }, '1.3.132.0.34': { name: 'P-384', size: 48 } };

/**
 * The token's own signature (RFC 5652 5.4-5.6): the signed attributes' messageDigest is the digest
 * of the TSTInfo, and the signature over the attributes verifies with the key of the certificate
 * the SignerInfo names (ECDSA P-256/P-384 or RSA PKCS #1 v1.5). Returns the signer's name.
 */
async function checkTokenSignature(token: TimestampToken): Promise<string> {
  const { signerInfo } = token;
  const digest = DIGESTS[signerInfo.digestAlgorithm] ?? fail(`the token is signed over a digest this verifier does not read (${signerInfo.digestAlgorithm})`);
  if (!signerInfo.signedAttrs) fail('the token has no signed attributes (RFC 3161 requires them)');
  const attrs = signerInfo.signedAttrs!;
  const attributes = children(readTlv(attrs, 0), attrs).map((a) => children(a, attrs));
  const messageDigest = attributes.find(([type]) => oidText(attrs.subarray(type!.start, type!.end)) === MESSAGE_DIGEST);
  if (!messageDigest) fail('the token’s signed attributes have no messageDigest');
  const value = children(messageDigest![1]!, attrs)[0]!;
  const computed = new Uint8Array(await crypto.subtle.digest(digest.name, token.tstInfo as BufferSource));
  if (!sameBytes(attrs.subarray(value.start, value.end), computed)) fail('the token’s signed messageDigest is not the digest of its TSTInfo: the token was altered');
  const certificates = token.certificates.map(parseCertificate);
  const named = signerInfo.sidIsIssuerAndSerial ? certificates.filter((c) => sameBytes(concat(c.issuer, c.serial), innerOf(signerInfo.sid))) : certificates;
  if (!named.length) fail('the token does not carry the certificate of its signer');
  for (const cert of named) {
    if (await verifyWith(cert, digest.name, signerInfo.signature, attrs)) return cert.subjectName;
  }
  return fail('the token’s signature does not verify with the key of the certificate it names');
}

/** The content of a DER element (its TLV without tag and length). */
function innerOf(der: Uint8Array): Uint8Array {
  const tlv = readTlv(der, 0);
  return der.subarray(tlv.start, tlv.end);
}

async function verifyWith(cert: Certificate, hash: string, signature: Uint8Array, data: Uint8Array): Promise<boolean> {
  const spki = children(readTlv(cert.spki, 0), cert.spki);
  const algorithm = children(spki[0]!, cert.spki);
  const keyType = oidText(cert.spki.subarray(algorithm[0]!.start, algorithm[0]!.end));
  if (keyType === EC_PUBLIC_KEY) {
    const curve = CURVES[oidText(cert.spki.subarray(algorithm[1]!.start, algorithm[1]!.end))] ?? fail(`${cert.subjectName}’s key is on a curve this verifier does not read`);
    const key = await crypto.subtle.importKey('spki', cert.spki as BufferSource, { name: 'ECDSA', namedCurve: curve.name }, false, ['verify']);
    return crypto.subtle.verify({ name: 'ECDSA', hash }, key, p1363(signature, curve.size) as BufferSource, data as BufferSource);
  }
  const key = await crypto.subtle.importKey('spki', cert.spki as BufferSource, { name: 'RSASSA-PKCS1-v1_5', hash }, false, ['verify']).catch(() => fail(`${cert.subjectName}’s key is neither EC nor RSA`));
  return crypto.subtle.verify({ name: 'RSASSA-PKCS1-v1_5' }, key, signature as BufferSource, data as BufferSource);
}

const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';
const SHA256_OID = '2.16.840.1.101.3.4.2.1';
const COMMON_NAME = '2.5.4.3';

interface Certificate {
  der: Uint8Array;
  /** The serial number's INTEGER, whole (what a CMS issuerAndSerialNumber names with the issuer). */
  serial: Uint8Array;
  tbs: Uint8Array;
  issuer: Uint8Array;
  subject: Uint8Array;
  subjectName: string;
  notBefore: Date;
  notAfter: Date;
  spki: Uint8Array;
  signatureAlgorithm: string;
  /** The DER ECDSA-Sig-Value of the certificate's signature. */
  signature: Uint8Array;
}

function pemCertificates(pem: string): Uint8Array[] {
  if (typeof pem !== 'string') fail('a certificate is not PEM text');
  return pemBlocks(pem).map((block) => base64Bytes(block, 'a PEM certificate'));
}

function parseCertificate(der: Uint8Array): Certificate {
  try {
    const [tbsTlv, algorithmTlv, signatureTlv] = children(readTlv(der, 0), der);
    const fields = children(tbsTlv!, der);
    const at = fields[0]!.tag === 0xa0 ? 1 : 0; // [0] version, absent in v1
    const [issuer, validity, subject, spki] = [fields[at + 2]!, fields[at + 3]!, fields[at + 4]!, fields[at + 5]!];
    const [notBefore, notAfter] = children(validity, der).map((t) => derTime(t, der));
    const algorithm = children(algorithmTlv!, der)[0]!;
    return {
      der,
      serial: whole(der, fields[at]!),
      tbs: whole(der, tbsTlv!),
      issuer: whole(der, issuer),
      subject: whole(der, subject),
      subjectName: commonName(subject, der),
      notBefore: notBefore!,
      notAfter: notAfter!,
      spki: whole(der, spki),
      signatureAlgorithm: oidText(der.subarray(algorithm.start, algorithm.end)),
      signature: der.subarray(signatureTlv!.start + 1, signatureTlv!.end), // after the BIT STRING's unused-bits byte
    };
  } catch (error) {
    return fail(`a certificate is not DER X.509 (${(error as Error).message})`);
  }
}

/** UTCTime (YYMMDDHHMMSSZ) or GeneralizedTime (YYYYMMDDHHMMSSZ). */
function derTime(tlv: Tlv, bytes: Uint8Array): Date {
  const text = String.fromCharCode(...bytes.subarray(tlv.start, tlv.end));
  const match = /^(\d{2}|\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  if (!match) return fail(`unsupported certificate time ${text}`);
  const year = match[1]!.length === 2 ? (Number(match[1]) < 50 ? 2000 : 1900) + Number(match[1]) : Number(match[1]);
  return new Date(Date.UTC(year, Number(match[2]) - 1, Number(match[3]), Number(match[4]), Number(match[5]), Number(match[6])));
}

/** The subject's common name (the first CN), for messages; the whole name's bytes are what is compared. */
function commonName(name: Tlv, bytes: Uint8Array): string {
  for (const rdn of children(name, bytes)) {
    for (const attribute of children(rdn, bytes)) {
      const [type, value] = children(attribute, bytes);
      if (oidText(bytes.subarray(type!.start, type!.end)) === COMMON_NAME) return new TextDecoder().decode(bytes.subarray(value!.start, value!.end));
    }
  }
  return '(no common name)';
}

/** DER ECDSA-Sig-Value (SEQUENCE of two INTEGERs) → IEEE P1363 r||s, `size` bytes each (32 for P-256), as WebCrypto verifies. */
function p1363(der: Uint8Array, size = 32): Uint8Array {
  const [r, s] = children(readTlv(der, 0), der);
  const fixed = (tlv: Tlv) => {
    let value = der.subarray(tlv.start, tlv.end);
    while (value.length > size && value[0] === 0) value = value.subarray(1);
    if (value.length > size) fail('an ECDSA signature integer longer than its curve allows');
    return concat(new Uint8Array(size - value.length), value);
  };
  return concat(fixed(r!), fixed(s!));
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

const fingerprint = async (der: Uint8Array): Promise<string> => toHex(await sha256(der));
