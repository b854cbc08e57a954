/**
 * `photoverify audit verify` (issue 25, must-work 3): the real bin, as a child process, against a
 * real service with real anchors (the anchors feature's workflow sealing three verifications at
 * once, a real RFC 3161 authority: test/anchors/local-tsa.ts). Every check passes on the bundle
 * as served; then each kind of tampering is caught and named: an event changed in the database,
 * and in a saved bundle a proof node, the signature, the record hash, an event removed and two
 * events swapped. A verification not sealed yet exits 3.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verificationStream } from '../../src/features/verifications/events.js';
import { startLocalTsa } from '../anchors/local-tsa.js';
import { databaseTargets } from '../support/databases.js';
import { waitFor } from '../support/poll.js';
import { runNode } from '../support/processes.js';
import { uploadImage } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';

const root = path.resolve(import.meta.dirname, '../..');
const bin = path.join(root, 'bin/photoverify.mjs');
const photoverify = (args: string[]) => runNode([bin, 'audit', 'verify', ...args], { PHOTOVERIFY_URL: '', PHOTOVERIFY_API_KEY: '' });

const tsa = await startLocalTsa();
afterAll(() => tsa.close());

for (const target of databaseTargets) {
  describe(`photoverify audit verify against real anchors on ${target.name}`, { timeout: 10 * 60_000 }, () => {
    // Three completed verifications seal a batch at once; a fourth waits the (long) interval: not anchored.
    const { t, call, newAccount } = serviceSuite(target, { ANCHOR_INTERVAL_SECONDS: '3600', ANCHOR_BATCH_SIZE: '3', ANCHOR_TSA_URL: tsa.url }, { persistent: true, workflowSweepMs: 200 });
    const owner = newAccount();
    const other = newAccount();
    let key: string;
    let ids: string[];
    let scratch: string;
    let pemFile: string;
    const read = async (id: string) => (await call('GET', `/v1/verifications/${id}`, { token: owner.token })).body;
    const service = (id: string) => [id, '--url', t.url, '--key', key];

    beforeAll(async () => {
      const created = await call('POST', '/v1/apikeys/', { token: owner.token, json: { account_id: owner.account.id } });
      expect(created.status).toBe(201);
      key = created.body.raw_key;
      scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-audit-'));
      ids = [await uploadImage(t.url, owner.token), await uploadImage(t.url, owner.token, 'images/ms_cards.webp'), await uploadImage(t.url, owner.token)];
      for (const id of ids) await waitFor(async () => (await read(id)).anchored_in?.[0]?.timestamp, `verification ${id} to be anchored and timestamped`);
      const certificate = await fetch(`${t.url}/v1/anchors/certificate`);
      expect(certificate.status).toBe(200);
      pemFile = path.join(scratch, 'service.pem');
      fs.writeFileSync(pemFile, await certificate.text());
    });
    afterAll(() => {
      if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
    });

    it('passes every check of a bundle fetched from the service, trusting the published certificate and printing its fingerprint', async () => {
      const run = await photoverify(service(ids[1]!));
      expect(run.code, run.stderr + run.stdout).toBe(0);
      const published = new crypto.X509Certificate(fs.readFileSync(pemFile));
      expect(run.stdout).toContain(`Trusting ${t.url}/v1/anchors/certificate`);
      expect(run.stdout).toContain(`SHA-256 ${published.fingerprint256.replaceAll(':', '').toLowerCase()}`);
      for (const name of [`hash chain ${verificationStream(ids[1]!)}`, 'anchored record', 'record hash', 'merkle inclusion', 'signed statement', 'signature', 'certificate chain', 'timestamp']) {
        expect(run.stdout).toMatch(new RegExp(`^pass  ${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s`, 'm'));
      }
      expect(run.stdout).toMatch(/^pass  merkle inclusion\s+leaf \d of 3 /m);
      expect(run.stdout).toMatch(/^pass  timestamp\s+http:\/\/.*timestamps SHA-256 of the signed statement at \d{14}\S*Z, signed by Test TSA /m);
      expect(run.stdout).toMatch(/All \d+ checks passed\./);
    });

    it('with --trust pins a certificate file, --save keeps the bundle, and --file checks the saved bundle', async () => {
      const saved = path.join(scratch, 'saved.json');
      const fetched = await photoverify([...service(ids[0]!), '--trust', pemFile, '--save', saved]);
      expect(fetched.code, fetched.stderr).toBe(0);
      expect(fetched.stdout).toContain(`Trusting ${pemFile}:`);
      const offline = await photoverify(['--file', saved, '--trust', pemFile, '--json']);
      expect(offline.code, offline.stderr).toBe(0);
      const report = JSON.parse(offline.stdout);
      expect(report.ok).toBe(true);
      expect(report.checks.every((c: { ok: boolean }) => c.ok)).toBe(true);
      expect(JSON.parse(fs.readFileSync(saved, 'utf8')).format).toBe('photoverify-audit-bundle/2');
    });

    it('another account’s verification: the bundle answers 404 as every verification route, and the CLI exits 2 saying so', async () => {
      const res = await call('GET', `/v1/verifications/${ids[0]}/audit-bundle`, { token: other.token });
      expect(res.status).toBe(404);
      expect(res.body.detail.error_code).toBe('VERIFICATION_NOT_FOUND');
      const run = await photoverify([ids[0]!, '--url', t.url, '--key', other.token]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('VERIFICATION_NOT_FOUND');
    });

    it('a pinned certificate the anchors were not signed under: the certificate chain is the broken link', async () => {
      const foreign = path.join(scratch, 'foreign.pem');
      fs.writeFileSync(foreign, fs.readFileSync(tsa.caFile));
      const run = await photoverify([...service(ids[0]!), '--trust', foreign]);
      expect(run.code, run.stdout).toBe(1);
      expect(run.stderr).toMatch(/^photoverify audit: broken link: certificate chain: .*does not lead to a certificate you pinned/m);
    });

    const tamperings: [string, (bundle: any, id: string) => void, string, RegExp][] = [
      ['a proof node', (b) => (b.anchors[0].inclusion_proof[0] = 'f'.repeat(64)), 'merkle inclusion', /not the root/],
      [
        'the signature',
        (b) => {
          const bytes = Buffer.from(b.anchors[0].signature.value, 'base64');
          bytes[5]! ^= 0x80;
          b.anchors[0].signature.value = bytes.toString('base64');
        },
        'signature',
        /does not verify/,
      ],
      ['the record hash', (b) => (b.anchors[0].record_hash = crypto.createHash('sha256').update('forged').digest('hex')), 'record hash', /not the record_hash/],
      ['an event removed', (b, id) => b.streams[verificationStream(id)].splice(1, 1), 'hash chain', /revision 1: revision 2 found in its place/],
      [
        'two events swapped',
        (b, id) => {
          const events = b.streams[verificationStream(id)];
          [events[1], events[2]] = [events[2], events[1]];
        },
        'hash chain',
        /revision 1: revision 2 found in its place/,
      ],
      ['an event’s data edited in the file', (b, id) => (b.streams[verificationStream(id)][0].data.name = 'forged.webp'), 'hash chain', /revision 0 \(VerificationQueued\).*changed after it was recorded/],
    ];
    for (const [what, tamper, check, detail] of tamperings) {
      it(`a saved bundle with ${what} changed: exit 1, the broken link named ${check}`, async () => {
        const res = await call('GET', `/v1/verifications/${ids[0]}/audit-bundle`, { token: owner.token });
        expect(res.status).toBe(200);
        tamper(res.body, ids[0]!);
        const file = path.join(scratch, `tampered-${check.replaceAll(' ', '-')}.json`);
        fs.writeFileSync(file, JSON.stringify(res.body));
        const run = await photoverify(['--file', file, '--trust', pemFile]);
        expect(run.code, run.stdout).toBe(1);
        const name = check === 'hash chain' ? `hash chain ${verificationStream(ids[0]!)}` : check;
        expect(run.stderr).toMatch(new RegExp(`^photoverify audit: broken link: ${name}: `, 'm'));
        expect(run.stderr).toMatch(detail);
        expect(run.stdout).toMatch(new RegExp(`^FAIL  ${name}`, 'm'));
        // Nothing after the broken link is printed as checked.
        expect(run.stdout.trimEnd().split('\n').at(-1)).toMatch(/^FAIL/);
      });
    }

    it('a completed verification not sealed yet: exit 3, "anchored" named', async () => {
      const id = await uploadImage(t.url, owner.token);
      await waitFor(async () => (await read(id)).status === 'completed', `verification ${id} to complete`);
      const run = await photoverify(service(id));
      expect(run.code, run.stdout + run.stderr).toBe(3);
      expect(run.stdout).toMatch(new RegExp(`^pass  hash chain ${verificationStream(id)}`, 'm'));
      expect(run.stderr).toMatch(/broken link: anchored: the verification has no anchor yet/);
    });

    it('an event changed in the database: the hash chain breaks at that event', async () => {
      const id = ids[2]!;
      const before = await photoverify(service(id));
      expect(before.code, before.stderr).toBe(0);
      const changed = await t.service.deps.knex.raw(`update events set data = jsonb_set(data, '{name}', '"forged.webp"') where stream = ? and revision = 0`, [verificationStream(id)]);
      expect(changed.rowCount ?? changed.affectedRows ?? 1).toBe(1);
      // The embedded store keeps the streams it wrote in memory (D-067): a restart reads them from the database.
      await t.restart();
      const run = await photoverify(service(id));
      expect(run.code, run.stdout).toBe(1);
      expect(run.stderr).toMatch(new RegExp(`broken link: hash chain ${verificationStream(id)}: revision 0 \\(VerificationQueued\\): .*changed after it was recorded`));
    });
  });
}
