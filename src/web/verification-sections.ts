import { commentsSection } from './comments-section.js';
import { tagsSection } from './tags-section.js';
import { deleteSection } from './delete-section.js';
import { filesSection } from './files-section.js';
import { requestSection } from './request-section.js';
import { sharingSection } from './sharing-section.js';
import type { VerificationSection } from './verification-section.js';

/**
 * The account-only sections of a verification's page (tags, comments, sharing, files and export,
 * delete …), after the report. Each section of the app that adds one to the page appends a line
 * to VERIFICATION_SECTIONS; the page renders them in this order. A section's form posts to its
 * own route and comes back with a 303 to `${appPath}/verifications/<id>#<section id>`. What a
 * section is and is given: verification-section.ts.
 */
export const VERIFICATION_SECTIONS: readonly VerificationSection[] = [
  requestSection, tagsSection, commentsSection,
  sharingSection, filesSection, deleteSection,
];
