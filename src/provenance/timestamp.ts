/**
 * RFC 3161 client: asks the configured timestamp authority for a TimeStampToken over a
 * message. The URL is an operator setting, never taken from untrusted input.
 */
import { createHash, randomBytes } from 'node:crypto';
import { boolean, integer, nullValue, octetString, oid, readChildren, readElement, sequence } from './der.js';
import { AppError } from '../core/errors.js';
import type { Timestamper } from './cose.js';

const SHA256 = '2.16.840.1.101.3.4.2.1';

export function timestampRequest(message: Uint8Array): Uint8Array {
  const digest = createHash('sha256').update(message).digest();
  return sequence(
    integer(1),
    sequence(sequence(oid(SHA256), nullValue()), octetString(digest)),
    integer(randomBytes(8)),
    boolean(true), // certReq: the token carries the TSA certificate for validators.
  );
}

/** The TimeStampToken (ContentInfo DER) of a granted TimeStampResp; throws otherwise. */
export function tokenFromResponse(response: Uint8Array): Uint8Array {
  const [statusInfo, token] = readChildren(readElement(response));
  const status = statusInfo ? readChildren(statusInfo)[0] : undefined;
  const code = status?.content.length === 1 ? status.content[0] : undefined;
  // 0 = granted, 1 = grantedWithMods.
  if ((code !== 0 && code !== 1) || !token) {
    throw new AppError('SERVICE_UNAVAILABLE', `The timestamp authority refused the request (status ${String(code)}).`, {
      suggestion: 'Check the TSA URL and the TSA service.',
    });
  }
  return token.encoded;
}

export function httpTimestamper(url: string, timeoutMs = 10_000): Timestamper {
  return async (message) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/timestamp-query' },
      body: Buffer.from(timestampRequest(message)),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) {
      throw new AppError('SERVICE_UNAVAILABLE', `The timestamp authority answered HTTP ${response.status}.`, {
        suggestion: 'Check the TSA URL and the TSA service.',
      });
    }
    return tokenFromResponse(new Uint8Array(await response.arrayBuffer()));
  };
}
