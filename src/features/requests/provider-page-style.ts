import { html } from '../../core/text/html.js';

/**
 * The provider page's look: the shared report page's palette, type and cards (one service, one
 * look), plus what a form needs. Inline under the response's CSP nonce, like the report page's.
 */

/** The report page's shield (inline, so no request leaves for /favicon.ico). */
export const ICON = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><path d="M16 2 4 7v8c0 7.5 5.1 13.4 12 15 6.9-1.6 12-7.5 12-15V7z" fill="#0f6b34"/><path d="m10 16 4 4 8-9" fill="none" stroke="#fff" stroke-width="3"/></svg>')}`;

export const STYLE = html`
:root{color-scheme:light;--ink:#1f2328;--muted:#4f5761;--line:#d0d7de;--bg:#f3f5f7;--card:#fff;--link:#0b57a4;--bad:#b42318;--good:#0f6b34}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:1rem/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--ink);background:var(--bg)}
a{color:var(--link)}
.page{max-width:48rem;margin:0 auto;padding:1rem}
.site{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:baseline;gap:.25rem 1rem;border-bottom:1px solid var(--line);padding-bottom:.5rem;margin-bottom:1rem}
.site .brand{font-weight:700;letter-spacing:.01em}
.site .note{color:var(--muted);font-size:.875rem}
h1{font-size:1.5rem;line-height:1.25;margin:0 0 .25rem;overflow-wrap:anywhere}
.subtitle{margin:0 0 1rem;color:var(--muted);overflow-wrap:anywhere}
h2{font-size:1.15rem;line-height:1.3;margin:0 0 .5rem}
h3{font-size:1rem;margin:1rem 0 .25rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:.75rem;padding:1rem;margin:0 0 1rem}
.muted{color:var(--muted)}
.instructions{white-space:pre-line;overflow-wrap:anywhere;margin:0}
dl.facts{margin:0}
dl.facts dt{color:var(--muted);font-size:.9rem}
dl.facts dd{margin:0 0 .5rem;overflow-wrap:anywhere}
@media (min-width:30rem){dl.facts{display:grid;grid-template-columns:minmax(6rem,max-content) minmax(0,1fr);gap:.35rem 1rem}dl.facts dt{font-size:1rem}dl.facts dd{margin:0}}
.notice{border-left:.35rem solid var(--bad)}
.notice h2{color:var(--bad)}
.field{margin:0 0 1rem}
.field label{display:block;font-weight:600;margin-bottom:.25rem}
.field .hint{display:block;color:var(--muted);font-size:.925rem;margin:0 0 .35rem}
input[type=file],input[type=text]{font:inherit;width:100%;max-width:100%;padding:.5rem;border:1px solid #6e7781;border-radius:.5rem;background:#fff;color:var(--ink);min-height:44px}
input[type=text]{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace}
button{font:inherit;font-weight:600;padding:.6rem 1.2rem;border-radius:.5rem;border:1px solid #0b57a4;background:#0b57a4;color:#fff;cursor:pointer;min-height:44px}
button:disabled{background:#6e7781;border-color:#6e7781;cursor:progress}
button:focus-visible,a:focus-visible,input:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.form-error{border:1px solid var(--bad);border-left-width:.35rem;border-radius:.5rem;padding:.5rem .75rem;margin:0 0 1rem;color:var(--bad);overflow-wrap:anywhere}
.form-error[hidden],.upload[hidden]{display:none}
.upload{margin:1rem 0 0}
.upload progress{display:block;width:100%;height:1rem;margin:.25rem 0}
ol.plain{margin:.25rem 0 0;padding-left:1.25rem}
ol.plain li{margin:.2rem 0;overflow-wrap:anywhere}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace;font-size:.9em;overflow-wrap:anywhere}
ol.steps{list-style:none;margin:.5rem 0 1rem;padding:0;display:flex;flex-wrap:wrap;gap:.5rem}
ol.steps li{flex:1 1 0;min-width:5.5rem;padding:.4rem .6rem;border-radius:.5rem;border:1px solid var(--line);color:var(--muted)}
ol.steps li.done{border-color:var(--good);color:var(--good)}
ol.steps li[aria-current]{border-color:var(--link);color:var(--ink);font-weight:700}
.level{display:inline-block;margin:0 0 .5rem;padding:.2rem .8rem;border-radius:999px;font-weight:700;font-size:1.25rem;color:#fff;background:#4b5563}
.level-verified{background:#0f6b34}.level-provisional{background:#8a5300}.level-provenance{background:#1d4ed8}.level-unrated{background:#4b5563}.level-flagged,.level-failed{background:#b42318}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
footer{color:var(--muted);font-size:.875rem;padding:.5rem 0 2rem}
@media (min-width:40rem){.page{padding:1.5rem}h1{font-size:1.85rem}}
@media (prefers-reduced-motion:reduce){*{scroll-behavior:auto}}
`;
