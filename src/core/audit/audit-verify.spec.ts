import { generateKeyPairSync, sign, createHash, type KeyObject } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalTsa, type LocalTsa } from '../../../test/anchors/local-tsa.js';
import { httpTimestamper } from '../../provenance/timestamp.js';
import { derToPem, issueCertificate } from '../../provenance/x509.js';
import { AUDIT_BUNDLE_FORMAT, certificateFingerprints, verifyBundle, type AuditCheck, type BundleEvent } from './audit-verify.js';
import { canonicalJson } from './canonical-json.js';
import { contentHash, fieldDigest, linkHash } from './hash-chain.js';
import { inclusionProof, merkleRoot, recordHash } from './merkle.js';

/**
 * The verifier against bundles built here with the service's own Node functions (hash-chain.ts,
 * merkle.ts, x509.ts, node:crypto signatures): the WebCrypto re-derivation must agree with them,
 * and each kind of tampering must stop the checks at the right link. The HTTP and CLI tests
 * (test/cli/audit-verify.test.ts) run it against a real service's bundles.
 */

const YEAR = 365 * 24 * 3600_000;
const sealedAt = '2026-11-27T08:00:00.000Z';
const id = '6f1f1f6e-0000-4000-8000-0000000000aa';
const stream = `verification-${id}`;
const image = 'a'.repeat(64);
const raw = 'b'.repeat(64);

function authority(name: string, notBefore = new Date(Date.parse(sealedAt) - YEAR), notAfter = new Date(Date.parse(sealedAt) + YEAR)) {
  const ca = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const leaf = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const caName = { commonName: `${name} CA`, organization: 'test' };
  const caDer = issueCertificate({ subject: caName, subjectPublicKey: ca.publicKey, selfSigningKey: ca.privateKey, profile: 'ca', notBefore, notAfter });
  const leafDer = issueCertificate({
    subject: { commonName: `${name} signer`, organization: 'test' },
    subjectPublicKey: leaf.publicKey,
    issuer: { name: caName, privateKey: ca.privateKey, publicKey: ca.publicKey },
    profile: 'signer',
    notBefore,
    notAfter,
  });
  return { key: leaf.privateKey, caPem: derToPem(caDer), leafPem: derToPem(leafDer) };
}

const service = authority('Service');

/** A bundle's event, with metadata left open so a test can write what a forged bundle would. */
type TestEvent = Omit<BundleEvent, 'metadata'> & { metadata: Record<string, unknown> };

function events(types: string[], name = stream): TestEvent[] {
  const out: TestEvent[] = [];
  for (const [revision, type] of types.entries()) {
    const e = {
      id: `00000000-0000-4000-8000-${String(revision).padStart(12, '0')}`,
      stream: name,
      revision,
      type,
      version: 1,
      data: { step: revision, note: 'é ☃ \u{1F600}' },
      metadata: { account_id: 'acc', actor: { type: 'user', id: 'u1' }, correlation_id: 'r1', processing_region: 'eu-central', occurred_at: sealedAt },
    };
    const content = contentHash(e);
    const previous = out.at(-1)?.hash ?? null;
    out.push({ ...e, content_hash: content, previous_hash: previous, hash: linkHash(previous, name, revision, content) });
  }
  return out;
}

function anchor(verificationEvents: TestEvent[], signer = service, options: { others?: number; index?: number; sealing?: TestEvent[][]; batch?: string } = {}) {
  const last = verificationEvents.at(-1)!;
  const heads = (options.sealing ?? []).map((list) => ({ stream: list.at(-1)!.stream, revision: list.at(-1)!.revision, event_hash: list.at(-1)!.hash }));
  const record = options.sealing
    ? { verification_id: id, streams: heads.sort((a, b) => a.stream.localeCompare(b.stream)), image_sha256: image, raw_sha256: raw }
    : { verification_id: id, stream, revision: last.revision, event_hash: last.hash, image_sha256: image, raw_sha256: raw };
  const leaf = recordHash(record);
  const others = Array.from({ length: options.others ?? 4 }, (_, i) => createHash('sha256').update(`other ${i}`).digest('hex'));
  const index = options.index ?? 2;
  const leaves = [...others.slice(0, index), leaf, ...others.slice(index)];
  const root = merkleRoot(leaves);
  const batch = { batch_id: options.batch ?? 'batch-1', root, tree_size: leaves.length, sealed_at: sealedAt };
  const signed = canonicalJson(batch);
  return {
    ...batch,
    leaf_index: index,
    record,
    record_hash: leaf,
    inclusion_proof: inclusionProof(leaves, index),
    signature: { algorithm: 'ES256', value: sign('sha256', Buffer.from(signed), { key: signer.key as KeyObject, dsaEncoding: 'ieee-p1363' }).toString('base64'), signed, certificate_chain: [signer.leafPem, signer.caPem] },
    timestamp: null as { authority: string; token: string } | null,
  };
}

function bundle() {
  const verification = events(['VerificationQueued', 'AnalysisCompleted', 'VerificationGraded']);
  return {
    format: AUDIT_BUNDLE_FORMAT,
    verification: { id, image_photo_hash: `sha256:${image}`, raw_photo_hash: `sha256:${raw}` },
    streams: { [stream]: verification, [`psdexport-${id}`]: events(['PsdExportRequested'], `psdexport-${id}`) },
    anchors: [anchor(verification)],
  };
}

const firstBroken = (checks: AuditCheck[]) => checks.find((c) => !c.ok);

/** These synthetic events are no verification's: nothing replays (every summary field is shown, not checked). The replay over real events: test/cli/audit-verify.test.ts. */
const noReplay = { verification: () => null, psdexport: () => null };

async function expectBrokenAt(b: unknown, name: string, detail: RegExp, trust = service.caPem, replays: Parameters<typeof verifyBundle>[2] = noReplay) {
  const checks = await verifyBundle(b, trust, replays);
  const broken = firstBroken(checks);
  expect(broken, JSON.stringify(checks, null, 1)).toBeDefined();
  expect(broken!.name).toBe(name);
  expect(broken!.detail).toMatch(detail);
  // Nothing is checked after the first broken link.
  expect(checks.at(-1)).toBe(broken);
}

describe('verifyBundle: an untouched bundle', () => {
  it('passes every check, in order, pinning the CA', async () => {
    const checks = await verifyBundle(bundle(), service.caPem, noReplay);
    expect(checks.every((c) => c.ok), JSON.stringify(checks, null, 1)).toBe(true);
    expect(checks.map((c) => c.name)).toEqual([
      'bundle',
      'pinned certificate',
      `hash chain ${stream}`,
      `hash chain psdexport-${id}`,
      'replay',
      'anchored',
      'anchored record',
      'record hash',
      'merkle inclusion',
      'signed statement',
      'signature',
      'certificate chain',
      'timestamp',
      'sealed',
    ]);
    const [fingerprint] = await certificateFingerprints(service.caPem);
    expect(checks[1]!.detail).toContain(fingerprint);
    expect(checks.find((c) => c.name === 'timestamp')!.detail).toMatch(/^none/);
  });

  it('passes pinning the signing certificate itself, and with a field given only by its digest', async () => {
    const b = bundle();
    const first = b.streams[stream]![0]!;
    first.redacted_fields = { note: fieldDigest(first.data.note) };
    first.data = { step: first.data.step, note: '[redacted]' };
    const checks = await verifyBundle(b, service.leafPem, noReplay);
    expect(checks.every((c) => c.ok), JSON.stringify(checks, null, 1)).toBe(true);
  });

  it('checks Merkle proofs at every position of trees of every small size', async () => {
    for (let others = 0; others < 7; others++) {
      for (let index = 0; index <= others; index++) {
        const b = bundle();
        b.anchors = [anchor(b.streams[stream]!, service, { others, index })];
        const checks = await verifyBundle(b, service.caPem, noReplay);
        expect(firstBroken(checks), `${index} of ${others + 1}`).toBeUndefined();
      }
    }
  });
});

describe('verifyBundle: each broken link is named', () => {
  it('an event whose data was changed', async () => {
    const b = bundle();
    b.streams[stream]![1]!.data.step = 99;
    await expectBrokenAt(b, `hash chain ${stream}`, /revision 1 \(AnalysisCompleted\).*changed after it was recorded/);
  });

  it('a redacted field whose digest is not the stored value’s', async () => {
    const b = bundle();
    b.streams[stream]![0]!.redacted_fields = { note: fieldDigest('something else') };
    await expectBrokenAt(b, `hash chain ${stream}`, /revision 0/);
  });

  it('an event removed, and two events swapped', async () => {
    const removed = bundle();
    removed.streams[stream]!.splice(1, 1);
    await expectBrokenAt(removed, `hash chain ${stream}`, /revision 1: revision 2 found in its place/);
    const swapped = bundle();
    const list = swapped.streams[stream]!;
    [list[1], list[2]] = [list[2]!, list[1]!];
    await expectBrokenAt(swapped, `hash chain ${stream}`, /revision 1: revision 2 found/);
  });

  it('a chain re-linked over a changed event (content and hashes recomputed) no longer matches the anchor', async () => {
    const b = bundle();
    const rewritten = events(['VerificationQueued', 'AnalysisCompleted', 'VerificationGraded']).map((e) => ({ ...e }));
    rewritten[1]!.data.step = 42;
    for (const [i, e] of rewritten.entries()) {
      e.content_hash = contentHash(e);
      e.previous_hash = rewritten[i - 1]?.hash ?? null;
      e.hash = linkHash(e.previous_hash, stream, i, e.content_hash);
    }
    b.streams[stream] = rewritten;
    await expectBrokenAt(b, 'anchored record', /hash of verification-.* revision 2 is .*, not that event's hash/);
  });

  it('a record naming other file hashes', async () => {
    const b = bundle();
    b.verification.image_photo_hash = `sha256:${'c'.repeat(64)}`;
    await expectBrokenAt(b, 'anchored record', /image_sha256/);
  });

  it('a record hash that is not the record’s', async () => {
    const b = bundle();
    b.anchors[0]!.record_hash = 'd'.repeat(64);
    await expectBrokenAt(b, 'record hash', /does not|not the record_hash/);
  });

  it('a changed proof node, and a proof one node short', async () => {
    const b = bundle();
    b.anchors[0]!.inclusion_proof[0] = 'e'.repeat(64);
    await expectBrokenAt(b, 'merkle inclusion', /not the root/);
    const short = bundle();
    short.anchors[0]!.inclusion_proof.pop();
    await expectBrokenAt(short, 'merkle inclusion', /shorter|not the root/);
  });

  it('a signed statement for another root', async () => {
    const b = bundle();
    b.anchors[0]!.signature.signed = canonicalJson({ batch_id: 'batch-1', root: 'f'.repeat(64), tree_size: 5, sealed_at: sealedAt });
    await expectBrokenAt(b, 'signed statement', /does not name this batch/);
  });

  it('a signature changed by one bit', async () => {
    const b = bundle();
    const bytes = Buffer.from(b.anchors[0]!.signature.value, 'base64');
    bytes[10]! ^= 1;
    b.anchors[0]!.signature.value = bytes.toString('base64');
    await expectBrokenAt(b, 'signature', /does not verify/);
  });

  it('a root signed by someone else’s key, with their chain: the chain does not lead to the pinned CA', async () => {
    const b = bundle();
    b.anchors = [anchor(b.streams[stream]!, authority('Impostor'))];
    await expectBrokenAt(b, 'certificate chain', /does not lead to a certificate you pinned/);
  });

  it('the impostor’s leaf presented under the service’s CA certificate', async () => {
    const impostor = authority('Impostor');
    const b = bundle();
    b.anchors = [anchor(b.streams[stream]!, { ...impostor, caPem: service.caPem })];
    await expectBrokenAt(b, 'certificate chain', /names an issuer other than|not signed by/);
  });

  it('a certificate not valid at the sealing time', async () => {
    const expired = authority('Expired', new Date(Date.parse(sealedAt) - 2 * YEAR), new Date(Date.parse(sealedAt) - YEAR));
    const b = bundle();
    b.anchors = [anchor(b.streams[stream]!, expired)];
    await expectBrokenAt(b, 'certificate chain', /not at the sealing time/, expired.caPem);
  });

  it('no anchor yet', async () => {
    const b = bundle();
    b.anchors = [];
    await expectBrokenAt(b, 'anchored', /no anchor yet/);
  });

  it('not a bundle, and a pinned file without a certificate', async () => {
    await expectBrokenAt({ format: 'x' }, 'bundle', /format/);
    await expectBrokenAt(null, 'bundle', /not a JSON object/);
    await expectBrokenAt(bundle(), 'pinned certificate', /no certificate/, 'not a pem');
  });
});

/** A bundle whose second anchor (format 2) seals both streams, after a first (format 1) sealed the verification as it completed. */
function resealed() {
  const b = bundle();
  const own = b.streams[stream]!;
  const psd = b.streams[`psdexport-${id}`]!;
  b.anchors.push(anchor(own, service, { sealing: [own, psd], batch: 'batch-2' }));
  return b;
}

describe('verifyBundle: what the anchors seal (issue 35)', () => {
  it('names each stream sealed and, after the last sealed revision, the events only chained', async () => {
    const checks = await verifyBundle(bundle(), service.caPem, noReplay);
    expect(checks.at(-1)!.name).toBe('sealed');
    expect(checks.at(-1)!.detail).toMatch(/Chained, not yet sealed: psdexport-.* revision 0 \(PsdExportRequested\)/);
    const sealedBoth = await verifyBundle(resealed(), service.caPem, noReplay);
    expect(firstBroken(sealedBoth), JSON.stringify(sealedBoth, null, 1)).toBeUndefined();
    expect(sealedBoth.at(-1)!.detail).not.toMatch(/not yet sealed/);
  });

  it('a sealed stream dropped from the bundle, and a sealed last event dropped, fail naming the stream', async () => {
    const dropped = resealed();
    delete (dropped.streams as Record<string, unknown>)[`psdexport-${id}`];
    await expectBrokenAt(dropped, 'anchored record (anchor 2)', new RegExp(`seals stream psdexport-${id} to revision 0, but the bundle does not carry it`));
    const cut = resealed();
    cut.streams[stream] = cut.streams[stream]!.slice(0, 2);
    await expectBrokenAt(cut, 'anchored record (anchor 1)', /revision 2, which the bundle does not carry/);
  });

  it('an event field outside its hashes fails a version 2 bundle, and is listed as not checked in a version 1 bundle', async () => {
    const b = bundle();
    (b.streams[stream]![0] as unknown as Record<string, unknown>).processing_region = 'us-east-1';
    await expectBrokenAt(b, `hash chain ${stream}`, /carries processing_region, which its hashes do not cover/);
    const old = { ...bundle(), format: 'photoverify-audit-bundle/1' };
    (old.streams[stream]![0] as unknown as Record<string, unknown>).recorded_at = sealedAt;
    const checks = await verifyBundle(old, service.caPem, noReplay);
    expect(firstBroken(checks), JSON.stringify(checks, null, 1)).toBeUndefined();
    expect(checks.find((c) => c.name === `hash chain ${stream}`)!.detail).toMatch(/shown, not checked \(outside the hashes\): recorded_at/);
    expect(checks.at(-1)!.name).toBe('format');
  });

  it('a version 2 bundle relabelled version 1 fails; a field beside the four a bundle has fails', async () => {
    await expectBrokenAt({ ...resealed(), format: 'photoverify-audit-bundle/1' }, 'bundle', /version 1 bundle cannot hold a version 2 anchor record/);
    await expectBrokenAt({ ...bundle(), note: 'trust me' }, 'bundle', /carries note, which no check covers/);
  });

  it('the summary is compared field by field with its replay, naming the first path that differs', async () => {
    const replays = {
      verification: (events: readonly { type: string }[]) => ({ image_photo_hash: `sha256:${image}`, raw_photo_hash: `sha256:${raw}`, status: events.at(-1)!.type, raw_metadata: { model: 'X-T5' } }),
      psdexport: () => null,
    };
    const b = { ...bundle(), streams: { [stream]: bundle().streams[stream]! } };
    const honest = { ...b, verification: { ...b.verification, status: 'VerificationGraded', raw_metadata: { model: 'X-T5' }, tags: [] } };
    const checks = await verifyBundle(honest, service.caPem, replays);
    expect(firstBroken(checks), JSON.stringify(checks, null, 1)).toBeUndefined();
    expect(checks.find((c) => c.name === 'replay')!.detail).toMatch(/shown, not checked: tags/);
    await expectBrokenAt({ ...honest, verification: { ...honest.verification, raw_metadata: { model: 'Z9' } } }, 'replay', /verification\.raw_metadata\.model: the bundle shows "Z9", its events replay to "X-T5"/, service.caPem, replays);
    await expectBrokenAt({ ...honest, verification: { ...honest.verification, psd_export: { status: 'completed' } } }, 'replay', /verification\.psd_export: the bundle shows \{"status":"completed"\}, its events replay to null/, service.caPem, replays);
  });
});

describe('verifyBundle: the RFC 3161 token of a real authority (openssl ts)', () => {
  let tsa: LocalTsa;
  beforeAll(async () => {
    tsa = await startLocalTsa();
  });
  afterAll(() => tsa?.close());

  const stamped = async (over?: string) => {
    const b = bundle();
    const token = await httpTimestamper(tsa.url)(Buffer.from(over ?? b.anchors[0]!.signature.signed));
    b.anchors[0]!.timestamp = { authority: tsa.url, token: Buffer.from(token).toString('base64') };
    return b;
  };
  const alter = (b: ReturnType<typeof bundle>, change: (token: Buffer) => void) => {
    const token = Buffer.from(b.anchors[0]!.timestamp!.token, 'base64');
    change(token);
    b.anchors[0]!.timestamp!.token = token.toString('base64');
  };

  it('a token over the signed statement passes: its imprint, and its own signature by the certificate it carries', async () => {
    const checks = await verifyBundle(await stamped(), service.caPem, noReplay);
    expect(firstBroken(checks), JSON.stringify(checks, null, 1)).toBeUndefined();
    expect(checks.find((c) => c.name === 'timestamp')!.detail).toMatch(/timestamps SHA-256 of the signed statement at \d{14}.*Z, signed by Test TSA with the certificate the token carries/);
  });

  it('a token over anything else fails on its imprint', async () => {
    await expectBrokenAt(await stamped('another statement'), 'timestamp', /message imprint .* is not SHA-256 of the signed statement/);
  });

  it('a token whose time was changed fails on its signed digest, one whose signature was changed on its signature', async () => {
    const moved = await stamped();
    alter(moved, (token) => {
      const at = token.indexOf(Buffer.from([0x18, 0x0f])) + 2; // genTime, GeneralizedTime of 15 characters
      token[at + 3] = token[at + 3] === 0x30 ? 0x31 : 0x30;
    });
    await expectBrokenAt(moved, 'timestamp', /messageDigest is not the digest of its TSTInfo/);
    const forged = await stamped();
    alter(forged, (token) => (token[token.length - 1]! ^= 1));
    await expectBrokenAt(forged, 'timestamp', /signature does not verify/);
  });

  it('something that is not a token fails', async () => {
    const b = bundle();
    b.anchors[0]!.timestamp = { authority: 'https://tsa.example', token: Buffer.from('junk').toString('base64') };
    await expectBrokenAt(b, 'timestamp', /not a DER TimeStampToken/);
  });
});
