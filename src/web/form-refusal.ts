import type { AppDeps } from '../core/module/deps.js';
import { AppError, UnprocessableError } from '../core/errors.js';

/**
 * A form's refusal (issue 37): the user's error (AppError.isUserError, the catalogue's 4xx), which
 * every form of the app shows again on its page, saying it, at the status the API gives it; or
 * null for the service's own failure, which is the app's error page. No form keeps a list of its
 * own: a code added to a catalogue is shown or not by its status alone.
 * What a page cannot be shown again for fails the page's own read and is the error page too (a
 * verification that is not the caller's: its 404); the request's own refusals (another site's
 * form, the session's token missing, signed out) are decided before the form's use case runs
 * (context.ts formAction; the upload's token check says so itself).
 */
export function formRefusal(deps: Pick<AppDeps, 'errorCatalogue'>, error: unknown): { error: AppError; status: number } | null {
  if (!(error instanceof AppError) || !error.isUserError(deps.errorCatalogue)) return null;
  return { error, status: error.statusIn(deps.errorCatalogue) };
}

/**
 * A refusal in words for the page: the schema's issues named by the form's labels (keyed by the
 * field's path in the REST body, `admin.email`, or its first part), or the error's message and suggestion.
 */
export function refusalMessage(error: AppError, labels: Record<string, string>): string {
  if (error instanceof UnprocessableError && error.issues) {
    return error.issues
      .map((issue) => {
        if (issue.loc.length < 2) return issue.msg;
        const path = issue.loc.slice(1).join('.');
        return `${labels[path] ?? labels[String(issue.loc[1])] ?? path}: ${issue.msg}`;
      })
      .join(' ');
  }
  return `${error.message}${error.suggestion ? ` ${error.suggestion}` : ''}`;
}
