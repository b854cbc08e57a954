/**
 * Trust configuration: separate lists of PEM files for signer anchors (e.g. the official C2PA
 * trust list plus private anchors), TSA anchors, and the old interim ("legacy") signer list.
 * Loading the files is the only I/O; validation itself never touches the network.
 */
import { readFile } from 'node:fs/promises';
import { pemToDerList, derToPem } from './x509.js';
import { AppError } from '../core/errors.js';

export interface TrustConfig {
  signerAnchorFiles: string[];
  tsaAnchorFiles: string[];
  /** Anchors of the retired C2PA interim trust list: matches are reported as `legacy`. */
  legacySignerAnchorFiles: string[];
}

/** Each list as a normalised set of PEM certificates (one per entry, deduplicated). */
export interface TrustAnchors {
  signer: string[];
  tsa: string[];
  legacy: string[];
}

export const noTrustAnchors: TrustAnchors = { signer: [], tsa: [], legacy: [] };

export function anchorsFromPem(...pems: string[]): string[] {
  const seen = new Set<string>();
  for (const pem of pems) for (const der of pemToDerList(pem)) seen.add(derToPem(der));
  return [...seen];
}

async function loadList(files: string[], setting: string): Promise<string[]> {
  const pems = await Promise.all(
    files.map((file) =>
      readFile(file, 'utf8').catch((cause: unknown) => {
        throw new AppError('INTERNAL_ERROR', `Cannot read the ${setting} trust anchor file ${file}.`, {
          suggestion: 'Fix the path in the trust anchor setting.',
          cause,
        });
      }),
    ),
  );
  const anchors = anchorsFromPem(...pems);
  if (files.length > 0 && anchors.length === 0) {
    throw new AppError('INTERNAL_ERROR', `No PEM certificate found in the ${setting} trust anchor files.`, {
      suggestion: 'Each file must hold one or more -----BEGIN CERTIFICATE----- blocks.',
    });
  }
  return anchors;
}

export async function loadTrustAnchors(config: TrustConfig): Promise<TrustAnchors> {
  const [signer, tsa, legacy] = await Promise.all([
    loadList(config.signerAnchorFiles, 'signer'),
    loadList(config.tsaAnchorFiles, 'TSA'),
    loadList(config.legacySignerAnchorFiles, 'legacy signer'),
  ]);
  return { signer, tsa, legacy };
}
