import { z } from 'zod';
import { MAX_FILE_NAME_LENGTH, hasNameUnsafeCharacter, isUnrepresentable, multiLineTextProblem, NAME_UNSAFE_MESSAGE, UNREPRESENTABLE_MESSAGE } from './text.js';

/**
 * Request schemas for free text (see text.ts for the rules). A refusal is a 422 in the list
 * form, naming the field, before anything is written.
 */

/** Any string PostgreSQL's JSON can store: no NUL, no unpaired surrogate. */
export const storableString = () => z.string().refine((text) => !isUnrepresentable(text), UNREPRESENTABLE_MESSAGE);

/**
 * One line of text shown to people (account and user names, key descriptions): trimmed,
 * storable, and free of controls and bidi formatting characters, which would otherwise be shown
 * raw on pages and in e-mail subjects. Chain the length rules.
 */
export const oneLineText = () =>
  z
    .string()
    .trim()
    .refine((text) => !isUnrepresentable(text), { message: UNREPRESENTABLE_MESSAGE, abort: true })
    .refine((text) => !hasNameUnsafeCharacter(text), NAME_UNSAFE_MESSAGE);

/**
 * Multi-line text shown to people (a request's instructions): storable, and held to the comment
 * rule, multiLineTextProblem (tab and line breaks allowed; other controls, bidi formatting and
 * invisible characters refused). Taken as it is otherwise. Chain the length rules.
 */
export const multiLineText = () =>
  z
    .string()
    .refine((text) => !isUnrepresentable(text), { message: UNREPRESENTABLE_MESSAGE, abort: true })
    .superRefine((text, context) => {
      const problem = multiLineTextProblem(text);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    });

/**
 * A file name as a client gives it: storable, otherwise taken as it is. Unsafe characters are
 * removed by `cleanFileName` where the file is received, never refused (D-082): a photo is not
 * turned away for its name.
 */
export const fileNameInput = () => storableString().min(1).max(MAX_FILE_NAME_LENGTH);
