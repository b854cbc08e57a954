import { ValidationError } from '../../core/errors.js';

/** A comment of 5,000 characters, URL-encoded, takes up to 60 KB (12 bytes a 4-byte character): anything larger is refused unread. */
const FORM_LIMIT_BYTES = 64 * 1024;

/**
 * A native form's body (application/x-www-form-urlencoded). The REST door parses JSON only, so
 * the app's POST routes read their body themselves, bounded, and keep the first value of each field.
 */
export async function readForm(body: NodeJS.ReadableStream, contentType: string | undefined): Promise<Map<string, string>> {
  if (!contentType?.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    throw new ValidationError('The form must be sent as application/x-www-form-urlencoded.', { suggestion: 'Send the page’s form as the browser does.' });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk);
    size += bytes.length;
    if (size > FORM_LIMIT_BYTES) throw new ValidationError(`The form is larger than ${FORM_LIMIT_BYTES} bytes.`, { suggestion: 'Send the page’s form as it is.' });
    chunks.push(bytes);
  }
  const fields = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(Buffer.concat(chunks).toString('utf8'))) if (!fields.has(name)) fields.set(name, value);
  return fields;
}
