/**
 * The one page shell (core/text/html.ts htmlDocument) every server-rendered page is built in: what a
 * private page adds to the head, and that the page's own values stay escaped.
 */
import { describe, expect, it } from 'vitest';
import { html, htmlDocument } from '../../src/core/text/html.js';

const page = (options: { private?: boolean; icon?: string; script?: boolean } = {}) =>
  htmlDocument({
    title: 'A <b>title</b> & more',
    nonce: 'N0NCE',
    style: html`body{margin:0}`,
    body: html`<main>${'<script>alert(1)</script>'}</main>`,
    ...(options.script ? { script: html`console.log(1)` } : {}),
    ...(options.private ? { private: true } : {}),
    ...(options.icon ? { icon: options.icon } : {}),
  });

describe('htmlDocument: the page shell', () => {
  it('is one document: doctype, language, character set, viewport, title, style under the nonce, body', () => {
    const document = page();
    expect(document.startsWith('<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n')).toBe(true);
    expect(document).toContain('<title>A &lt;b&gt;title&lt;/b&gt; &amp; more</title>');
    expect(document).toContain('<style nonce="N0NCE">body{margin:0}</style>');
    expect(document).toContain('<main>&lt;script&gt;alert(1)&lt;/script&gt;</main>');
    expect(document.endsWith('</body>\n</html>\n')).toBe(true);
  });

  it('tells robots and the referrer nothing only for a private page', () => {
    expect(page()).not.toContain('noindex');
    expect(page()).not.toContain('name="referrer"');
    expect(page({ private: true })).toContain('<meta name="robots" content="noindex, nofollow">\n<meta name="referrer" content="no-referrer">\n<title>');
  });

  it('adds the icon and the script (under the same nonce) only when the page has them', () => {
    expect(page()).not.toContain('<link rel="icon"');
    expect(page()).not.toContain('<script');
    expect(page({ icon: 'data:,' })).toContain('<link rel="icon" href="data:,">\n<style');
    expect(page({ script: true })).toContain('<script nonce="N0NCE">console.log(1)</script>\n</body>');
  });
});
