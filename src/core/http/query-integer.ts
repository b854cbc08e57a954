import { z } from 'zod';
import './schemas.js'; // zod's .openapi() extension

/**
 * An optional integer query parameter, written in decimal digits. z.coerce.number() alone reads
 * an empty value (`?offset=`) or blanks as 0, and `1e1`, `0x10` or `20.0` as numbers, so a request
 * outside the documented integer was accepted; here any other spelling is refused (422) like any
 * other non-integer. Documented as the integer it is.
 */
export function queryInteger(bounds: { min: number; max?: number; default: number }) {
  const decimalOnly = (value: unknown) => (typeof value === 'string' && !/^[+-]?\d+$/.test(value) ? Number.NaN : value);
  let integer = z.coerce.number().int().min(bounds.min);
  if (bounds.max !== undefined) integer = integer.max(bounds.max);
  return z
    .preprocess(decimalOnly, integer)
    .default(bounds.default)
    .openapi({ type: 'integer', minimum: bounds.min, ...(bounds.max !== undefined ? { maximum: bounds.max } : {}), default: bounds.default });
}
