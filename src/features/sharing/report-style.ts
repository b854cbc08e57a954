import { html } from '../../core/text/html.js';

/** The report page's look: its icon and its one stylesheet (inline, under the response's CSP nonce). */

/** A small shield (inline, so no request leaves for /favicon.ico). */
export const ICON = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><path d="M16 2 4 7v8c0 7.5 5.1 13.4 12 15 6.9-1.6 12-7.5 12-15V7z" fill="#0f6b34"/><path d="m10 16 4 4 8-9" fill="none" stroke="#fff" stroke-width="3"/></svg>')}`;

export const STYLE = html`
:root{color-scheme:light;--ink:#1f2328;--muted:#4f5761;--line:#d0d7de;--bg:#f3f5f7;--card:#fff;--link:#0b57a4}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:1rem/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--ink);background:var(--bg)}
a{color:var(--link)}
.page{max-width:72rem;margin:0 auto;padding:1rem}
.site{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:baseline;gap:.25rem 1rem;border-bottom:1px solid var(--line);padding-bottom:.5rem;margin-bottom:1rem}
.site .brand{font-weight:700;letter-spacing:.01em}
.site .note{color:var(--muted);font-size:.875rem}
h1{font-size:1.5rem;line-height:1.25;margin:0 0 .25rem}
.subtitle{margin:0 0 1rem;color:var(--muted);overflow-wrap:anywhere}
h2{font-size:1.15rem;line-height:1.3;margin:0 0 .5rem}
h3{font-size:1rem;margin:1rem 0 .25rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:.75rem;padding:1rem;margin:0 0 1rem}
figure{margin:0}
figcaption{color:var(--muted);font-size:.9rem;margin-top:.5rem;overflow-wrap:anywhere}
img{display:block;max-width:100%;height:auto}
.photo img{margin:0 auto;max-height:75vh;width:auto;border-radius:.25rem}
.level{display:inline-block;margin:0 0 .5rem;padding:.2rem .8rem;border-radius:999px;font-weight:700;font-size:1.25rem;color:#fff;background:#4b5563}
.level-verified{background:#0f6b34}.level-provisional{background:#8a5300}.level-provenance{background:#1d4ed8}.level-unrated{background:#4b5563}.level-flagged{background:#b42318}
.level.state-failed{background:#fff;color:#374151;border:2px dashed #6b7280}
.verdict-label{font-weight:700;font-size:1.1rem;margin:0 0 .25rem}
.meaning{margin:0 0 .75rem}
.reason{margin:0 0 .5rem;overflow-wrap:anywhere}
.muted{color:var(--muted)}
dl.facts{margin:0}
dl.facts dt{color:var(--muted);font-size:.9rem}
dl.facts dd{margin:0 0 .5rem;overflow-wrap:anywhere}
@media (min-width:30rem){dl.facts{display:grid;grid-template-columns:minmax(6rem,max-content) minmax(0,1fr);gap:.35rem 1rem}dl.facts dt{font-size:1rem}dl.facts dd{margin:0}}
code.hash{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace;font-size:.85rem;word-break:break-all}
.analyses{list-style:none;margin:0;padding:0}
.analyses li{border-top:1px solid var(--line);padding:.75rem 0}
.analyses li:first-child{border-top:0;padding-top:0}
.analysis-head{display:flex;justify-content:space-between;align-items:baseline;gap:1rem}
.analysis-head h3{margin:0}
.outcome{font-weight:700;white-space:nowrap}
.pass{color:#0f6b34}.fail{color:#b42318}.open{color:var(--muted)}
.question{margin:.15rem 0 0;color:var(--muted);font-size:.925rem}
.measured{margin:.15rem 0 0}
.more{margin-top:.5rem}
.more summary{cursor:pointer;color:var(--link)}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;margin-top:.5rem;font-size:.9rem}
th,td{text-align:left;padding:.25rem .75rem .25rem 0;border-bottom:1px solid var(--line);vertical-align:top}
ul.plain,ol.plain{margin:.25rem 0 0;padding-left:1.25rem}
ul.plain li,ol.plain li{margin:.2rem 0;overflow-wrap:anywhere}
.heatmap{background:#000}
.badge{max-width:min(100%,48rem)}
@media (min-width:62rem){.pair-visuals{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:0 1.5rem;align-items:start}}
.compare{display:grid;gap:1rem}
.compare img{width:100%}
.flicker-controls{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem;margin:0 0 .75rem}
.flicker-controls[hidden]{display:none}
.flicker-controls p{margin:0;color:var(--muted)}
.flicker-controls .flicker-help{flex-basis:100%;color:var(--ink)}
button{font:inherit;padding:.45rem .9rem;border-radius:.5rem;border:1px solid #0b57a4;background:#fff;color:#0b57a4;cursor:pointer;min-height:44px}
button[aria-pressed="true"]{background:#0b57a4;color:#fff}
button:focus-visible,a:focus-visible,summary:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.compare.stacked{grid-template-columns:1fr;gap:0}
.compare.stacked>figure{grid-area:1/1}
.compare.stacked figcaption{display:none}
.compare.stacked>figure[data-layer="raw"]{visibility:hidden}
#flicker[data-showing="raw"] .compare.stacked>figure[data-layer="raw"]{visibility:visible}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
footer{color:var(--muted);font-size:.875rem;padding:.5rem 0 2rem}
@media (min-width:40rem){.compare{grid-template-columns:1fr 1fr}.page{padding:1.5rem}h1{font-size:1.85rem}}
@media (min-width:62rem){.layout{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);grid-template-rows:auto 1fr;grid-template-areas:"photo verdict" "photo facts";gap:0 1.5rem;align-items:start}.layout>.photo{grid-area:photo}.layout>.verdict{grid-area:verdict}.layout>.facts-card{grid-area:facts}}
@media (prefers-reduced-motion:reduce){*{scroll-behavior:auto}}
`;
