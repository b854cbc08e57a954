/**
 * The one trust configuration of an installation, loaded by one function for the service and
 * the CLI alike, so that the same file gets the same verdict from both:
 *
 * - signer anchors: `C2PA_TRUST_ANCHORS` (comma-separated PEM files), plus the development CA
 *   of `<dataDir>/c2pa-dev/` when no signing key is configured and a data directory is known;
 * - TSA anchors: `C2PA_TSA_TRUST_ANCHORS`; legacy (interim list) anchors: `C2PA_LEGACY_TRUST_ANCHORS`;
 * - the credential signer: `C2PA_SIGNING_KEY` + `C2PA_SIGNING_CHAIN` (+ `C2PA_TSA_URL`), or the
 *   development signer of the data directory (created on first use, as the service always did).
 */
import { ensureDevelopmentSigner } from './dev-signer.js';
import { loadSignerConfig, type SignerConfig } from './signer-config.js';
import { loadTrustAnchors, type TrustAnchors } from './trust.js';
import { AppError } from '../core/errors.js';

/** The settings read here, by their environment names (the service's Config has them all). */
export interface TrustEnvironment {
  C2PA_TRUST_ANCHORS?: string | undefined;
  C2PA_TSA_TRUST_ANCHORS?: string | undefined;
  C2PA_LEGACY_TRUST_ANCHORS?: string | undefined;
  C2PA_SIGNING_KEY?: string | undefined;
  C2PA_SIGNING_CHAIN?: string | undefined;
  C2PA_TSA_URL?: string | undefined;
}

export interface TrustConfiguration {
  trust: TrustAnchors;
  /** The credential signer, loaded on first use (the CLI's read-only commands never need it). */
  signer: () => Promise<SignerConfig>;
  /** The development CA added to the signer anchors, when one is (`<dataDir>/c2pa-dev/dev-ca.cert.pem`). */
  developmentCaFile?: string;
}

const setting = (value: string | undefined): string | undefined => (value?.trim() ? value.trim() : undefined);

/** A comma-separated list of files; blanks are ignored. */
export const fileList = (value: string | undefined): string[] =>
  value?.split(',').map((file) => file.trim()).filter(Boolean) ?? [];

function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => (loaded ??= load());
}

export async function loadTrustConfiguration(env: TrustEnvironment, options: { dataDir?: string | undefined } = {}): Promise<TrustConfiguration> {
  const signerAnchorFiles = fileList(env.C2PA_TRUST_ANCHORS);
  const key = setting(env.C2PA_SIGNING_KEY);
  const chain = setting(env.C2PA_SIGNING_CHAIN);
  const tsaUrl = setting(env.C2PA_TSA_URL);
  if (Boolean(key) !== Boolean(chain)) {
    throw new AppError('INTERNAL_ERROR', `C2PA_SIGNING_KEY and C2PA_SIGNING_CHAIN must be set together (only ${key ? 'the key' : 'the chain'} is set).`, {
      suggestion: 'Set both to use your own signing certificate, or neither to use the development signer of the data directory.',
    });
  }
  let signer: () => Promise<SignerConfig>;
  let developmentCaFile: string | undefined;
  if (key && chain) {
    signer = once(() => loadSignerConfig({ privateKeyFile: key, chainFile: chain, tsaUrl }));
  } else if (options.dataDir) {
    // Its CA is a signer anchor: the installation reads its own development credentials as
    // Trusted (and nobody else's), and so does the CLI pointed at the same data directory.
    const development = await ensureDevelopmentSigner(options.dataDir);
    developmentCaFile = development.caCertificateFile;
    signerAnchorFiles.push(developmentCaFile);
    signer = async () => ({ ...development.signer, tsaUrl });
  } else {
    signer = async () => {
      throw new AppError('INTERNAL_ERROR', 'No C2PA signer is configured.', {
        suggestion: 'Set C2PA_SIGNING_KEY and C2PA_SIGNING_CHAIN, or give a data directory for the development signer.',
      });
    };
  }
  const trust = await loadTrustAnchors({
    signerAnchorFiles,
    tsaAnchorFiles: fileList(env.C2PA_TSA_TRUST_ANCHORS),
    legacySignerAnchorFiles: fileList(env.C2PA_LEGACY_TRUST_ANCHORS),
  });
  return { trust, signer, ...(developmentCaFile ? { developmentCaFile } : {}) };
}
