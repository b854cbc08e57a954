import type { z } from 'zod';
import { UnprocessableError, type ValidationIssue } from '../errors.js';
import { unrepresentableText, UNREPRESENTABLE_MESSAGE } from '../text/text.js';

/** A request of the wrong shape: the 422 list form (errors.ts UnprocessableError with its issues). */
export function invalidRequest(issues: ValidationIssue[]): UnprocessableError {
  return new UnprocessableError(issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '), { issues });
}

export type RequestPart = 'body' | 'query' | 'path';

/**
 * Throws the 422 list form, `loc` naming the field, when a value holds text PostgreSQL's JSON
 * cannot store (NUL, an unpaired surrogate): every door calls it on what it decoded (JSON
 * bodies, path and query, form fields, multipart fields) before a use case sees it.
 */
export function refuseUnrepresentable(part: RequestPart, value: unknown): void {
  const found = unrepresentableText(value);
  if (!found) return;
  throw invalidRequest([{ loc: [part, ...found.path], msg: `${UNREPRESENTABLE_MESSAGE} (found: ${found.reason})`, type: 'string_unrepresentable' }]);
}

export function issuesFrom(part: RequestPart, error: z.ZodError, input: unknown): ValidationIssue[] {
  return error.issues.flatMap((issue): ValidationIssue[] => {
    const loc = [part, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))];
    switch (issue.code) {
      case 'unrecognized_keys':
        return issue.keys.map((key) => ({ loc: [...loc, key], msg: 'Unknown field: not part of this request.', type: 'extra_forbidden' }));
      case 'invalid_type':
        return [valueAt(input, issue.path) === undefined
          ? { loc, msg: 'Field required.', type: 'missing' }
          : { loc, msg: `Expected ${issue.expected}.`, type: `${issue.expected}_type` }];
      case 'too_small':
        return [{ loc, msg: issue.message, type: issue.origin === 'string' ? 'string_too_short' : 'too_small' }];
      case 'too_big':
        return [{ loc, msg: issue.message, type: issue.origin === 'string' ? 'string_too_long' : 'too_big' }];
      case 'invalid_value':
        return [{ loc, msg: `Input should be one of: ${issue.values.map((v) => JSON.stringify(v)).join(', ')}.`, type: 'enum' }];
      case 'invalid_format':
        return [{ loc, msg: issue.message, type: `invalid_${issue.format}` }];
      // The others under zod's own code and message; a code a zod upgrade adds is a decision to make here.
      case 'not_multiple_of':
      case 'invalid_union':
      case 'invalid_key':
      case 'invalid_element':
      case 'custom':
        return [{ loc, msg: issue.message, type: issue.code }];
    }
  });
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

export function parsePart<T>(part: RequestPart, schema: z.ZodType<T>, input: unknown): T {
  if (part === 'body' && input === undefined) {
    throw invalidRequest([
      { loc: ['body'], msg: 'A JSON object body is required (Content-Type: application/json).', type: 'missing' },
    ]);
  }
  const result = schema.safeParse(input);
  if (!result.success) throw invalidRequest(issuesFrom(part, result.error, input));
  return result.data;
}
