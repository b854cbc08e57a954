/**
 * Embedded mode: a local development CA and C2PA signing certificate, created on first use in
 * `<dataDir>/c2pa-dev/` and reused afterwards. Built with node:crypto only (no openssl needed).
 * Named as development credentials everywhere so nobody mistakes them for a trusted signer.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { derToPem, issueCertificate, pemToDerList } from './x509.js';
import type { SignerConfig } from './signer-config.js';
import { AppError } from '../core/errors.js';

export const DEV_CA_NAME = 'PhotoVerify DEVELOPMENT CA — not trusted';
export const DEV_SIGNER_NAME = 'PhotoVerify DEVELOPMENT signer — not trusted';

export interface DevelopmentSigner {
  signer: SignerConfig;
  /** PEM of the development CA: the trust anchor that makes these credentials read `Trusted`. */
  caCertificateFile: string;
  directory: string;
}

const YEAR_MS = 365 * 24 * 3600 * 1000;

async function writeAtomically(file: string, content: string, mode: number): Promise<void> {
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, content, { mode });
  await rename(temp, file);
}

async function create(directory: string, now: Date): Promise<void> {
  const ca = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const leaf = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const caName = { commonName: DEV_CA_NAME, organization: 'PhotoVerify development' };
  const notBefore = new Date(now.getTime() - 3600_000);
  const caDer = issueCertificate({
    subject: caName,
    subjectPublicKey: ca.publicKey,
    selfSigningKey: ca.privateKey,
    profile: 'ca',
    notBefore,
    notAfter: new Date(now.getTime() + 10 * YEAR_MS),
  });
  const leafDer = issueCertificate({
    subject: { commonName: DEV_SIGNER_NAME, organization: 'PhotoVerify development' },
    subjectPublicKey: leaf.publicKey,
    issuer: { name: caName, privateKey: ca.privateKey, publicKey: ca.publicKey },
    profile: 'signer',
    notBefore,
    notAfter: new Date(now.getTime() + 5 * YEAR_MS),
  });
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const readme =
    'DEVELOPMENT credentials created by PhotoVerify in embedded mode.\n' +
    'They are NOT trusted by anyone else. Configure a real signing key and chain for production.\n';
  await writeAtomically(path.join(directory, 'README.txt'), readme, 0o644);
  await writeAtomically(path.join(directory, 'dev-ca.cert.pem'), derToPem(caDer), 0o644);
  await writeAtomically(
    path.join(directory, 'dev-ca.key.pem'),
    ca.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    0o600,
  );
  await writeAtomically(
    path.join(directory, 'dev-signer.key.pem'),
    leaf.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    0o600,
  );
  // Written last: its presence marks a complete set.
  await writeAtomically(path.join(directory, 'dev-signer.chain.pem'), derToPem(leafDer) + derToPem(caDer), 0o644);
}

export async function ensureDevelopmentSigner(dataDir: string, now = new Date()): Promise<DevelopmentSigner> {
  const directory = path.join(dataDir, 'c2pa-dev');
  const chainFile = path.join(directory, 'dev-signer.chain.pem');
  let chainPem = await readFile(chainFile, 'utf8').catch(() => undefined);
  if (chainPem === undefined) {
    await create(directory, now);
    chainPem = await readFile(chainFile, 'utf8');
  }
  const privateKey = createPrivateKey(await readFile(path.join(directory, 'dev-signer.key.pem'), 'utf8'));
  const chain = pemToDerList(chainPem);
  // Guard against a key and chain from two different runs.
  const leafKey = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  if (!chain[0] || !Buffer.from(chain[0]).includes(Buffer.from(leafKey))) {
    throw new AppError('INTERNAL_ERROR', `${directory}: the development key does not match its certificate.`, {
      suggestion: 'Delete the folder to recreate the development credentials.',
    });
  }
  return {
    signer: { privateKey, chain, development: true },
    caCertificateFile: path.join(directory, 'dev-ca.cert.pem'),
    directory,
  };
}
