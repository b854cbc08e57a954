/**
 * Secrets are compared in constant time (issue 21, must-work 6c): a caller's secret is either
 * compared with crypto.timingSafeEqual, after a length check (timingSafeEqual throws on unequal
 * lengths, which would be a 500), or hashed and looked up by the hash (share and invitation
 * tokens, set-password tokens, capture nonces: a database index lookup reveals nothing of the
 * secret). One test per comparator, and a scan of src/ that fails on a new `===`/`!==` between
 * secret-named values, so a comparison added later is looked at.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UrlSigner } from '../../src/core/http/signed-urls.js';
import { hashApiKey } from '../../src/features/apikeys/key-material.js';
import { sameHash } from '../../src/core/secrets.js';
import { hashPassword, verifyPassword } from '../../src/features/accounts/passwords.js';
import { issueUploadId, readUploadId } from '../../src/features/uploads/tokens.js';

const src = path.resolve(import.meta.dirname, '../../src');

describe('secret comparators', () => {
  it('API keys: sameHash compares digests with timingSafeEqual, and a digest of another length is false, not a throw', () => {
    const digest = hashApiKey('pv_abcdefgh_0123456789abcdef0123456789abcdef');
    expect(sameHash(digest, hashApiKey('pv_abcdefgh_0123456789abcdef0123456789abcdef'))).toBe(true);
    expect(sameHash(digest, hashApiKey('pv_abcdefgh_0123456789abcdef0123456789abcdeg'))).toBe(false);
    expect(sameHash(digest, digest.slice(0, 10))).toBe(false);
    expect(sameHash(digest, '')).toBe(false);
  });

  it('passwords: the scrypt output is compared with timingSafeEqual; a wrong password or a malformed hash is false', async () => {
    const stored = await hashPassword('a long enough password', 10);
    expect(await verifyPassword('a long enough password', stored)).toBe(true);
    expect(await verifyPassword('a long enough passworD', stored)).toBe(false);
    expect(await verifyPassword('a long enough password', `${stored.slice(0, -8)}AAAA`)).toBe(false);
  });

  it('pre-signed URLs: a signature of any length or content but the right one is invalid, never a throw', () => {
    const signer = new UrlSigner(crypto.randomBytes(32), 'http://localhost');
    const url = new URL(signer.sign('verifications/x/image.jpeg', { now: new Date(), ttlSeconds: 60, contentType: 'image/jpeg' }));
    const query = Object.fromEntries(url.searchParams) as { exp: string; ct: string; sig: string };
    expect(signer.verify('verifications/x/image.jpeg', query, new Date())).toBe('ok');
    const flipped = `${query.sig.slice(0, -1)}${query.sig.endsWith('A') ? 'B' : 'A'}`;
    for (const sig of [flipped, query.sig.slice(1), `${query.sig}A`, '', 'é'.repeat(43)]) expect(signer.verify('verifications/x/image.jpeg', { ...query, sig }, new Date()), sig).toBe('invalid');
  });

  it('upload ids: a tag that is not the one issued reads as no upload, never a throw', () => {
    const signer = new UrlSigner(crypto.randomBytes(32), 'http://localhost');
    const { id } = issueUploadId(signer, { owner: null, expires: Math.floor(Date.now() / 1000) + 60, filename: 'a.webp' });
    expect(readUploadId(signer, id)).not.toBeNull();
    const tag = id.split('.').pop()!;
    const other = `${tag.slice(0, -1)}${tag.endsWith('A') ? 'B' : 'A'}`;
    expect(readUploadId(signer, id.replace(tag, other))).toBeNull();
    expect(readUploadId(signer, id.replace(tag, tag.slice(1)))).toBeNull();
    expect(readUploadId(new UrlSigner(crypto.randomBytes(32), 'http://localhost'), id)).toBeNull();
  });
});

/**
 * Direct comparisons in src/ that involve a secret-named value and are not a secret check: each
 * with why it is safe. A new one fails the scan until it is made constant-time or listed here.
 */
const REVIEWED: { file: string; text: string; why: string }[] = [
  { file: 'features/accounts/sessions.ts', text: 'epoch !== passwordEpoch(user)', why: 'the epoch is a claim of a JWT whose signature jose already checked in constant time' },
  { file: 'features/accounts/app-sessions.ts', text: 'passwordEpoch(user) !== passwordEpoch(row)', why: 'two timestamps the service recorded (when the password last changed, then and at sign-in), read after the session was found by the digest of its secret: nothing a caller sends' },
  { file: 'features/accounts/routes.ts', text: 'b.current_password !== b.new_password', why: "the caller's own two fields, compared to refuse reusing a password" },
  { file: 'features/accounts/set-password-page.ts', text: 'password !== form.elements.confirm.value', why: 'in the browser: the user\'s two entries of the new password' },
  { file: 'web/front-door-routes.ts', text: "password !== (post.form.get('confirm')", why: 'the two entries of the new password in one form: both the sender\'s own' },
  { file: 'features/accounts/decider.ts', text: 'invitation.tokenSha256 !== command.token_sha256', why: 'SHA-256 digests of the token, after the user was found by that digest (an index lookup)' },
  { file: 'core/audit/audit-verify.ts', text: 'signature.signed !== expected', why: "the offline verifier compares an anchor's public signed statement with the one it rebuilt from the public bundle: nothing secret" },
  { file: 'core/audit/audit-verify.ts', text: 'cert.signatureAlgorithm !== ECDSA_WITH_SHA256', why: "a public certificate's algorithm identifier against a constant OID" },
  { file: 'core/audit/merkle.spec.ts', text: 'index).length !== proof.length', why: 'a Merkle inclusion proof is public: the lengths of two proofs in a spec' },
  { file: 'core/config.ts', text: 'Boolean(value.S3_ACCESS_KEY_ID) !== Boolean(value.S3_SECRET_ACCESS_KEY)', why: 'whether each of the two S3 credentials is set (both or neither), two booleans, at start' },
  { file: 'features/sharing/activities.ts', text: '.nonce === invitation.nonce', why: "two of the service's own recorded nonces (the invitation then and now), no caller's input: is the invitation still the one the message is owed for" },
];

const SECRET_NAME = /(token|signature|\bsig\b|secret|password|raw_?key|nonce|proof)/i;
const COMPARISON = /([\w.[\]'"()]+)\s*(===|!==)\s*([\w.[\]'"()]+)/g;

describe('no secret compared with === or !==', () => {
  it('every direct comparison of a secret-named value in src/ is reviewed', () => {
    const walk = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
    const found: string[] = [];
    for (const file of walk(src)) {
      const rel = path.relative(src, file);
      fs.readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
        for (const [text, rawLeft, , rawRight] of line.matchAll(COMPARISON)) {
          const [left, right] = [rawLeft!.replace(/^\(+|\)+$/g, ''), rawRight!.replace(/^\(+|\)+$/g, '')];
          if (!SECRET_NAME.test(left) && !SECRET_NAME.test(right)) continue;
          // Presence checks compare with a constant, not with another secret.
          if (/^(null|undefined|''|""|0|true|false)$/.test(right) || /^typeof\b/.test(left) || /^['"]/.test(right)) continue;
          if (REVIEWED.some((r) => r.file === rel && line.includes(r.text))) continue;
          found.push(`${rel}:${i + 1}: ${text}`);
        }
      });
    }
    expect(found).toEqual([]);
  });

  it('each comparator named above uses timingSafeEqual with a length check', () => {
    for (const file of ['core/secrets.ts', 'features/accounts/passwords.ts', 'core/http/signed-urls.ts', 'features/uploads/tokens.ts']) {
      const text = fs.readFileSync(path.join(src, file), 'utf8');
      expect(text, file).toMatch(/length\s*(===|!==)\s*\w+\.length\s*(&&|\|\|)\s*!?crypto\.timingSafeEqual/);
    }
  });
});
