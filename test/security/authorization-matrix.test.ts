import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamCategory } from '../../src/core/es/streams.js';
import { errorCatalogue } from '../../src/modules.js';
import { databaseTargets } from '../support/databases.js';
import { readable, rpc, send, type RawAnswer } from './http.js';
import { leaksIn, markersOf, type Marker } from './leaks.js';
import { appAnswerProblems } from './page-headers.js';
import { buildPageRequest, buildRequest, targetAccount, toolArguments, type PageShape, type Target } from './requests.js';
import { buildWorld, principalNames, type AccountName, type Principal, type PrincipalName, type World } from './world.js';

/**
 * The authorisation matrix (issue 21, must-work 1): every operation of /openapi.json and every
 * MCP tool of tools/list, sent by every kind of caller, compared with the table below. An
 * operation or tool the table does not name fails the test, so a new endpoint cannot escape it.
 * Beside the outcome, every answer (body, headers, redirect) is searched for the other parties'
 * ids, names, e-mail addresses, file hashes and secrets, and every refused call is checked to
 * have left the other accounts' event streams as they were.
 *
 * The web app's routes (/app, issue 27) are driven as a browser drives them: each user of an
 * account signs in through the app's sign-in form and sends its session cookie (and on a form the
 * session's CSRF token, from this origin); every other caller is a signed-out browser
 * (browsers.ts). Their answers are checked for the app's hardening headers too (page-headers.ts).
 */

/**
 * The outcome classes compared: any 2xx or 3xx is 'ok'; 400 and 422 are 'invalid' (let in,
 * refused by validation). A web app page's 'signIn': the browser is sent to the sign-in page
 * (a 303 there that neither sets nor clears a session, which a sign-out does).
 */
type Outcome = 'ok' | '401' | '403' | '404' | '405' | '409' | 'invalid' | 'signIn';

const outcomeOf = (status: number): Outcome | string => (status >= 200 && status < 400 ? 'ok' : status === 400 || status === 422 ? 'invalid' : String(status));

const pageOutcomeOf = (answer: RawAnswer): Outcome | string => {
  const location = answer.headers.get('location');
  const sendsToSignIn = answer.status === 303 && location !== null && new URL(location, 'http://x').pathname === '/app/login';
  return sendsToSignIn && !answer.headers.getSetCookie().some((c) => c.startsWith('pv_app_session=')) ? 'signIn' : outcomeOf(answer.status);
};

// ---------------------------------------------------------------------------------------------
// The expected table. Defaults, from spec section 5 and the project's decisions:
//  - invalid credentials (expired, revoked or forged key or token, alg=none, an anonymous id as
//    a bearer token) are 401 wherever they are sent, public routes included;
//  - no credentials: 401, except on public routes;
//  - a 'jwt' route refuses API keys (403); a read-scoped key refuses every change (403);
//  - a resource of another account: 404 where existence stays hidden (verifications, tags,
//    comments, keys, audit streams), 403 where the spec names ACCESS_DENIED (account routes);
//  - within the account: members may do all but the admin-only account management; comments
//    are edited by their author only and deleted by the author or an admin; members revoke only
//    their own keys (admins any).
// ---------------------------------------------------------------------------------------------

interface Rule extends PageShape {
  /**
   * Credentials needed: 'public' (none), 'any' (session token or API key), 'jwt' (a session
   * only). The web app's routes: 'session' (a page behind sign-in: a browser with no live session
   * is sent to sign in), 'browser' (the sign-in pages: any browser). Both are driven as browsers.
   */
  auth: 'public' | 'any' | 'jwt' | 'session' | 'browser';
  /** The path or body names one account's resource: what everyone outside that account gets. */
  foreign?: '404' | '403';
  /** Who inside the account: admins, the author, the author or an admin, own keys or admins. */
  who?: 'admin' | 'author' | 'authorOrAdmin' | 'ownKeyOrAdmin';
  /** What an admitted caller gets with the matrix's minimal request (default 'ok'). */
  allowed?: Outcome;
  /** What account callers get on an anonymous (keyless) verification (default: `foreign`). */
  onAnonymous?: Outcome;
  /** Outcomes that differ from the rules above. */
  except?: Partial<Record<PrincipalName, Outcome>>;
  /** A GET that changes something (a PSD download spends one of 5): a read-scope key of the owner's account gets 403, as MCP refuses it (issue 36 item 13). */
  changesOnRead?: boolean;
  /** A public route that reads no credential at all: invalid ones are ignored, never 401 (the health check, issue 36 item 10, as /openapi.json). */
  ignoresCredentials?: boolean;
  /** The owner's account records events when others are let in (report views, logins, a refused upload through a request's link): not a foreign change. */
  recordsForOwner?: boolean;
  /** The answer shows the owner's data to whoever is let in (a login's own account; a report's file hashes). */
  shows?: (m: Marker) => boolean;
}

const account = (rule: Omit<Rule, 'foreign'> = { auth: 'any' }): Rule => ({ foreign: '403', ...rule });
const owned = (rule: Partial<Rule> = {}): Rule => ({ auth: 'any', foreign: '404', ...rule });
/**
 * Sharing an unclaimed anonymous verification: 403 ACCESS_DENIED to any account (spec 3.4 and
 * 4.1 GET share), where other reads of it stay 404.
 */
const sharing = (rule: Partial<Rule> = {}): Rule => owned({ onAnonymous: '403', ...rule });
const publicRoute = (rule: Partial<Rule> = {}): Rule => ({ auth: 'public', ...rule });
/**
 * The web app (issue 27). A new /app route adds ONE row: `appPage()` when it names no resource
 * (an account's own list or settings), `appOwned()` when its path names one of the account's
 * resources (another account's is 404, as the API's). Options: `who` (only admins, the author,
 * …: 403 to the others), `like` (the REST operation whose use case it calls: its set-up makes a
 * fresh resource for a caller who will use one up, and its JSON body is the form's fields),
 * `fields` (the form's fields when they are not the JSON's), `allowed` (the owner's outcome when
 * the minimal request is not a success), `onAnonymous` (an anonymous verification's outcome).
 * A POST is sent as the page's form: urlencoded, with the session's CSRF token, from this origin.
 */
const appPage = (rule: Partial<Rule> = {}): Rule => ({ auth: 'session', ...rule });
const appOwned = (rule: Partial<Rule> = {}): Rule => appPage({ foreign: '404', ...rule });
const appPublic = (rule: Partial<Rule> = {}): Rule => ({ auth: 'browser', ...rule });
/** A member is refused an admin's form before the user it names is looked up: 403 whatever the id (nothing to learn of another account's users). */
const membersFirst: Rule['except'] = { member: '403', demotedAdmin: '403' };
const isPage = (rule: Rule) => rule.auth === 'session' || rule.auth === 'browser';
/** A restricted share opens for its account and its invitees; everyone else gets 403. */
const restrictedReport = (p: Principal) => (p.account === 'A' || p.name === 'invitee' || p.name === 'inviteLinkHolder' ? 'ok' : '403');

const EXPECTED: Record<string, Rule> = {
  'GET /v1/public/health':                                 publicRoute({ ignoresCredentials: true }),
  'GET /':                                                 publicRoute(),
  'GET /docs':                                             publicRoute(),
  'GET /docs/assets/{file}':                               publicRoute(),
  'POST /v1/accounts':                                     publicRoute(),
  'POST /v1/accounts/login':                               publicRoute({ recordsForOwner: true, shows: () => true }),
  'POST /v1/accounts/invitations/accept':                  publicRoute({ allowed: '404' }), // an unknown invitation
  'GET /accounts/set-password':                            publicRoute(),
  'GET /blobs/{key}':                                      publicRoute(), // the pre-signed URL is the credential
  'PUT /uploads/{upload_id}':                              publicRoute({ recordsForOwner: true }),
  'GET /shared/{token}':                                   publicRoute({ recordsForOwner: true, shows: (m) => m.kind === 'hash' && m.party === 'A' }),
  'GET /shared/{token}/files/{kind}':                      publicRoute({ shows: (m) => m.kind === 'hash' && m.party === 'A' }),
  // The auditor's page and its bundle at the share link: the report's access, no view counted; the evidence names the owner's verification and its hashes.
  'GET /shared/{token}/history':                           publicRoute({ shows: (m) => m.party === 'A' }),
  'GET /shared/{token}/history/bundle':                    publicRoute({ shows: (m) => m.party === 'A' }),
  // The signed PDF report at the share link: the report's access, recorded for the owner (PdfReportIssued); it names the owner's verification.
  'GET /shared/{token}/report.pdf':                        publicRoute({ recordsForOwner: true, shows: (m) => m.party === 'A' }),
  'GET /assets/{file}':                                    publicRoute(),
  'GET /v1/anchors/certificate':                           publicRoute(),
  // The provider page: the request's token is the credential; it shows the requesting account's name (and nothing else of it).
  'GET /r/{request_token}':                                publicRoute({ shows: (m) => m.kind === 'name' && m.party === 'A' }),
  // A submission records on the requester's request stream (counted, then withdrawn when the upload is refused).
  'POST /r/{request_token}':                               publicRoute({ allowed: 'invalid', recordsForOwner: true }),
  // A capture app's challenge through the link (the requester's account's): recorded for the owner; nothing the matrix could sign is an attestation.
  'POST /r/{request_token}/capture/challenge':             publicRoute({ recordsForOwner: true }),
  'POST /r/{request_token}/capture/attestation':           publicRoute({ allowed: 'invalid' }),
  // A submission is reached under its request: the matrix's verification is none of the request's.
  'GET /r/{request_token}/submissions/{verification_id}':  publicRoute({ allowed: '404' }),
  'GET /r/{request_token}/submissions/{verification_id}/status': publicRoute({ allowed: '404' }),
  // The web app (issue 27), driven by each caller's browser (see appPage above): one row per route.
  'GET /app':                                              appPage(),
  'GET /app/login':                                        appPublic(),
  'POST /app/login':                                       appPublic({ allowed: 'invalid', csrf: 'login' }), // the sign-in form's token, no e-mail or password: the form again (422)
  // The front door (issue 39): signed-out forms bound to the sign-in page's cookie, like the sign-in form.
  'GET /app/signup':                                       appPublic(),
  'POST /app/signup':                                      appPublic({ allowed: 'invalid', csrf: 'login' }), // the page's token, no fields: the form again (422)
  'GET /app/password-reset':                               appPublic(),
  'POST /app/password-reset':                              appPublic({ allowed: 'invalid', csrf: 'login' }), // no address: the form again (422)
  'GET /app/password-reset/{token}':                       appPublic({ allowed: '404' }), // a share link's token is no reset link
  'POST /app/password-reset/{token}':                      appPublic({ allowed: 'invalid', csrf: 'login' }), // no password: the form again (422)
  'POST /app/logout':                                      appPage(),
  'GET /app/verifications':                                appPage(),
  'GET /app/verifications/{verification_id}':              appOwned(),
  'GET /app/verifications/{verification_id}/status':       appOwned(), // JSON for the page's progress script
  'GET /app/verifications/{verification_id}/progress':     appOwned(), // server-sent events for the page's progress script (a finished one: one event)
  'GET /app/verifications/{verification_id}/files/{kind}': appOwned(), // the report's image (kind: image)
  'GET /app/verifications/{verification_id}/history':      appOwned(),
  'GET /app/verifications/{verification_id}/history/bundle': appOwned(),
  'GET /app/verifications/{verification_id}/report.pdf':   appOwned(),
  'POST /app/verifications/{verification_id}/tags':        appOwned({ fields: ({ account }) => ({ name: account.tag.name }) }),
  'POST /app/verifications/{verification_id}/tags/new':    appOwned({ fields: () => ({ name: `new-${crypto.randomUUID().slice(0, 8)}` }) }),
  'POST /app/verifications/{verification_id}/tags/remove': appOwned({ like: 'DELETE /v1/verifications/{verification_id}/tags/{tag_id}', fields: ({ values }) => ({ tag_id: values.tag_id! }) }),
  'POST /app/verifications/{verification_id}/comments':    appOwned({ like: 'POST /v1/verifications/{verification_id}/comments' }),
  'POST /app/verifications/{verification_id}/comments/{comment_id}/edit':   appOwned({ who: 'author', like: 'PATCH /v1/verifications/{verification_id}/comments/{comment_id}' }),
  'POST /app/verifications/{verification_id}/comments/{comment_id}/delete': appOwned({ who: 'authorOrAdmin', like: 'DELETE /v1/verifications/{verification_id}/comments/{comment_id}' }),
  // Sharing an unclaimed anonymous verification: the API's 403 ACCESS_DENIED is a refusal the
  // form shows on the verification's page (form-refusal.ts), and the app shows no page of a
  // verification not the account's: its 404, as GET of the page (D-292).
  'POST /app/verifications/{verification_id}/share':       appOwned({ like: 'POST /v1/verifications/{verification_id}/share' }),
  'POST /app/verifications/{verification_id}/share/stop':  appOwned({ like: 'DELETE /v1/verifications/{verification_id}/share', fields: () => ({ confirm: 'stop' }) }),
  'POST /app/verifications/{verification_id}/share/invites':        appOwned({ like: 'POST /v1/verifications/{verification_id}/share/invites' }),
  'POST /app/verifications/{verification_id}/share/invites/remove': appOwned({ like: 'DELETE /v1/verifications/{verification_id}/share/invites' }),
  'GET /app/verifications/{verification_id}/download/image': appOwned(), // to a pre-signed URL (302)
  'GET /app/verifications/{verification_id}/download/badge': appOwned({ allowed: '404' }), // image-only: no badge
  'POST /app/verifications/{verification_id}/psd-export':  appOwned({ allowed: '409' }), // image-only: the page says it cannot be exported
  'POST /app/verifications/{verification_id}/psd-export/download': appOwned({ allowed: '404' }), // none requested
  'POST /app/verifications/{verification_id}/delete':      appOwned({ like: 'DELETE /v1/verifications/{verification_id}', fields: () => ({ confirm: 'delete' }) }),
  'GET /app/upload':                                       appPage(),
  'POST /app/upload':                                      appPage({ like: 'POST /v1/verifications/' }), // multipart, the matrix's image: to the new verification's page
  'GET /app/requests':                                     appPage(),
  'POST /app/requests':                                    appPage({ like: 'POST /v1/requests' }), // the API's body as the form's fields: to the new request's page
  'GET /app/requests/{request_id}':                        appOwned(),
  'GET /app/requests/{request_id}/close':                  appOwned(),
  'POST /app/requests/{request_id}/close':                 appOwned({ like: 'DELETE /v1/requests/{request_id}' }), // its set-up: a fresh request each, closed for good
  'GET /app/account':                                      appPage(),
  'GET /app/account/keys':                                 appPage(),
  'POST /app/account/keys':                                appPage({ like: 'POST /v1/apikeys/' }), // a key of the caller's own (the form has no account field)
  'GET /app/account/keys/{key_id}/revoke':                 appOwned({ who: 'ownKeyOrAdmin' }),
  'POST /app/account/keys/{key_id}/revoke':                appOwned({ who: 'ownKeyOrAdmin', like: 'DELETE /v1/apikeys/{key_id}' }),
  'GET /app/account/members':                              appPage(),
  'POST /app/account/members':                             appPage({ who: 'admin', like: 'POST /v1/accounts/{account_id}/users' }), // an invitation (the password field is not the form's)
  'GET /app/account/members/{user_id}/remove':             appOwned(),
  'POST /app/account/members/{user_id}/remove':            appOwned({ who: 'admin', like: 'DELETE /v1/accounts/{account_id}/users/{user_id}', except: membersFirst }),
  'POST /app/account/members/{user_id}/role':              appOwned({ who: 'admin', like: 'PATCH /v1/accounts/{account_id}/users/{user_id}', except: membersFirst }),
  'GET /app/account/usage':                                appPage(),
  'POST /app/account/settings':                            appPage({ who: 'admin', like: 'PATCH /v1/accounts/{account_id}' }),
  // The MCP door reads its own credentials: a read-scoped key may list tools; GET and DELETE are 405 for all.
  'POST /mcp':                                             publicRoute({ except: { readKey: 'ok' } }),
  'GET /mcp':                                              publicRoute({ allowed: '405', except: Object.fromEntries(principalNames.map((n) => [n, '405'])) }),
  'DELETE /mcp':                                           publicRoute({ allowed: '405', except: Object.fromEntries(principalNames.map((n) => [n, '405'])) }),

  'GET /v1/accounts/me':                                   { auth: 'any' },
  'PUT /v1/accounts/me/password':                          { auth: 'jwt' },
  'GET /v1/accounts/{account_id}':                         account(),
  'PATCH /v1/accounts/{account_id}':                       account({ auth: 'jwt', who: 'admin' }),
  'GET /v1/accounts/{account_id}/users':                   account(),
  'POST /v1/accounts/{account_id}/users':                  account({ auth: 'jwt', who: 'admin' }),
  'PATCH /v1/accounts/{account_id}/users/{user_id}':       account({ auth: 'jwt', who: 'admin' }),
  'DELETE /v1/accounts/{account_id}/users/{user_id}':      account({ auth: 'jwt', who: 'admin' }),
  'GET /v1/accounts/{account_id}/usage':                   account(),

  'GET /v1/apikeys/':                                      { auth: 'any' },
  'POST /v1/apikeys/':                                     account({ auth: 'jwt' }), // body account_id: 403 ACCESS_DENIED (spec 4.3)
  'DELETE /v1/apikeys/{key_id}':                           owned({ who: 'ownKeyOrAdmin' }),

  'GET /v1/audit/streams':                                 { auth: 'any' },
  'GET /v1/audit/streams/{stream}':                        owned(), // sent once per stream kind, each by its row in STREAM_KINDS below
  // Compliance evidence (the default period: the last 30 days): the caller's own account's, for its admins.
  'GET /v1/compliance/events':                             { auth: 'any', who: 'admin' },
  'GET /v1/compliance/summary':                            { auth: 'any', who: 'admin' },
  'POST /capture/challenge':                               { auth: 'any' },
  'POST /capture/attestation':                             { auth: 'any', allowed: 'invalid' }, // nothing signed: validation refuses
  'POST /v1/verifications/claim':                          { auth: 'any' }, // an unknown anonymous id claims nothing
  'POST /v1/verifications/':                               { auth: 'any' },
  'GET /v1/verifications/':                                { auth: 'any' },

  'GET /v1/verifications/{verification_id}':                         owned(),
  'DELETE /v1/verifications/{verification_id}':                      owned(),
  'GET /v1/verifications/{verification_id}/renditions/thumbnail':    owned(),
  'GET /v1/verifications/{verification_id}/image':                   owned(),
  'GET /v1/verifications/{verification_id}/renditions/signed/original': owned({ allowed: '404' }), // image-only: no badge
  'GET /v1/verifications/{verification_id}/share':                   sharing(),
  'POST /v1/verifications/{verification_id}/share':                  sharing(),
  'DELETE /v1/verifications/{verification_id}/share':                sharing(),
  'POST /v1/verifications/{verification_id}/share/invites':          sharing(),
  'DELETE /v1/verifications/{verification_id}/share/invites':        sharing(),
  'GET /v1/verifications/{verification_id}/analytics/views':         sharing(), // a share's views: 403 on an anonymous verification too
  'PUT /v1/verifications/{verification_id}/tags':                    owned(),
  'POST /v1/verifications/{verification_id}/tags':                   owned(),
  'DELETE /v1/verifications/{verification_id}/tags/{tag_id}':        owned(),
  'GET /v1/verifications/{verification_id}/comments':                owned(),
  'POST /v1/verifications/{verification_id}/comments':               owned(),
  'PATCH /v1/verifications/{verification_id}/comments/{comment_id}': owned({ who: 'author' }),
  'DELETE /v1/verifications/{verification_id}/comments/{comment_id}': owned({ who: 'authorOrAdmin' }),
  'POST /v1/verifications/{verification_id}/psd-export':            owned({ allowed: '409' }), // the matrix's verifications are image-only: VALIDATION_ERROR
  'GET /v1/verifications/{verification_id}/psd-export':             owned({ allowed: '404' }), // none requested: PSD_EXPORT_NOT_FOUND
  'GET /v1/verifications/{verification_id}/psd-export/download':    owned({ allowed: '404', changesOnRead: true }),
  'GET /v1/verifications/{verification_id}/audit-bundle':           owned(),
  // A read: the PdfReportIssued it records is a record of the account's own (as a view), so a read-scope key gets it too.
  'GET /v1/verifications/{verification_id}/report.pdf':             owned(),

  'GET /v1/tags/':                                         { auth: 'any' },
  'POST /v1/tags/':                                        { auth: 'any' },
  'PATCH /v1/tags/{tag_id}':                               owned(),
  'DELETE /v1/tags/{tag_id}':                              owned(),

  'GET /v1/requests':                                      { auth: 'any' },
  'POST /v1/requests':                                     { auth: 'any' },
  'GET /v1/requests/{request_id}':                         owned(),
  'PATCH /v1/requests/{request_id}':                       owned(),
  'DELETE /v1/requests/{request_id}':                      owned(),
};

/**
 * The audit door per stream kind (issue 35): `GET /v1/audit/streams/{stream}` is sent by every
 * caller for one stream of each kind each account holds (world.ts `streams`), and answers by the
 * owning feature's read rule, which is the kind's row here; the list (`GET /v1/audit/streams`) is
 * checked against the same rows, stream by stream. A kind the world's accounts hold with no row
 * fails the test, so a new kind of stream cannot escape it.
 */
const AUDIT_STREAM = 'GET /v1/audit/streams/{stream}';
const invitedAddress = (m: Marker) => m.party === 'C' && m.kind === 'email';
const STREAM_KINDS: Record<string, Rule> = {
  account:           owned(),
  // The key list's rule: a member reads their own keys' history (the spare key under test is its admin owner's), an admin every key's.
  apikey:            owned({ who: 'ownKeyOrAdmin' }),
  // The address registry is no account's history: shown to no one.
  email:             owned({ allowed: '404' }),
  // A web app session's sign-in and use (issue 36): a credential's history, shown to no one.
  appsession:        owned({ allowed: '404' }),
  verification:      owned(),
  verification_tags: owned(),
  tags:              owned(),
  comments:          owned(),
  // A restricted share's invitations, and the mail they send, name the addresses the account invited (the invitee's, of account C).
  share:             owned({ shows: invitedAddress }),
  shareviews:        owned(),
  request:           owned(),
  usage:             owned(),
  mail:              owned({ shows: invitedAddress }),
  upload:            owned(),
  capture:           owned(),
  psdexport:         owned(),
  // The signed PDF reports issued of a verification (each one's digest): the verification's account's, as its own stream.
  pdfreport:         owned(),
};
/**
 * Kinds with a row that the world's accounts hold no stream of: a PSD export, and metering (only
 * RAW pairs are metered), need a RAW pair, minutes of CPU per account. Their rows are "same
 * account", as the verification's. A PDF report's stream begins with the first PDF issued, which
 * the matrix's own GET …/report.pdf cases make (the audit door's test then sees them).
 */
const STREAM_KINDS_NOT_IN_WORLD = ['usage', 'psdexport', 'pdfreport'];

/** The MCP tools (spec 1 and 5.4: API keys as bearer tokens, a keyless free tier). */
interface ToolRule {
  /** 'keyless': the free tier may call it; 'key': an API key (or session token) is required. */
  access: 'keyless' | 'key';
  /** Changes something: a read-scoped key is refused. */
  write: boolean;
  /** Names a verification: others' are 404, an anonymous one is `onAnonymous` for accounts. */
  scoped?: boolean;
  onAnonymous?: Outcome;
  /** A keyless caller must name its anonymous user to read (lists). */
  needsAnonymousId?: boolean;
  allowed?: Outcome;
}

const EXPECTED_TOOLS: Record<string, ToolRule> = {
  verify_image:         { access: 'keyless', write: true },
  verify_pair:          { access: 'keyless', write: true, allowed: 'invalid' }, // not a RAW: the file checks refuse it
  create_upload:        { access: 'keyless', write: true },
  get_verification:     { access: 'keyless', write: false, scoped: true },
  list_verifications:   { access: 'keyless', write: false, needsAnonymousId: true },
  get_share:            { access: 'keyless', write: false, scoped: true, onAnonymous: '403' },
  share_verification:   { access: 'keyless', write: true, scoped: true, onAnonymous: '403' },
  unshare_verification: { access: 'keyless', write: true, scoped: true, onAnonymous: '403' },
  get_account_usage:    { access: 'key', write: false },
  export_psd:           { access: 'key', write: true, scoped: true, allowed: 'invalid' }, // image-only: VALIDATION_ERROR
  get_upgrade_link:     { access: 'key', write: false },
};

// ---------------------------------------------------------------------------------------------

const A_CALLERS: PrincipalName[] = ['ownerJwt', 'ownerKey', 'ownerKeyAsBearer', 'readKey', 'member', 'admin'];
const ANONYMOUS_PROBES: PrincipalName[] = ['ownerJwt', 'ownerKey', 'member', 'otherJwt', 'anonymous', 'none'];

/** Which targets an operation is sent against, and by whom: A's resources by everyone; B's and the anonymous user's by those it tells apart. */
function targetsOf(operation: string, rule: Rule | ToolRule): { target: Target; callers: readonly PrincipalName[] }[] {
  if (operation.includes('/shared/')) return [{ target: 'A', callers: principalNames }, { target: 'restricted', callers: principalNames }];
  const scoped = 'foreign' in rule ? rule.foreign !== undefined : (rule as ToolRule).scoped;
  if (!scoped) return [{ target: 'A', callers: principalNames }];
  const byVerification = operation.includes('{verification_id}') || !operation.includes(' ');
  return [
    { target: 'A', callers: principalNames },
    { target: 'B', callers: A_CALLERS },
    ...(byVerification ? [{ target: 'anonymous' as const, callers: ANONYMOUS_PROBES }] : []),
  ];
}

function expectedRest(operation: string, rule: Rule, p: Principal, target: Target, world: World): Outcome {
  const except = rule.except?.[p.name];
  if (except) return except;
  const method = operation.split(' ')[0]!;
  const allowed = rule.allowed ?? 'ok';
  if (p.credential === 'invalid') return rule.ignoresCredentials ? allowed : '401';
  if (p.scope === 'read' && method !== 'GET') return '403';
  if (rule.auth === 'public') return operation.startsWith('GET /shared/') && target === 'restricted' ? restrictedReport(p) : allowed;
  if (p.credential === 'none') return '401';
  if (rule.auth === 'jwt' && p.credential === 'key') return '403';
  const outcome = asAccountCaller(rule, p, target, world);
  return rule.changesOnRead && p.scope === 'read' && p.account === targetAccount(target) && outcome === allowed ? '403' : outcome;
}

/** The cases of one operation: its targets; the audit door's once per stream kind the target account holds (STREAM_KINDS). */
function casesOf(operation: string, rule: Rule, world: World): { target: Target; callers: readonly PrincipalName[]; kind?: string }[] {
  const targets = targetsOf(operation, rule);
  if (operation !== AUDIT_STREAM) return targets;
  return Object.keys(STREAM_KINDS).flatMap((kind) => targets.filter(({ target }) => (target === 'B' ? world.B : world.A).streams[kind]).map((t) => ({ ...t, kind })));
}

/** An admitted caller: another account's resource, then who within the account may act. */
function asAccountCaller(rule: Rule, p: Principal, target: Target, world: World): Outcome {
  if (rule.foreign) {
    const owner = targetAccount(target);
    if (owner === null) return rule.onAnonymous ?? rule.foreign;
    if (p.account !== owner) return rule.foreign;
  }
  return withinAccount(rule, p, world.A.owner.userId);
}

/** Who within the account may act on a resource whose author (a comment's, a key's) is `authorId`. */
function withinAccount(rule: Rule, p: Principal, authorId: string): Outcome {
  const allowed = rule.allowed ?? 'ok';
  const author = p.userId === authorId;
  switch (rule.who) {
    case 'admin':
      if (p.role !== 'admin') return '403';
      break;
    case 'author':
      if (!author) return '403';
      break;
    case 'authorOrAdmin':
      if (!author && p.role !== 'admin') return '403';
      break;
    case 'ownKeyOrAdmin': // the key under test is the owner's (an admin's)
      if (!author && p.role !== 'admin') return '404';
      break;
    case undefined: // anyone in the account
      break;
  }
  return allowed;
}

/** A web app route, as the caller's browser: the sign-in pages for all; the rest as the API's rules for a signed-in user. */
function expectedPage(operation: string, rule: Rule, p: Principal, target: Target, world: World): Outcome {
  const except = rule.except?.[p.name];
  if (except) return except;
  // The REST door's own rule before the app's: a read-scoped key (sent along by its holder) changes nothing.
  if (p.scope === 'read' && !operation.startsWith('GET ')) return '403';
  if (rule.auth === 'browser') return rule.allowed ?? 'ok';
  if (!p.browser.signedIn) return 'signIn';
  return asAccountCaller(rule, p, target, world);
}

function expectedTool(rule: ToolRule, p: Principal, target: Target): Outcome {
  if (p.credential === 'invalid' && p.name !== 'anonymous') return '401'; // refused by POST /mcp itself
  const allowed = rule.allowed ?? 'ok';
  if (p.credential === 'none' || p.name === 'anonymous') {
    if (rule.access === 'key') return '401';
    const hasId = p.name === 'anonymous';
    if (rule.scoped) return !hasId ? '401' : target === 'anonymous' ? (rule.onAnonymous ?? allowed) : '404';
    return rule.needsAnonymousId && !hasId ? '401' : allowed;
  }
  if (p.scope === 'read' && rule.write) return '403';
  if (rule.scoped) {
    const owner = targetAccount(target);
    if (owner === null) return rule.onAnonymous ?? '404';
    if (p.account !== owner) return '404';
  }
  return allowed;
}

// ---------------------------------------------------------------------------------------------

interface Finding {
  case: string;
  problem: string;
}

/** Events recorded for an account (its streams' events carry its id in their metadata). */
async function eventsOf(world: World, accountId: string): Promise<number> {
  const rows = await world.t.service.deps.knex('events').whereRaw("metadata->>'account_id' = ?", [accountId]).count<{ count: string }[]>('* as count');
  return Number(rows[0]?.count ?? 0);
}

/** Guards the other accounts' streams around each case; waits for an account's own background work only after it changed something. */
class ForeignWrites {
  private readonly dirty = new Set<AccountName>(['A', 'B']);
  constructor(private readonly world: World) {}

  markDirty(...accounts: (AccountName | null)[]) {
    for (const a of accounts) if (a) this.dirty.add(a);
  }

  async snapshot(accounts: AccountName[]): Promise<Map<AccountName, number>> {
    if (accounts.some((a) => this.dirty.has(a))) {
      await this.world.t.settled();
      this.dirty.clear();
    }
    const counts = new Map<AccountName, number>();
    for (const a of accounts) counts.set(a, await eventsOf(this.world, this.idOf(a)));
    return counts;
  }

  async changed(before: Map<AccountName, number>): Promise<string[]> {
    const changed: string[] = [];
    for (const [a, count] of before) {
      const now = await eventsOf(this.world, this.idOf(a));
      if (now !== count) changed.push(`account ${a}: ${count} -> ${now} events`);
    }
    return changed;
  }

  private idOf(a: AccountName) {
    return a === 'C' ? this.world.C.accountId : this.world[a].accountId;
  }
}

const describeAnswer = (answer: RawAnswer) => {
  if (answer.status >= 300 && answer.status < 400) return `${answer.status} to ${answer.headers.get('location')}`;
  let code = '';
  try {
    code = (JSON.parse(answer.text) as { detail?: { error_code?: string } }).detail?.error_code ?? '';
  } catch {
    code = answer.text.includes('<html') ? 'html' : '';
  }
  return `${answer.status}${code ? ` ${code}` : ''}`;
};

for (const target of databaseTargets) {
  describe(`authorisation matrix on ${target.name}`, () => {
    let world: World;
    let markers: Marker[];

    beforeAll(async () => {
      world = await buildWorld(target);
      markers = markersOf(world);
    }, 300_000);
    afterAll(async () => world?.t.stop());

    it('the checks can see what they look for: each party’s data in its own answers, and its events as they are recorded', async () => {
      for (const [party, name, stranger] of [['A', 'ownerJwt', 'otherJwt'], ['B', 'otherJwt', 'ownerJwt']] as const) {
        const owner = world.principal(name);
        const verification = await send(world.t.url, { method: 'GET', path: `/v1/verifications/${world[party].verification}`, headers: owner.headers() });
        const me = await send(world.t.url, { method: 'GET', path: '/v1/accounts/me', headers: owner.headers() });
        const found = leaksIn(`${readable(verification)}\n${readable(me)}`, markers, world.principal(stranger), '');
        // Shown to someone else, the owner's answers would be reported: ids, names, addresses and file hashes.
        expect(new Set(found.filter((m) => m.party === party).map((m) => m.kind))).toEqual(new Set(['id', 'name', 'email', 'hash']));
        const before = await eventsOf(world, world[party].accountId);
        // The app's page of it, in the owner's browser: the same data, so a page shown to another would be reported too.
        const page = await send(world.t.url, { method: 'GET', path: `/app/verifications/${world[party].verification}`, headers: { cookie: owner.browser.cookie } });
        expect(page.status).toBe(200);
        const onPage = leaksIn(readable(page), markers, world.principal(stranger), '');
        // (and the share link's token: a secret of the owner's, shown to the owner)
        expect([...new Set(onPage.filter((m) => m.party === party).map((m) => m.kind))]).toEqual(expect.arrayContaining(['id', 'name', 'hash', 'secret']));
        const tagged = await send(world.t.url, { method: 'POST', path: '/v1/tags/', headers: owner.headers(), json: { name: `seen-${party}-${Date.now()}` } });
        expect(tagged.status).toBe(201);
        expect(await eventsOf(world, world[party].accountId)).toBeGreaterThan(before);
      }
    });

    it('every operation of /openapi.json, as every caller, answers as the table says, shows no other party’s data and changes nothing of another account', async () => {
      const doc = (await (await fetch(`${world.t.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
      const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`));
      const unlisted = operations.filter((op) => !EXPECTED[op]);
      expect(unlisted, 'operations of /openapi.json with no row in the EXPECTED table: add them').toEqual([]);
      expect(Object.keys(EXPECTED).filter((op) => !operations.includes(op)), 'rows of the table that /openapi.json no longer documents').toEqual([]);
      const held = new Set([...Object.keys(world.A.streams), ...Object.keys(world.B.streams)]);
      expect([...held].filter((kind) => !STREAM_KINDS[kind]), 'stream kinds the accounts hold with no row in STREAM_KINDS: add them').toEqual([]);
      expect(Object.keys(STREAM_KINDS).filter((kind) => !held.has(kind)), 'rows of STREAM_KINDS no account of the world holds a stream of').toEqual(STREAM_KINDS_NOT_IN_WORLD);
      const app = operations.filter((op) => / \/app(\/|$)/.test(op));
      expect(app.filter((op) => !isPage(EXPECTED[op]!)), 'web app routes whose row is not appPage(), appOwned() or appPublic(): they are driven as browsers').toEqual([]);
      expect(app.length).toBeGreaterThanOrEqual(6);

      const findings: Finding[] = [];
      const guard = new ForeignWrites(world);
      let requests = 0;
      let cases = 0;
      let pages = 0;
      let pagesMs = 0;
      const slowest = new Map<string, number>();
      // Each caller's browser visits the app first, signing out last: its sessions are then the ones opened in the world's
      // set-up (the demoted admin's while still an admin) until the REST rows change the password (browsers.ts signs in again).
      const rank = (op: string) => (op === 'POST /app/logout' ? 1 : isPage(EXPECTED[op]!) ? 0 : 2);
      const sequence = [...operations].sort((a, b) => rank(a) - rank(b));
      // Caller by caller: an account's own changes are settled before another account's check looks at it.
      for (const name of principalNames) {
        const p = world.principal(name);
        for (const operation of sequence) {
          const row = EXPECTED[operation]!;
          for (const { target: t, callers, kind } of casesOf(operation, row, world)) {
            if (!callers.includes(name)) continue;
            const rule = kind ? STREAM_KINDS[kind]! : row;
            // A browser without a session is sent to sign in before any id is read: A's resources show it; B's and the anonymous one's would repeat it.
            if (isPage(rule) && t !== 'A' && !p.browser.signedIn) continue;
            cases += 1;
            const label = `${operation}${kind ? ` (${kind})` : ''} [${t}] as ${name}`;
            const page = isPage(rule);
            const started = performance.now();
            const expected = page ? expectedPage(operation, rule, p, t, world) : expectedRest(operation, rule, p, t, world);
            const request = await (page ? buildPageRequest(world, operation, rule, t, p, expected === 'ok') : buildRequest(world, operation, t, p, expected === 'ok', kind)).catch((error: Error) => error);
            if (request instanceof Error) {
              findings.push({ case: label, problem: `set-up failed: ${request.message}` });
              continue;
            }
            const foreign = (['A', 'B'] as const).filter((a) => a !== p.account && !(rule.recordsForOwner && (expected === 'ok' || expected === 'invalid') && a === 'A'));
            const before = await guard.snapshot(foreign);
            const answer = await send(world.t.url, request);
            requests += 1;
            request.after?.(answer.status, answer.text);
            const got = page ? pageOutcomeOf(answer) : outcomeOf(answer.status);
            if (got !== expected) findings.push({ case: label, problem: `expected ${expected}, got ${describeAnswer(answer)}` });
            if (answer.status >= 500) findings.push({ case: label, problem: `server error ${answer.status}` });
            if (page) {
              pages += 1;
              p.browser.saw(answer.headers.getSetCookie());
              for (const problem of appAnswerProblems(answer.headers, answer.status, answer.text)) findings.push({ case: label, problem: `headers: ${problem}` });
            }
            const sent = `${request.path} ${JSON.stringify(request.json ?? '')} ${JSON.stringify(request.urlencoded ?? '')} ${JSON.stringify(request.headers)}`;
            const leaks = leaksIn(readable(answer), markers, p, sent, got === 'ok' ? rule.shows : undefined);
            if (leaks.length) findings.push({ case: label, problem: `shows ${leaks.map((l) => `${l.party}'s ${l.kind} ${l.value.slice(0, 16)}`).join(', ')}` });
            for (const change of await guard.changed(before)) findings.push({ case: label, problem: `changed another account: ${change}` });
            if (got === 'ok' && request.method !== 'GET') guard.markDirty(...(p.account ? [p.account] : (['A', 'B'] as const)));
            if (expected === 'ok' && request.method !== 'GET') guard.markDirty(targetAccount(t));
            if (rule.recordsForOwner) guard.markDirty('A');
            if (page) {
              pagesMs += performance.now() - started;
              slowest.set(operation, (slowest.get(operation) ?? 0) + performance.now() - started);
            }
          }
        }
      }
      console.log(`authorisation matrix (REST, ${target.name}): ${operations.length} operations x ${principalNames.length} callers -> ${cases} cases, ${requests} requests (${pages} of them web app pages, as browsers: ${(pagesMs / 1000).toFixed(1)} s of the run)`);
      console.log(`slowest app routes: ${[...slowest].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([op, ms]) => `${op} ${(ms / 1000).toFixed(1)} s`).join('; ')}`);
      expect(findings.map((f) => `${f.case}: ${f.problem}`)).toEqual([]);
    }, 1_800_000);

    it('every MCP tool, as every caller, answers as the table says and shows no other party’s data', async () => {
      const listed = async (headers: Record<string, string>) => {
        const answer = await rpc(world.t.url, headers, 'tools/list', {});
        expect(answer.status, answer.text).toBe(200);
        return (answer.message!.result.tools as { name: string }[]).map((t) => t.name).sort();
      };
      // The same tools for everyone (the keyless tier learns what a key would add).
      const tools = await listed({});
      expect(await listed(world.principal('ownerKey').mcpHeaders())).toEqual(tools);
      expect(await listed(world.principal('readKey').mcpHeaders())).toEqual(tools);
      expect(tools.filter((tool) => !EXPECTED_TOOLS[tool]), 'MCP tools with no row in EXPECTED_TOOLS: add them').toEqual([]);
      expect(Object.keys(EXPECTED_TOOLS).filter((tool) => !tools.includes(tool)), 'rows of EXPECTED_TOOLS that tools/list no longer lists').toEqual([]);

      const findings: Finding[] = [];
      const guard = new ForeignWrites(world);
      let requests = 0;
      for (const name of principalNames) {
        const p = world.principal(name);
        for (const tool of tools) {
          const rule = EXPECTED_TOOLS[tool]!;
          for (const { target: t, callers } of targetsOf(tool, rule)) {
            if (!callers.includes(name)) continue;
            const label = `${tool} [${t}] as ${name}`;
            const expected = expectedTool(rule, p, t);
            const args = await toolArguments(world, tool, t, p, expected === 'ok').catch((error: Error) => error);
            if (args instanceof Error) {
              findings.push({ case: label, problem: `set-up failed: ${args.message}` });
              continue;
            }
            const foreign = (['A', 'B'] as const).filter((a) => a !== p.account);
            const before = await guard.snapshot(foreign);
            const answer = await rpc(world.t.url, p.mcpHeaders(), 'tools/call', { name: tool, arguments: args });
            requests += 1;
            let got: string;
            if (answer.status !== 200) got = outcomeOf(answer.status);
            else if (answer.message?.error) got = `protocol error ${answer.message.error.code}`;
            else if (answer.message?.result?.isError) {
              const error = JSON.parse(answer.message.result.content[0].text as string) as { error_code: string };
              got = outcomeOf(errorCatalogue[error.error_code] ?? 500);
              if (got !== expected) got = `${got} (${error.error_code})`;
            } else got = 'ok';
            if (got !== expected) findings.push({ case: label, problem: `expected ${expected}, got ${got}` });
            const leaks = leaksIn(readable(answer), markers, p, JSON.stringify(args) + JSON.stringify(p.mcpHeaders()));
            if (leaks.length) findings.push({ case: label, problem: `shows ${leaks.map((l) => `${l.party}'s ${l.kind} ${l.value.slice(0, 16)}`).join(', ')}` });
            for (const change of await guard.changed(before)) findings.push({ case: label, problem: `changed another account: ${change}` });
            if (got === 'ok' && rule.write) guard.markDirty(...(p.account ? [p.account] : []));
            if (expected === 'ok' && rule.write) guard.markDirty(targetAccount(t));
          }
        }
      }
      console.log(`authorisation matrix (MCP, ${target.name}): ${tools.length} tools x ${principalNames.length} callers -> ${requests} calls`);
      expect(findings.map((f) => `${f.case}: ${f.problem}`)).toEqual([]);
    }, 900_000);

    it('a member lists and revokes only their own API keys; an admin lists and revokes every key of the account, and no other account’s', async () => {
      const list = async (name: PrincipalName) => {
        const answer = await send(world.t.url, { method: 'GET', path: '/v1/apikeys/', headers: world.principal(name).headers() });
        expect(answer.status).toBe(200);
        return JSON.parse(answer.text) as { id: string; user_id: string; account_id: string }[];
      };
      const member = world.principal('member');
      const ofMember = await list('member');
      expect(ofMember.filter((k) => k.user_id !== member.userId), 'keys of other users shown to a member').toEqual([]);
      const ofAdmin = await list('admin');
      expect(ofAdmin.map((k) => k.id)).toContain(world.A.keyId);
      expect(ofAdmin.filter((k) => k.account_id !== world.A.accountId)).toEqual([]);

      // The matrix has a member revoke an admin's key (404); a member's own keys are theirs to revoke, and every key of the account is an admin's.
      const create = async () => {
        const created = await send(world.t.url, { method: 'POST', path: '/v1/apikeys/', headers: member.headers(), json: { account_id: world.A.accountId } });
        expect(created.status).toBe(201);
        return (JSON.parse(created.text) as { id: string }).id;
      };
      const own = await create();
      expect((await list('member')).map((k) => k.id)).toContain(own);
      expect((await send(world.t.url, { method: 'DELETE', path: `/v1/apikeys/${own}`, headers: member.headers() })).status).toBe(204);
      const another = await create();
      expect((await send(world.t.url, { method: 'DELETE', path: `/v1/apikeys/${another}`, headers: world.principal('admin').headers() })).status).toBe(204);
      expect((await send(world.t.url, { method: 'DELETE', path: `/v1/apikeys/${another}`, headers: world.principal('otherJwt').headers() })).status).toBe(404);
    });

    it('the audit door lists to each caller exactly the streams of its account that their kind’s row lets it read, counts only those, and answers 404 for the others', async () => {
      await world.t.settled();
      const knex = world.t.service.deps.knex;
      // A key's author is its user (the rows' `who`); every other kind's rule does not depend on one.
      const keyUsers = new Map((await knex('api_keys').select<{ id: string; user_id: string }[]>('id', 'user_id')).map((k) => [`apikey-${k.id}`, k.user_id]));
      const accountIds: Record<AccountName, string> = { A: world.A.accountId, B: world.B.accountId, C: world.C.accountId };
      const findings: string[] = [];
      let hiddenSeen = 0;
      for (const name of principalNames) {
        const p = world.principal(name);
        if (!p.account || p.credential === 'invalid') continue;
        const held = await knex('stream_owners').where({ account_id: accountIds[p.account] }).pluck<string[]>('stream');
        const mayRead = (stream: string) => {
          const rule = STREAM_KINDS[streamCategory(stream)];
          if (!rule) findings.push(`${stream}: a kind of stream with no row in STREAM_KINDS`);
          return rule !== undefined && withinAccount(rule, p, keyUsers.get(stream) ?? '') === 'ok';
        };
        const expected = held.filter(mayRead).sort();
        const listed: string[] = [];
        for (let offset = 0; ; offset += 100) {
          const answer = await send(world.t.url, { method: 'GET', path: `/v1/audit/streams?offset=${offset}&size=100`, headers: p.headers() });
          if (answer.status !== 200) {
            findings.push(`GET /v1/audit/streams as ${name}: ${describeAnswer(answer)}`);
            break;
          }
          const page = JSON.parse(answer.text) as { items: { stream: string }[]; total: number };
          if (page.total !== expected.length) findings.push(`GET /v1/audit/streams?offset=${offset} as ${name}: total ${page.total}, but it may read ${expected.length} streams`);
          listed.push(...page.items.map((i) => i.stream));
          if (page.items.length < 100) break;
        }
        const shown = new Set(listed);
        for (const stream of expected.filter((s) => !shown.has(s))) findings.push(`GET /v1/audit/streams as ${name}: ${stream} is not listed`);
        for (const stream of listed.filter((s) => !expected.includes(s))) findings.push(`GET /v1/audit/streams as ${name}: ${stream} is listed`);
        // Every stream of its account it may not read is 404 as an unknown one; one of each kind it may read opens.
        const hidden = held.filter((stream) => !expected.includes(stream));
        const oneOfEachKind = [...new Map(expected.map((stream) => [streamCategory(stream), stream])).values()];
        for (const [stream, status] of [...hidden.map((s) => [s, 404] as const), ...oneOfEachKind.map((s) => [s, 200] as const)]) {
          const answer = await send(world.t.url, { method: 'GET', path: `/v1/audit/streams/${stream}`, headers: p.headers() });
          if (answer.status !== status || (status === 404 && !answer.text.includes('STREAM_NOT_FOUND'))) findings.push(`GET /v1/audit/streams/${stream} as ${name}: expected ${status}, got ${describeAnswer(answer)}`);
        }
        if (p.role === 'member') hiddenSeen += hidden.length;
      }
      // The check can see what it looks for: the members were kept from the admins' keys' streams.
      expect(hiddenSeen).toBeGreaterThan(0);
      expect(findings).toEqual([]);
    }, 600_000);
  });
}
