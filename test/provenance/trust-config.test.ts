import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import { loadTrustConfiguration } from '../../src/provenance/trust-config.js';
import { anchorsFromPem } from '../../src/provenance/trust.js';
import { derToPem } from '../../src/provenance/x509.js';
import { makeCa } from './helpers/pki.js';

const dirs: string[] = [];
const scratch = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pv-trust-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function pemFile(dir: string, name: string): { file: string; pem: string } {
  const pem = derToPem(makeCa(name).der);
  const file = path.join(dir, `${name}.pem`);
  writeFileSync(file, pem);
  return { file, pem };
}

describe('loadTrustConfiguration: one trust configuration for the service and the CLI', () => {
  it('reads the three anchor lists from their variables, comma-separated, blanks ignored, kept separate', async () => {
    const dir = scratch();
    const [a, b, t, l] = ['signer-a', 'signer-b', 'tsa', 'legacy'].map((n) => pemFile(dir, n));
    const config = await loadTrustConfiguration({
      C2PA_TRUST_ANCHORS: ` ${a!.file}, ,${b!.file}`,
      C2PA_TSA_TRUST_ANCHORS: t!.file,
      C2PA_LEGACY_TRUST_ANCHORS: l!.file,
    });
    expect(config.trust).toEqual({ signer: anchorsFromPem(a!.pem, b!.pem), tsa: anchorsFromPem(t!.pem), legacy: anchorsFromPem(l!.pem) });
    expect(config.developmentCaFile).toBeUndefined();
    await expect(config.signer()).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
  });

  it('with a data directory and no signing key: the development CA (created once) is a signer anchor', async () => {
    const dataDir = scratch();
    const own = pemFile(scratch(), 'own');
    const first = await loadTrustConfiguration({ C2PA_TRUST_ANCHORS: own.file, C2PA_TSA_URL: 'http://tsa.example' }, { dataDir });
    expect(first.developmentCaFile).toBe(path.join(dataDir, 'c2pa-dev', 'dev-ca.cert.pem'));
    expect(first.trust.signer).toEqual(anchorsFromPem(own.pem, readFileSync(first.developmentCaFile!, 'utf8')));
    const signer = await first.signer();
    expect([signer.development, signer.tsaUrl]).toEqual([true, 'http://tsa.example']);
    // The CLI pointed at the same directory gets the same anchors.
    const again = await loadTrustConfiguration({ C2PA_TRUST_ANCHORS: own.file }, { dataDir });
    expect(again.trust).toEqual(first.trust);
  });

  it('with a signing key and chain: no development CA, and the key is read only when signing', async () => {
    const dataDir = scratch();
    const config = await loadTrustConfiguration({ C2PA_SIGNING_KEY: '/nonexistent/key.pem', C2PA_SIGNING_CHAIN: '/nonexistent/chain.pem' }, { dataDir });
    expect(config.trust.signer).toEqual([]);
    expect(existsSync(path.join(dataDir, 'c2pa-dev'))).toBe(false);
    await expect(config.signer()).rejects.toThrow(/ENOENT/);
  });

  it('a key without its chain (or the reverse) is a configuration error, not a silent fallback', async () => {
    for (const env of [{ C2PA_SIGNING_KEY: '/k.pem' }, { C2PA_SIGNING_CHAIN: '/c.pem', C2PA_SIGNING_KEY: '  ' }]) {
      const error = await loadTrustConfiguration(env, { dataDir: scratch() }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).message).toMatch(/C2PA_SIGNING_KEY and C2PA_SIGNING_CHAIN must be set together/);
    }
  });

  it('an unreadable anchor file names the setting', async () => {
    await expect(loadTrustConfiguration({ C2PA_TSA_TRUST_ANCHORS: '/nonexistent/tsa.pem' })).rejects.toThrow(/TSA trust anchor file \/nonexistent\/tsa\.pem/);
  });
});
