import { z } from 'zod';
import './schemas.js'; // zod's .openapi() extension

/**
 * An optional integer query parameter. z.coerce.number() alone reads an empty value
 * (`?offset=`) or blanks as 0, so a request outside the documented integer was accepted; here
 * it is refused (422) like any other non-integer. Documented as the integer it is.
 */
export function queryInteger(bounds: { min: number; max?: number; default: number }) {
  const blankIsNotANumber = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? Number.NaN : value);
  let integer = z.coerce.number().int().min(bounds.min);
  if (bounds.max !== undefined) integer = integer.max(bounds.max);
  return z
    .preprocess(blankIsNotANumber, integer)
    .default(bounds.default)
    .openapi({ type: 'integer', minimum: bounds.min, ...(bounds.max !== undefined ? { maximum: bounds.max } : {}), default: bounds.default });
}
