import crypto from 'node:crypto';
import { html, htmlDocument, privatePageHeaders, type Html } from '../core/text/html.js';
import { ICON, STYLE } from '../features/sharing/index.js';
import { CSRF_FIELD } from './session.js';

/**
 * The app's page shell: the report page's look (its stylesheet and icon, from sharing) plus the
 * app's header, navigation and forms. Server-rendered: every page works without
 * JavaScript (a script only adds to a page: upload progress, a copy button). A section adds itself to NAV.
 */

export const newNonce = () => crypto.randomBytes(16).toString('base64');

/**
 * The report page's policy, except that forms may be sent to this origin (the report page
 * sends none): nothing loads but this origin's images, the inline style runs under the nonce,
 * no script unless the page asks for one, no framing, no base URL. Private pages' headers, except the referrer: under
 * `no-referrer` a browser sends `Origin: null` with a form's POST, and the app's CSRF check
 * needs the real origin; `same-origin` still sends nothing to other sites.
 */
export function appPageHeaders(nonce: string, options: { script: boolean } = { script: false }): Record<string, string> {
  // A page that needs a script (upload progress, a copy button) runs only its own, under the
  // nonce, and may fetch only from this origin.
  const script = options.script ? [`script-src 'nonce-${nonce}'`, "connect-src 'self'"] : [];
  return {
    ...privatePageHeaders,
    'Content-Security-Policy': ["default-src 'none'", "img-src 'self' data:", `style-src 'nonce-${nonce}'`, ...script, "form-action 'self'", "base-uri 'none'", "frame-ancestors 'none'"].join('; '),
    'Referrer-Policy': 'same-origin',
  };
}

const APP_STYLE = html`
.site nav ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;margin:0;padding:0;align-items:center}
.site nav a,.site nav button{display:inline-flex;align-items:center;min-height:44px}
.site nav a[aria-current="page"]{font-weight:700;color:var(--ink)}
.site nav form{margin:0}
.site .who{color:var(--muted);font-size:.875rem;overflow-wrap:anywhere}
.site .brand-block{display:flex;flex-direction:column}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input,select{font:inherit;width:100%;min-height:44px;padding:.4rem .6rem;border:1px solid #6b7280;border-radius:.5rem;background:#fff;color:var(--ink)}
input:focus-visible,select:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
button.primary{background:#0b57a4;color:#fff;margin-top:1rem}
.narrow{max-width:26rem;margin:2rem auto}
.alert{border:1px solid #b42318;background:#fef3f2;color:#7a271a;border-radius:.5rem;padding:.5rem .75rem}
.filters{display:grid;gap:0 1rem;grid-template-columns:1fr}
.filters .actions{display:flex;gap:.75rem;align-items:end;flex-wrap:wrap}
/* The list's filters fold away on a phone (open when one is set); a wide screen shows them always, no summary to click. */
.filter-fold>summary{cursor:pointer;padding:.65rem 0;font-weight:600;color:#0b57a4}
@media (min-width:48rem){.filters{grid-template-columns:2fr 1fr 1fr 1fr auto}.filters button{margin-top:0}.filter-fold>summary{display:none}.filter-fold::details-content{content-visibility:visible;display:contents}}
ul.rows{list-style:none;margin:0;padding:0}
ul.rows li{display:grid;grid-template-columns:4rem minmax(0,1fr);gap:.25rem .75rem;border-top:1px solid var(--line);padding:.75rem 0;align-items:center}
ul.rows li:first-child{border-top:0}
ul.rows img,ul.rows .nothumb{width:4rem;height:4rem;object-fit:cover;border-radius:.25rem;background:var(--line)}
ul.rows .name{font-weight:600;overflow-wrap:anywhere}
ul.rows .meta{color:var(--muted);font-size:.9rem;margin:0}
.pill{display:inline-block;padding:0 .5rem;border-radius:999px;font-size:.85rem;font-weight:700;color:#fff;background:#4b5563}
.pill.level-verified{background:#0f6b34}.pill.level-provisional{background:#8a5300}.pill.level-provenance{background:#1d4ed8}.pill.level-flagged{background:#b42318}
.pill.state-failed{background:#fff;color:#374151;border:1px dashed #6b7280}.pill.request-open{background:#0f6b34}.pill.request-closed{background:#4b5563}.pill.request-expired{background:#fff;color:#374151;border:1px solid #6b7280}.instructions{white-space:pre-wrap;overflow-wrap:anywhere}nav.on-page{margin:0 0 1rem}nav.on-page summary{min-height:44px;display:flex;align-items:center;cursor:pointer;color:#0b57a4}nav.on-page summary::before{content:"▸";margin-right:.4rem}nav.on-page details[open] summary::before{content:"▾"}nav.on-page ul{display:flex;flex-wrap:wrap;gap:0 1rem;list-style:none;margin:0;padding:0;font-size:.95rem}nav.on-page a{display:inline-flex;align-items:center;min-height:44px}ol.steps{list-style:none;margin:0 0 .75rem;padding:0}ol.steps li{position:relative;padding:.15rem 0 .15rem 1.75rem;color:var(--muted)}ol.steps li::before{content:"○";position:absolute;left:.25rem}ol.steps li.done{color:var(--ink)}ol.steps li.done::before{content:"✓";color:#0f6b34;font-weight:700}ol.steps li[aria-current]{font-weight:700}
.tag{display:inline-block;border:1px solid var(--line);border-radius:999px;padding:0 .5rem;font-size:.85rem;margin-right:.25rem;background:#fff}
.paging{display:flex;justify-content:space-between;gap:1rem;margin-top:1rem;flex-wrap:wrap}
.paging a{display:inline-flex;align-items:center;min-height:44px}
.nowrap{white-space:nowrap}
.chips{list-style:none;margin:0 0 .5rem;padding:0;display:flex;flex-wrap:wrap;gap:.5rem}.chips li{display:inline-flex;align-items:center;border:1px solid var(--line);border-radius:999px;padding-left:.75rem;background:#fff;max-width:100%;overflow-wrap:anywhere}.chips form{margin:0}.chips button{border:0;border-radius:999px;min-width:44px;padding:0 .75rem;font-size:1.25rem;line-height:1}.inline-form{display:flex;flex-wrap:wrap;gap:.5rem .75rem;align-items:flex-end;margin-top:.5rem}.inline-form>div{flex:1 1 14rem;min-width:0}.inline-form>button{margin-top:0}.inline-form .hint{margin:0 0 .25rem;font-size:.9rem}textarea{font:inherit;width:100%;min-height:6rem;padding:.4rem .6rem;border:1px solid #6b7280;border-radius:.5rem;background:#fff;color:var(--ink);resize:vertical}textarea:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}ul.comments{list-style:none;margin:0 0 1rem;padding:0}ul.comments>li{border-top:1px solid var(--line);padding:.75rem 0}ul.comments>li:first-child{border-top:0}.comment-meta{margin:0;font-size:.9rem}.comment-body{white-space:pre-wrap;overflow-wrap:anywhere;margin:.25rem 0}.comment-actions{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center}.comment-actions form{margin:0}.comment-actions a{display:inline-flex;align-items:center;min-height:44px}.comment-actions button.primary{margin-top:0}
.subnav ul{display:flex;flex-wrap:wrap;gap:0 1rem;list-style:none;margin:0 0 1rem;padding:0}.subnav a{display:inline-flex;align-items:center;min-height:44px}.subnav a[aria-current="page"]{font-weight:700;color:var(--ink)}.help{color:var(--muted);font-size:.9rem;margin:.25rem 0 0}.notice{border:1px solid #0f6b34;background:#ecfdf3;color:#054f31;border-radius:.5rem;padding:.5rem .75rem}fieldset{border:0;margin:.75rem 0 0;padding:0;min-width:0}legend{font-weight:600;padding:0;margin:0 0 .25rem}label.choice{display:flex;gap:.5rem;align-items:flex-start;font-weight:400;margin:.25rem 0;min-height:44px}label.choice input{width:1.25rem;min-height:0;height:1.25rem;margin:.15rem 0 0;flex:none}button.danger,.button-link.danger{border-color:#b42318;color:#b42318;background:#fff}form button.danger{background:#b42318;color:#fff}.button-link{display:inline-flex;align-items:center;justify-content:center;min-height:44px;padding:.45rem .9rem;border:1px solid #0b57a4;border-radius:.5rem;text-decoration:none;color:#0b57a4;background:#fff}.actions{display:flex;flex-wrap:wrap;gap:.75rem;align-items:center;margin-top:1rem}ul.rows.keys li,ul.rows.members li,ul.rows.requests li{grid-template-columns:minmax(0,1fr);gap:.5rem}@media (min-width:48rem){ul.rows.keys li,ul.rows.members li{grid-template-columns:minmax(0,1fr) auto}}.member-actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}.member-actions form.inline{display:flex;gap:.5rem;align-items:center;margin:0}.member-actions select{width:auto}.keybox{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-start}.keybox textarea{flex:1 1 16rem;font:.95rem/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace;word-break:break-all;resize:none;padding:.4rem .6rem;border:1px solid #6b7280;border-radius:.5rem;color:var(--ink);background:#fff}.keybox textarea:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}.account form>input:not([type=radio]){max-width:36rem}meter{width:100%;height:1.25rem}@media (min-width:62rem){.usage-grid{display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:0 1rem}}
.copy-row{display:flex;flex-wrap:wrap;gap:.5rem}.copy-row input{flex:1 1 16rem;width:auto;font-size:.9rem}.copy-row button{flex:none}#copy-status{min-height:1.5rem;margin:.25rem 0 0}ul.invites{list-style:none;margin:0 0 .5rem;padding:0}ul.invites li{display:flex;justify-content:space-between;align-items:center;gap:.5rem;border-top:1px solid var(--line);padding:.25rem 0}ul.invites li span{overflow-wrap:anywhere;min-width:0}ul.invites form{margin:0;flex:none}form.stop{margin-top:1.5rem;padding-top:.5rem;border-top:1px solid var(--line)}.views-chart svg{display:block;width:100%;height:5rem;background:#f6f8fa;border-radius:.25rem}.views-chart figcaption{color:var(--ink)}ul.file-links{list-style:none;margin:0 0 1rem;padding:0}ul.file-links li{display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:center;padding:.25rem 0}ul.file-links .muted{flex:1 1 16rem;font-size:.9rem}
.drop-zone.live{border:2px dashed #6b7280;border-radius:.75rem;padding:.25rem 1rem 1rem}.drop-zone.live.dragging{border-color:#0b57a4;background:#eef5fc}.drop-hint{font-weight:600;margin:.5rem 0 0}.hint{color:var(--muted);font-size:.9rem;margin:0 0 .25rem}.chosen{margin:.5rem 0 0;overflow-wrap:anywhere}.upload{margin-top:1rem}.upload progress{width:100%;height:1.25rem}.upload p{margin:.25rem 0 0}.quota p{margin:.25rem 0}.quota .next{font-weight:700}.quota .next-extra{color:#8a5300}.quota .next-refused{color:#b42318}
`;

export const APP_STYLESHEET = html`${STYLE}${APP_STYLE}`;

export interface NavItem {
  label: string;
  /** Path below the app's root, e.g. '/verifications'. */
  path: string;
}

/** The app's sections, in the header's order: one line per section. */
export const NAV: readonly NavItem[] = [
  { label: 'Verifications', path: '/verifications' },
  { label: 'Upload', path: '/upload' },
  { label: 'Requests', path: '/requests' },
  { label: 'Account', path: '/account' },
];

export interface Viewer {
  accountName: string;
  userName: string;
  csrfToken: string;
}

export interface ShellInput {
  title: string;
  serviceName: string;
  nonce: string;
  /** `${base path}/app`. */
  appPath: string;
  /** The signed-in user (absent on the sign-in page). */
  viewer?: Viewer;
  /** Which NAV item is this page's. */
  current?: string;
  body: Html;
}

/** A complete app page: the document, the header (account, user, navigation, sign-out form), the page's main. */
export function appPage(input: ShellInput): string {
  const { viewer, appPath } = input;
  const nav = viewer
    ? html`<nav aria-label="Main"><ul>
${NAV.map((item) => html`<li><a href="${appPath}${item.path}"${input.current === item.path ? html` aria-current="page"` : html``}>${item.label}</a></li>`)}
<li><form method="post" action="${appPath}/logout"><input type="hidden" name="${CSRF_FIELD}" value="${viewer.csrfToken}"><button type="submit">Sign out</button></form></li>
</ul></nav>`
    : html``;
  return htmlDocument({
    title: `${input.title} · ${input.serviceName}`,
    nonce: input.nonce,
    style: APP_STYLESHEET,
    icon: ICON,
    // Not `private`: its meta referrer (no-referrer) would override the header above; X-Robots-Tag keeps the pages unindexed.
    body: html`<div class="page">
<header class="site">
<div class="brand-block"><span class="brand">${input.serviceName}</span>${viewer ? html`<span class="who">${viewer.accountName} · ${viewer.userName}</span>` : html`<span class="note">Sign in to your account</span>`}</div>
${nav}
</header>
${input.body}
</div>`,
  });
}
