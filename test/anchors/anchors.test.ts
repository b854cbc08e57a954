import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/core/audit/canonical-json.js';
import { merkleRoot, recordHash, verifyInclusion } from '../../src/core/audit/merkle.js';
import { anchorStream } from '../../src/features/anchors/events.js';
import { verificationStream } from '../../src/features/verifications/events.js';
import { SkewedClock } from '../support/clock.js';
import { databaseTargets } from '../support/databases.js';
import { waitFor } from '../support/poll.js';
import { uploadImage } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';
import { startLocalTsa } from './local-tsa.js';

/**
 * Anchoring (issue 25, must-work 2) through the in-process engine with a moved clock, and a real
 * RFC 3161 authority (openssl ts behind HTTP): completed verifications wait for a batch; the
 * batch is sealed once the oldest has waited ANCHOR_INTERVAL_SECONDS, or at once when
 * ANCHOR_BATCH_SIZE wait; each `anchored_in` item checks out with nothing but node:crypto and the
 * published certificate: the record hash from the record, the record from the stored event, the
 * inclusion proof against the root, the ES256 signature over the signed tree head, and the
 * timestamp token over its SHA-256 (openssl ts -verify). An authority that is down loses nothing:
 * the batch is sealed without its token, which is recorded once the authority answers again.
 * The same workflow on Temporal: anchors-timeskip.test.ts; kills: anchors-crash.test.ts.
 */
const INTERVAL_S = 300;
const tsa = await startLocalTsa();
afterAll(() => tsa.close());

for (const target of databaseTargets) describe(`anchors on ${target.name} (in-process engine, moved clock, local TSA)`, () => {
  const clock = new SkewedClock();
  const { t, call, newAccount } = serviceSuite(target, { ANCHOR_INTERVAL_SECONDS: String(INTERVAL_S), ANCHOR_BATCH_SIZE: '4', ANCHOR_TSA_URL: tsa.url }, { clock, workflowSweepMs: 200 });
  const owner = newAccount();
  const read = async (id: string) => (await call('GET', `/v1/verifications/${id}`, { token: owner.token })).body;
  const completed = async (ids: string[]) => {
    for (const id of ids) await waitFor(async () => ['completed', 'failed'].includes((await read(id)).status), `verification ${id} to finish`);
    await t.settled();
  };
  const certificate = async () => {
    const res = await fetch(`${t.url}/v1/anchors/certificate`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/pem-certificate-chain');
    return res.text();
  };

  it('seals the verifications that waited the interval in one batch; every item checks out offline', async () => {
    const ids = [await uploadImage(t.url, owner.token), await uploadImage(t.url, owner.token, 'images/exifr_png_with_exif_and_gps.png'), await uploadImage(t.url, owner.token)];
    await completed(ids);
    const before = await Promise.all(ids.map(read));
    for (const v of before) expect(v.anchored_in).toEqual([]);
    const share = await call('POST', `/v1/verifications/${ids[0]}/share`, { token: owner.token, json: { access_type: 'anyone_with_link' } });
    expect(share.status).toBe(200);
    const reportPage = async () => (await fetch(`${t.url}${new URL(share.body.share_url).pathname}`)).text();
    const first = await reportPage();
    expect(first).toContain('This record is not yet anchored.');
    // The report links the auditor's page of the same share, which opens.
    const history = /<a href="([^"]+)">See the full history/.exec(first)?.[1];
    expect(history).toBe(`${new URL(share.body.share_url).pathname}/history`);
    const historyPage = await fetch(`${t.url}${history}`);
    expect(historyPage.status).toBe(200);
    expect(await historyPage.text()).toContain('<h1');

    // Not yet due: the oldest has waited less than the interval.
    clock.advance((INTERVAL_S - 30) * 1000);
    await sleep(1_500);
    await t.settled();
    expect((await read(ids[0]!)).anchored_in).toEqual([]);
    clock.advance(31_000);
    const items = await Promise.all(ids.map((id) => waitFor(async () => (await read(id)).anchored_in?.[0]?.timestamp && (await read(id)).anchored_in, `verification ${id} to be anchored and timestamped`)));

    const pem = await certificate();
    const endEntity = new crypto.X509Certificate(pem);
    const batchIds = new Set(items.map((list) => list[0].batch_id));
    expect(batchIds.size).toBe(1);
    const leaves: string[] = [];
    for (const [i, list] of items.entries()) {
      expect(list).toHaveLength(1);
      const item = list[0];
      expect(Object.keys(item).sort()).toEqual(['batch_id', 'inclusion_proof', 'leaf_index', 'record', 'record_hash', 'root', 'sealed_at', 'signature', 'timestamp', 'tree_size'].sort());
      expect(item.tree_size).toBe(3);
      // The record (issue 35): the head of each stream the bundle carries (here the verification's own, no export), as stored, and its files.
      const stored = await t.service.deps.store.readStream(verificationStream(ids[i]!));
      const head = stored.at(-1)!;
      expect(stored.some((e) => e.type === 'VerificationCompleted' && e.revision <= head.revision)).toBe(true);
      expect(item.record).toEqual({
        verification_id: ids[i],
        streams: [{ stream: verificationStream(ids[i]!), revision: head.revision, event_hash: head.hash }],
        image_sha256: before[i].image_photo_hash.replace(/^sha256:/, ''),
        raw_sha256: null,
      });
      expect(head.hash).toMatch(/^[0-9a-f]{64}$/);
      expect(item.record_hash).toBe(recordHash(item.record));
      expect(verifyInclusion(item.record_hash, item.leaf_index, item.tree_size, item.inclusion_proof, item.root)).toBe(true);
      leaves[item.leaf_index] = item.record_hash;
      // The signature over the signed tree head, with the published certificate.
      expect(item.signature.algorithm).toBe('ES256');
      expect(item.signature.signed).toBe(canonicalJson({ batch_id: item.batch_id, root: item.root, tree_size: item.tree_size, sealed_at: item.sealed_at }));
      expect(item.signature.certificate_chain.join('')).toBe(pem);
      const verifies = (signed: string) => crypto.verify('sha256', Buffer.from(signed), { key: endEntity.publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(item.signature.value, 'base64'));
      expect(verifies(item.signature.signed)).toBe(true);
      expect(verifies(item.signature.signed.replace(item.root, '0'.repeat(64)))).toBe(false);
      // The timestamp token over SHA-256 of the signed bytes, checked by openssl against the TSA's CA.
      expect(item.timestamp.authority).toBe(tsa.url);
      expect(await tsa.verify(Buffer.from(item.timestamp.token, 'base64'), Buffer.from(item.signature.signed))).toContain('Verification: OK');
      await expect(tsa.verify(Buffer.from(item.timestamp.token, 'base64'), Buffer.from(`${item.signature.signed} `))).rejects.toThrow();
      // Anchoring changes nothing else of the verification.
      const { anchored_in: _a, updated_at: _u, image_thumbnail_url: _t, ...rest } = await read(ids[i]!);
      const { anchored_in: _b, updated_at: _v, image_thumbnail_url: _s, ...was } = before[i];
      expect(rest).toEqual(was);
    }
    expect(merkleRoot(leaves)).toBe(items[0]![0].root);
    // The report page says so in plain words.
    const page = await reportPage();
    expect(page).toContain('This record is anchored');
    expect(page).toContain(`number ${items[0]![0].batch_id}`);
    expect(page).toContain(`${items[0]![0].root.slice(0, 16)}…`);
    expect(page).toContain('confirmed by an independent timestamp authority');
    // The list shows the same items.
    const list = (await call('GET', '/v1/verifications/?size=100', { token: owner.token })).body.items;
    expect(list.find((v: { id: string }) => v.id === ids[0]).anchored_in).toEqual(items[0]);
    // And the audit bundle (the offline verifier's input) carries them as `anchors`.
    const bundle = await call('GET', `/v1/verifications/${ids[1]}/audit-bundle`, { token: owner.token });
    expect(bundle.status).toBe(200);
    expect(bundle.body.anchors).toEqual(items[1]);
  }, 300_000);

  it('seals a full batch at once, leaves the rest for the next, skips a deleted verification, and keeps a batch whose authority is down', async () => {
    tsa.refuse = true;
    const deleted = await uploadImage(t.url, owner.token);
    await completed([deleted]);
    expect((await call('DELETE', `/v1/verifications/${deleted}`, { token: owner.token })).status).toBe(200);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await uploadImage(t.url, owner.token));
    // Four wait: a full batch, sealed without moving the clock (the authority refusing); the fifth waits for the next.
    const sealed = await waitFor(async () => {
      const anchored = (await Promise.all(ids.map(read))).filter((v) => v.anchored_in?.length > 0);
      return anchored.length === 4 && anchored;
    }, 'a full batch to be sealed');
    tsa.refuse = false;
    const batchId = sealed[0].anchored_in[0].batch_id;
    expect(batchId).toBe('2');
    for (const v of sealed) expect(v.anchored_in[0]).toMatchObject({ batch_id: batchId, tree_size: 4, timestamp: null });
    const events = await t.service.deps.store.readStream(anchorStream(batchId));
    const recorded = (events[0]!.data as { records: { record: { verification_id: string } }[] }).records.map((r) => r.record.verification_id);
    expect(recorded).not.toContain(deleted);
    expect(recorded.sort()).toEqual(sealed.map((v) => v.id).sort());
    const fifth = ids.find((id) => !recorded.includes(id))!;
    await completed(ids);

    // The authority answers again: the token is recorded on a later attempt.
    await waitFor(async () => {
      clock.advance(30_000);
      return (await read(sealed[0].id)).anchored_in[0].timestamp !== null;
    }, 'the timestamp of batch 2 once the authority is back');
    // The fifth goes into batch 3 once it has waited the interval.
    const third = await waitFor(async () => {
      clock.advance(60_000);
      return (await read(fifth)).anchored_in[0];
    }, 'the fifth to be sealed in the next batch');
    expect(third).toMatchObject({ batch_id: '3', tree_size: 1, leaf_index: 0, inclusion_proof: [] });
    expect(third.root).toBe(merkleRoot([third.record_hash]));
    const types = (await t.service.deps.store.readStream(anchorStream('2'))).map((e) => e.type);
    expect(types).toEqual(['AnchorBatchSealed', 'AnchorBatchTimestamped']);
  }, 300_000);

  it('publishes the certificate without credentials, cacheable', async () => {
    const res = await fetch(`${t.url}/v1/anchors/certificate`);
    expect(res.headers.get('cache-control')).toContain('public');
    const pem = await res.text();
    expect(pem).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(new crypto.X509Certificate(pem).publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
  });
});
