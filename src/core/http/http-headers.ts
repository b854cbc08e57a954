/**
 * Response headers shared by every door that serves bytes it did not make (issue 37).
 */

/**
 * The headers of an answer whose bytes are a client's file (an upload, its rendition, a report
 * file), served from the service's own origin: the browser takes the content type as given (no
 * sniffing an image into HTML), shows it inline rather than saving it under a name the client
 * chose, and, should it render the file as a document anyway, runs it in a sandbox with no
 * script, no origin and nothing loaded. Callers add their own caching and referrer rules.
 */
export function untrustedFileHeaders(contentType: string): Record<string, string> {
  return {
    'Content-Type': contentType,
    'Content-Disposition': 'inline',
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; sandbox",
  };
}
