import { describe, expect, it } from 'vitest';
import { requestTokenRedaction, withoutRequestTokens } from './log-redaction.js';

const TOKEN = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcde';

describe('request link redaction', () => {
  it('replaces the token in the provider page path, absolute or not, with what follows it', () => {
    expect(withoutRequestTokens(`/r/${TOKEN}`)).toBe('/r/[redacted]');
    expect(withoutRequestTokens(`/r/${TOKEN}/submissions?x=1`)).toBe('/r/[redacted]?x=1');
    expect(withoutRequestTokens(`https://photos.example/r/${TOKEN}`)).toBe('https://photos.example/r/[redacted]');
  });

  it('leaves other paths alone', () => {
    for (const url of ['/v1/requests', `/v1/requests/${TOKEN}`, '/shared/abc/r/def', '/docs/r']) expect(withoutRequestTokens(url)).toBe(url);
  });

  it('drops the parsed parts and redacts a Referer from the page', () => {
    const req = { url: `/r/${TOKEN}`, params: { token: TOKEN }, query: {}, headers: { referer: `http://localhost:8080/r/${TOKEN}` } };
    const logged = requestTokenRedaction.request(req);
    expect(JSON.stringify(logged)).not.toContain(TOKEN);
    const fromPage = requestTokenRedaction.request({ url: '/v1/public/health', headers: { referer: `http://localhost:8080/r/${TOKEN}` } });
    expect(fromPage.url).toBe('/v1/public/health');
    expect(JSON.stringify(fromPage)).not.toContain(TOKEN);
  });
});
