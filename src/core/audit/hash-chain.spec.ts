import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';
import { contentHash, dataCommitment, fieldDigest, linkHash, verifyChain, type ChainedEvent } from './hash-chain.js';

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

const metadata = {
  account_id: '6f1f1f6e-0000-4000-8000-000000000001',
  actor: { type: 'user', id: 'u1' },
  causation_id: 'c1',
  correlation_id: 'r1',
  processing_region: 'eu-central',
  occurred_at: '2026-11-27T08:00:00.000Z',
};

/** A stream of n events chained as an adapter would, written out from the contract rather than with the functions under test. */
function chain(n: number, stream = 'verification-1'): ChainedEvent[] {
  const events: ChainedEvent[] = [];
  for (let revision = 0; revision < n; revision += 1) {
    const data = { step: revision, token: `secret-${revision}`, note: 'é ☃ \u{1F600}' };
    const commitment = sha(`{"note":"${sha('"é ☃ \u{1F600}"')}","step":"${sha(String(revision))}","token":"${sha(`"secret-${revision}"`)}"}`);
    const id = `00000000-0000-4000-8000-00000000000${revision}`;
    const content = sha(canonicalJson({ data: commitment, id, metadata, type: 'StepDone', version: 1 }));
    const previous = events.at(-1)?.hash ?? null;
    const hash = sha(`${previous ?? ''}\n${stream}\n${revision}\n${content}`);
    events.push({ id, type: 'StepDone', version: 1, data, metadata, stream, revision, content_hash: content, hash, previous_hash: previous });
  }
  return events;
}

describe('canonicalJson', () => {
  it('sorts keys by UTF-16 code units at every depth, with no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: true, y: null }], c: 'x' } })).toBe('{"a":{"c":"x","d":[3,{"y":null,"z":true}]},"b":1}');
    // 'Z' (0x5a) < 'a' (0x61) < 'é' (0xe9) < '\u{1F600}' (high surrogate 0xd83d) < '\uffff'
    expect(canonicalJson({ '\uffff': 1, '\u{1F600}': 2, é: 3, a: 4, Z: 5 })).toBe('{"Z":5,"a":4,"é":3,"\u{1F600}":2,"\uffff":1}');
  });

  it('writes strings and numbers as JSON.stringify does', () => {
    expect(canonicalJson(['a"b\\c\n\u0001', 1e21, 0.1, -0, 1.5e-7])).toBe(JSON.stringify(['a"b\\c\n\u0001', 1e21, 0.1, -0, 1.5e-7]));
  });

  it('treats undefined, functions, non-finite numbers and dates as JSON does, and refuses bigints', () => {
    const value = { a: undefined, f: () => 1, n: [undefined, Number.NaN, Infinity], d: new Date('2026-01-02T03:04:05.000Z') };
    expect(canonicalJson(value)).toBe('{"d":"2026-01-02T03:04:05.000Z","n":[null,null,null]}');
    expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
    expect(() => canonicalJson({ big: 1n })).toThrow(TypeError);
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
  });

  it('gives the same text for a value and its JSON round trip (what a jsonb column returns)', () => {
    const value = { z: [1, 'two', { three: 3.25 }], a: { nested: { deeper: 'ok' } }, unicode: '日本' };
    expect(canonicalJson(JSON.parse(JSON.stringify(value)))).toBe(canonicalJson(value));
  });
});

describe('hash chain', () => {
  it('fieldDigest is the SHA-256 of the canonical JSON', () => {
    expect(fieldDigest({ b: 2, a: 1 })).toBe(sha('{"a":1,"b":2}'));
    expect(fieldDigest('x')).toBe(sha('"x"'));
    expect(fieldDigest(null)).toBe(sha('null'));
  });

  it('dataCommitment hashes one digest per field, skipping undefined ones, and takes a redacted field as its digest', () => {
    const data = { token: 'secret', size: 3 };
    const expected = sha(`{"size":"${sha('3')}","token":"${sha('"secret"')}"}`);
    expect(dataCommitment(data)).toBe(expected);
    expect(dataCommitment({ ...data, gone: undefined })).toBe(expected);
    expect(dataCommitment({ token: '[redacted]', size: 3 }, { token: fieldDigest('secret') })).toBe(expected);
    expect(dataCommitment({ token: '[redacted]', size: 3 })).not.toBe(expected);
  });

  it('contentHash covers id, type, version, data and metadata', () => {
    const event = chain(1)[0]!;
    expect(contentHash(event)).toBe(event.content_hash);
    expect(contentHash({ ...event, id: '00000000-0000-4000-8000-000000000009' })).not.toBe(event.content_hash);
    expect(contentHash({ ...event, type: 'Other' })).not.toBe(event.content_hash);
    expect(contentHash({ ...event, version: 2 })).not.toBe(event.content_hash);
    expect(contentHash({ ...event, data: { ...event.data, step: 1 } })).not.toBe(event.content_hash);
    expect(contentHash({ ...event, metadata: { ...metadata, processing_region: 'us-east' } })).not.toBe(event.content_hash);
  });

  it('linkHash joins previous hash, stream, revision and content hash with newlines', () => {
    expect(linkHash(null, 's-1', 0, 'c')).toBe(sha('\ns-1\n0\nc'));
    expect(linkHash('p', 's-1', 12, 'c')).toBe(sha('p\ns-1\n12\nc'));
  });

  it('verifyChain accepts an intact stream and the empty one', () => {
    expect(verifyChain(chain(5))).toEqual({ ok: true, checked: 5 });
    expect(verifyChain([])).toEqual({ ok: true, checked: 0 });
  });

  const broken = (events: ChainedEvent[], digests?: Parameters<typeof verifyChain>[1]) => {
    const result = verifyChain(events, digests);
    if (result.ok) throw new Error('the chain was accepted');
    return result;
  };

  it('names a changed data field', () => {
    const events = chain(4);
    events[2] = { ...events[2]!, data: { ...events[2]!.data, step: 99 } };
    expect(broken(events)).toMatchObject({ revision: 2, reason: expect.stringContaining('content_hash') });
  });

  it('names changed metadata', () => {
    const events = chain(4);
    events[1] = { ...events[1]!, metadata: { ...metadata, processing_region: 'us-east-1' } };
    expect(broken(events)).toMatchObject({ revision: 1, reason: expect.stringContaining('content_hash') });
  });

  it('names a removed event', () => {
    const events = chain(4);
    events.splice(1, 1);
    expect(broken(events)).toMatchObject({ revision: 2, reason: expect.stringContaining('missing or out of order') });
  });

  it('names reordered events', () => {
    const events = chain(4);
    [events[1], events[2]] = [events[2]!, events[1]!];
    expect(broken(events)).toMatchObject({ revision: 2 });
  });

  it('names a wrong previous_hash, even when the content hash and the link were recomputed to match it', () => {
    const events = chain(4);
    const forged = { ...events[3]!, previous_hash: 'f'.repeat(64) };
    forged.hash = linkHash(forged.previous_hash, forged.stream, forged.revision, forged.content_hash);
    events[3] = forged;
    expect(broken(events)).toMatchObject({ revision: 3, reason: expect.stringContaining('previous_hash') });
  });

  it('names a rewritten event whose own hashes were recomputed: the next link breaks', () => {
    const events = chain(4);
    const rewritten = { ...events[1]!, data: { ...events[1]!.data, step: 42 } };
    rewritten.content_hash = contentHash(rewritten);
    rewritten.hash = linkHash(rewritten.previous_hash, rewritten.stream, 1, rewritten.content_hash);
    events[1] = rewritten;
    expect(broken(events)).toMatchObject({ revision: 2, reason: expect.stringContaining('previous_hash') });
  });

  it('names a wrong link hash and an event of another stream', () => {
    const events = chain(3);
    events[2] = { ...events[2]!, hash: '0'.repeat(64) };
    expect(broken(events)).toMatchObject({ revision: 2, reason: expect.stringContaining('does not match the link') });
    const mixed = chain(3);
    mixed[1] = chain(3, 'verification-2')[1]!;
    expect(broken(mixed)).toMatchObject({ revision: 1, reason: expect.stringContaining('stream') });
  });

  it('checks a redacted view with the given field digests, and names a forged digest', () => {
    const events = chain(3).map((e) => ({ ...e, data: { ...e.data, token: '[redacted]' } }));
    const honest = (e: ChainedEvent) => ({ token: fieldDigest(`secret-${e.revision}`) });
    expect(verifyChain(events, honest)).toEqual({ ok: true, checked: 3 });
    expect(broken(events)).toMatchObject({ revision: 0 });
    const forged = (e: ChainedEvent) => (e.revision === 1 ? { token: fieldDigest('something else') } : honest(e));
    expect(broken(events, forged)).toMatchObject({ revision: 1, reason: expect.stringContaining('content_hash') });
  });
});
