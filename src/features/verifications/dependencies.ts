import { ConfigError } from '../../core/config.js';
import type { DependencyBase } from '../../core/module/deps.js';
import { RateLimiter } from '../../core/http/rate-limit.js';
import type { SignerConfig } from '../../provenance/signer-config.js';
import type { TrustAnchors } from '../../provenance/trust.js';
import { es256KeyProblem, SIGNING_KEY_SETTING } from '../../provenance/es256.js';
import { loadTrustConfiguration } from '../../provenance/trust-config.js';

declare module '../../core/module/deps.js' {
  interface FeatureDeps {
    /** Keyless verifications per client address (create_upload checks it, a keyless verification takes from it). */
    anonymousLimiter: RateLimiter;
    /** Claim attempts per account. */
    claimLimiter: RateLimiter;
    /** Identifies the analysis code that produced a result (recorded on every verification). */
    pipelineBuild: string;
    /** C2PA trust anchors (signer, TSA, legacy lists) used to validate credentials. */
    trust: TrustAnchors;
    /** The C2PA signer of verified pairs' credentials (a configured key is loaded and checked at start). */
    signer: () => Promise<SignerConfig>;
  }
}

/** Built once at start (the verifications module's `dependencies`). */
export async function verificationDependencies({ config, knex }: DependencyBase) {
  // Trust anchors and the credential signer, loaded exactly as the CLI loads them.
  const { signer, trust } = await loadTrustConfiguration(config, { dataDir: config.DATA_DIR });
  // A configured key is loaded now: a missing file or a key that cannot sign ES256 (anchor batches, compliance summaries) stops the start, naming the setting.
  if (config.C2PA_SIGNING_KEY?.trim()) {
    const problem = es256KeyProblem(await signer());
    if (problem) throw new ConfigError([`${SIGNING_KEY_SETTING}: ${problem} Point it at a P-256 private key (openssl ecparam -name prime256v1 -genkey) and C2PA_SIGNING_CHAIN at its certificate chain.`]);
  }
  return {
    anonymousLimiter: new RateLimiter(knex, 'anonymous', config.ANONYMOUS_UPLOADS_PER_HOUR, 60 * 60_000),
    claimLimiter: new RateLimiter(knex, 'claim', config.CLAIM_ATTEMPTS_PER_15_MIN, 15 * 60_000),
    pipelineBuild: `photoverify-${process.env.npm_package_version ?? '0.1.0'}`,
    trust,
    signer,
  };
}
