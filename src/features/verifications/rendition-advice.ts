import type { NotFoundError } from '../../core/errors.js';
import { verificationNotFound } from './errors.js';
import type { VerificationRow } from '../../../projections/verifications/index.js';

/** The files a verification's owner fetches through a pre-signed redirect (use-cases.ts FileKind and fileUrl). */
const NAMES = { thumbnail: 'thumbnail', image: 'image', badge: 'signed original with the badge strip' } as const;

/**
 * The 404 for a rendition the verification does not have, saying why in its case: processing
 * has not finished (it may still come), processing failed, or processing finished without it (a
 * badge is made only for a RAW+JPEG pair graded `verified`, spec 2.1 rule 4), so asking again
 * changes nothing. Still VERIFICATION_NOT_FOUND, the spec's code for these routes.
 */
export function missingRendition(row: Pick<VerificationRow, 'id' | 'status' | 'verification_mode' | 'assurance_level'>, kind: keyof typeof NAMES): NotFoundError {
  const name = NAMES[kind];
  const poll = `GET /v1/verifications/${row.id}`;
  if (row.status === 'failed') return verificationNotFound(`Processing of this verification failed, so it has no ${name}.`, `${poll} shows the failure reason; verify the files again once it is fixed.`);
  if (row.status !== 'completed') return verificationNotFound(`Processing of this verification has not finished yet; the ${name} is made when it has.`, `Poll ${poll} until its status is completed, then ask again.`);
  if (kind === 'badge') {
    if (row.verification_mode !== 'raw_pair') return verificationNotFound('This image-only verification has no badge: a badge is made only for a RAW+JPEG pair graded verified.', 'Verify the photo together with its RAW file to get a badge.');
    if (row.assurance_level !== 'verified') {
      return verificationNotFound(
        `This pair was graded ${row.assurance_level ?? 'without a level'}, not verified, so it has no badge: a badge is made only for a pair graded verified.`,
        `${poll} shows the grade and its reason; the image itself is at GET /v1/verifications/${row.id}/image.`,
      );
    }
  }
  return verificationNotFound(`Processing has finished without a ${name} for this verification.`, `The image itself is at GET /v1/verifications/${row.id}/image.`);
}
