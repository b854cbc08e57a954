/**
 * Signing keys and certificate chain, from configuration (PEM files) or from the embedded
 * development CA (dev-signer.ts). The TSA URL is an operator setting.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { pemToDerList } from './x509.js';
import { AppError } from '../core/errors.js';

export interface SignerConfig {
  privateKey: KeyObject;
  /** End-entity certificate first, then intermediates and the CA (DER). */
  chain: Uint8Array[];
  /** RFC 3161 timestamp authority; absent = no timestamp. */
  tsaUrl?: string;
  /** True for the self-made development CA: never trusted outside this installation. */
  development: boolean;
}

export interface SignerFiles {
  privateKeyFile: string;
  chainFile: string;
  tsaUrl?: string;
}

export async function loadSignerConfig(files: SignerFiles): Promise<SignerConfig> {
  const [keyPem, chainPem] = await Promise.all([readFile(files.privateKeyFile, 'utf8'), readFile(files.chainFile, 'utf8')]);
  const chain = pemToDerList(chainPem);
  if (chain.length === 0) {
    throw new AppError('INTERNAL_ERROR', `No certificate found in ${files.chainFile}.`, {
      suggestion: 'Point the signing chain setting at a PEM file with the end-entity certificate first.',
    });
  }
  return { privateKey: createPrivateKey(keyPem), chain, tsaUrl: files.tsaUrl, development: false };
}
