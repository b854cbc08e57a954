import type { Html } from '../../core/html.js';
import type { AppContext } from './context.js';
import type { DetailView } from './pages.js';
import type { AppSession } from './session.js';
import { commentsSection } from './comments-section.js';
import { tagsSection } from './tags-section.js';
import { deleteSection } from './delete-section.js';
import { filesSection } from './files-section.js';
import { sharingSection } from './sharing-section.js';

/**
 * The account-only sections of a verification's page (tags, comments, sharing, files and export,
 * delete …), after the report. Each section of the app that adds one to the page appends a line
 * to VERIFICATION_SECTIONS; the page renders them in this order. A section's form posts to its
 * own route and comes back with a 303 to `${appPath}/verifications/<id>#<section id>`.
 */
export interface VerificationSectionInput {
  ctx: AppContext;
  session: AppSession;
  /** What GET /v1/verifications/{id} answers (already checked to be this account's). */
  verification: DetailView;
  /** The page's nonce, for a section that needs an inline style or script. */
  nonce: string;
  /** The page's query (e.g. a `notice` a form's redirect put there). */
  query: Record<string, string | undefined>;
  /** Set when one of a section's forms was refused: the page is shown again (4xx) with the message in that section and what was typed. */
  refused?: SectionRefusal;
}

export interface SectionRefusal {
  /** The section whose form was refused (its id). */
  section: string;
  /** Which of the section's forms, when it has several (e.g. `create`, or the id of the comment being edited). */
  form?: string;
  message: string;
  /** The form's fields as sent, to fill the form again. */
  fields: Map<string, string>;
}

export interface VerificationSection {
  /** The section's element id, stable: forms redirect to `#<id>`. */
  id: string;
  /** Whether the section needs a script (the page then allows its nonce's scripts). */
  script?: boolean;
  /** The section's HTML, or null to leave it out for this verification or viewer. */
  render(input: VerificationSectionInput): Promise<Html | null>;
}

export const VERIFICATION_SECTIONS: readonly VerificationSection[] = [
  tagsSection, commentsSection,
  sharingSection, filesSection, deleteSection,
];
