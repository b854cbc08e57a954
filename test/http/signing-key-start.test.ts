import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/config.js';
import { ensureDevelopmentSigner } from '../../src/provenance/dev-signer.js';
import { databaseTargets } from '../support/databases.js';
import { startTestService } from '../support/service.js';

/**
 * Issue 36 item 16c: the service's signing key signs anchor batches and compliance summaries
 * ES256, so a key that is not EC P-256 is refused when the service starts, naming
 * C2PA_SIGNING_KEY (a ConfigError: `npm start` exits 78), not when the first batch is sealed.
 * A P-256 key starts it.
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-signing-key-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function keyFiles(name: string, key: { export: (o: { format: 'pem'; type: 'pkcs8' }) => string | Buffer }) {
  // Any certificate chain will do: the key's kind is what is checked first.
  const development = await ensureDevelopmentSigner(path.join(dir, 'dev'));
  const chain = path.join(dir, 'dev', 'c2pa-dev', 'dev-signer.chain.pem');
  expect(fs.existsSync(chain), development.caCertificateFile).toBe(true);
  const keyFile = path.join(dir, `${name}.key.pem`);
  fs.writeFileSync(keyFile, key.export({ format: 'pem', type: 'pkcs8' }));
  return { C2PA_SIGNING_KEY: keyFile, C2PA_SIGNING_CHAIN: chain };
}

const target = databaseTargets[0]!;
describe(`the signing key is checked at start (${target.name})`, () => {
  for (const [name, key, kind] of [
    ['p384', generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).privateKey, 'EC secp384r1'],
    ['rsa', generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey, 'rsa'],
  ] as const) {
    it(`refuses a ${kind} key, naming C2PA_SIGNING_KEY`, async () => {
      const env = await keyFiles(name, key);
      const started = startTestService(target, env);
      await expect(started).rejects.toBeInstanceOf(ConfigError);
      await expect(started).rejects.toThrow(new RegExp(`C2PA_SIGNING_KEY: must be an EC P-256 \\(prime256v1\\) key, for ES256; this key is ${kind}\\.`));
    }, 120_000);
  }

  it('starts with a P-256 key', async () => {
    const env = await keyFiles('p256', generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey);
    const t = await startTestService(target, env);
    try {
      expect((await fetch(`${t.url}/v1/public/health`)).status).toBe(200);
    } finally {
      await t.stop();
    }
  }, 120_000);
});
