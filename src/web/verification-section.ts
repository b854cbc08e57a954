import type { Html } from '../core/text/html.js';
import type { AppContext } from './context.js';
import type { DetailView } from './pages.js';
import type { AppSession } from './session.js';

/**
 * What a section of a verification's page is and is given (the list of them, in page order, is
 * verification-sections.ts VERIFICATION_SECTIONS). Apart from that list so that each section's
 * file names this contract and the list names each section, without a cycle between them.
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
