/**
 * Signs the image of a verified RAW+JPEG pair with a C2PA credential: an ES256 claim whose
 * custom assertion records the verification, with the RAW as the parent ingredient.
 */
import type { AssuranceLevel } from '../analysis/types.js';
import { AppError, FileError } from '../core/errors.js';
import { asBlob, c2paWasm } from './c2pa-runtime.js';
import { buildCoseSign1 } from './cose.js';
import type { SignerConfig } from './signer-config.js';
import { httpTimestamper } from './timestamp.js';

export const VERIFICATION_ASSERTION_LABEL = 'com.photoverify.verification';
const DIGITAL_CAPTURE = 'http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture';
/** COSE framing beyond the certificates and signature (c2pa-rs uses the same budget). */
const COSE_OVERHEAD = 1024;
const TIMESTAMP_RESERVE = 10_000;

export type SignableFormat = 'image/jpeg' | 'image/heic';

export interface VerificationRecord {
  verificationId: string;
  assuranceLevel: AssuranceLevel;
  captureVerified: boolean;
  imageSha256: string;
  rawSha256: string;
  pipelineBuild: string;
  processingRegion: string;
}

export interface SignVerifiedImageInput {
  image: Uint8Array;
  format: SignableFormat;
  raw: { bytes: Uint8Array; name: string; format: string };
  assertion: VerificationRecord;
  title?: string;
}

export interface ClaimGenerator {
  name: string;
  version: string;
}

function manifestDefinition(input: SignVerifiedImageInput, generator: ClaimGenerator): Record<string, unknown> {
  const a = input.assertion;
  return {
    claim_generator_info: [generator],
    title: input.title ?? `${a.verificationId}.${input.format === 'image/jpeg' ? 'jpg' : 'heic'}`,
    format: input.format,
    assertions: [
      {
        label: 'c2pa.actions.v2',
        data: {
          actions: [
            {
              // The image is a rendering of the RAW ingredient; capture is what we verified.
              action: 'c2pa.opened',
              digitalSourceType: DIGITAL_CAPTURE,
              parameters: { ingredientIds: ['raw'] },
            },
          ],
        },
      },
      {
        label: VERIFICATION_ASSERTION_LABEL,
        data: {
          verification_id: a.verificationId,
          assurance_level: a.assuranceLevel,
          capture_verified: a.captureVerified,
          image_sha256: a.imageSha256,
          raw_sha256: a.rawSha256,
          pipeline_build: a.pipelineBuild,
          processing_region: a.processingRegion,
        },
      },
    ],
  };
}

export interface IngredientInput {
  bytes: Uint8Array;
  /** Ingredient JSON (title, format, relationship, label...). */
  definition: Record<string, unknown>;
  format: string;
}

/**
 * Signs `image` with an arbitrary manifest definition. The building block of
 * signVerifiedImage; tests use it to produce credentials with other declarations.
 * `verifyAfterSign: false` skips c2pa-rs's check of its own output, so tests can produce the
 * credentials real signers produce and c2pa-rs rejects (e.g. a certificate outside the profile).
 */
export async function signManifest(
  image: Uint8Array,
  format: string,
  definition: Record<string, unknown>,
  signer: SignerConfig,
  ingredients: IngredientInput[] = [],
  options: { verifyAfterSign?: boolean } = {},
): Promise<Uint8Array> {
  const { WasmBuilder } = c2paWasm();
  const settings = { verify: { remote_manifest_fetch: false, ocsp_fetch: false, ...(options.verifyAfterSign === false ? { verify_after_sign: false } : {}) } };
  const builder = WasmBuilder.fromJson(JSON.stringify(definition), JSON.stringify(settings));
  try {
    for (const ingredient of ingredients) {
      const json = JSON.stringify(ingredient.definition);
      try {
        await builder.addIngredientFromBlob(json, ingredient.format, asBlob(ingredient.bytes, ingredient.format));
      } catch {
        // c2pa-rs cannot parse most camera RAW containers: record the ingredient by its
        // definition only (the verification assertion carries the RAW's SHA-256 as well).
        builder.addIngredient(json);
      }
    }
    const certificatesSize = signer.chain.reduce((sum, der) => sum + der.length, 0);
    const timestamper = signer.tsaUrl ? httpTimestamper(signer.tsaUrl) : undefined;
    const reserveSize = 64 + certificatesSize + COSE_OVERHEAD + (timestamper ? TIMESTAMP_RESERVE : 0);
    return await builder.sign(
      {
        alg: 'es256',
        reserveSize,
        sign: async (claim: Uint8Array) =>
          (await buildCoseSign1(claim, signer, reserveSize, timestamper)) as Uint8Array<ArrayBuffer>,
      },
      [],
      format,
      asBlob(image, format),
    );
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new FileError('UNPROCESSABLE_FILE', `The image could not be signed: ${String(error)}`, {
      suggestion: 'Check that the image is a complete JPEG or HEIC file.',
      cause: error,
    });
  } finally {
    builder.free();
  }
}

export async function signVerifiedImage(
  input: SignVerifiedImageInput,
  signer: SignerConfig,
  generator: ClaimGenerator = { name: 'PhotoVerify', version: '0.1.0' },
): Promise<Uint8Array> {
  const ingredient = {
    title: input.raw.name,
    format: input.raw.format,
    relationship: 'parentOf',
    label: 'raw',
    metadata: { 'com.photoverify.sha256': input.assertion.rawSha256 },
  };
  return signManifest(input.image, input.format, manifestDefinition(input, generator), signer, [
    { bytes: input.raw.bytes, definition: ingredient, format: input.raw.format },
  ]);
}
