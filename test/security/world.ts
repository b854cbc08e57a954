import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SignJWT } from 'jose';
import { streamCategory } from '../../src/core/es/streams.js';
import { emailClaimStream } from '../../src/features/accounts/decider.js';
import { findInvite } from '../../projections/sharing/queries.js';
import { linkKey, linkToken } from '../../src/features/sharing/tokens.js';
import { SkewedClock } from '../support/clock.js';
import type { DatabaseTarget } from '../support/databases.js';
import { inline, keylessVerify } from '../support/mcp.js';
import { client, registerAccount, startTestService, uploadImage, type TestService } from '../support/service.js';
import { endingBrowser, forgedBrowser, signedOutBrowser, userBrowser, type Browser } from './browsers.js';
import { rpc, send } from './http.js';

/**
 * The cast of the authorisation matrix: three accounts (A owns the resources under test, B is
 * another account, C holds the invitee of A's restricted share), an anonymous keyless user, and
 * every kind of caller the service must tell apart, each with the credentials it sends.
 */

export const fixtures = path.resolve(import.meta.dirname, '../../../shared/fixtures');
export const fixture = (file: string) => fs.readFileSync(path.join(fixtures, file));

/** Files of the stable resources: each account's differ, so a file hash names one account. */
const FILE_A = 'images/rs_sample1.webp';
const FILE_B = 'images/pp_IMG_4120.JPG';
const FILE_ANONYMOUS = 'images/pp_IMG_E4120.JPG';
/** What the matrix itself uploads (any account may): a hash that is nobody's marker. */
export const MATRIX_FILE = 'images/exifr_png_with_exif_and_gps.png';

export type AccountName = 'A' | 'B' | 'C';

export const principalNames = [
  'ownerJwt',
  'ownerKey',
  'ownerKeyAsBearer',
  'readKey',
  'member',
  'admin',
  'demotedAdmin',
  'otherJwt',
  'otherKey',
  'invitee',
  'linkVisitor',
  'inviteLinkHolder',
  'anonymous',
  'none',
  'expiredKey',
  'revokedKey',
  'removedUserJwt',
  'removedUserKey',
  'expiredJwt',
  'forgedJwt',
  'algNoneJwt',
] as const;
export type PrincipalName = (typeof principalNames)[number];

export interface Principal {
  name: PrincipalName;
  /** The account it acts for (null: no account). */
  account: AccountName | null;
  /** 'invalid': credentials are sent but must be refused (expired, revoked, forged, an anonymous id). */
  credential: 'jwt' | 'key' | 'none' | 'invalid';
  role?: 'admin' | 'member';
  scope?: 'full' | 'read';
  /** The user it acts as (comment authorship, own keys). */
  userId?: string;
  /** Its REST headers now (a password change replaces a session token). */
  headers(): Record<string, string>;
  /** Its MCP headers (API keys and session tokens as bearer; the anonymous user sends none). */
  mcpHeaders(): Record<string, string>;
  /** A session's login, for the password change. */
  login?: { email: string; password: string; token: string };
  /**
   * How it reaches the web app (/app), which takes its session cookie only: a user of an
   * account signs in through the app's sign-in form; every other caller is a signed-out browser
   * (sending its header credentials too), or one whose session has ended or was forged.
   */
  browser: Browser;
}

export interface AccountResources {
  accountId: string;
  accountName: string;
  /** The admin who created everything below. */
  owner: { userId: string; email: string; name: string; password: string; token: string };
  users: { userId: string; email: string; name: string }[];
  /** Stable verifications: shared by link, shared restricted, and a sandbox for share and tag changes. */
  verification: string;
  restricted: string;
  sandbox: string;
  tag: { id: string; name: string };
  comment: string;
  /** A verification request (its token is one of the account's secrets). */
  request: string;
  /** Its token: the provider page's credential (the /r/{request_token} routes). */
  requestToken: string;
  keyId: string;
  linkToken: string;
  restrictedToken: string;
  /** A pre-signed download of the verification's thumbnail: path and query. */
  blobPath: string;
  fileHashes: string[];
  /** Raw secrets of the account (keys, session tokens, share tokens, invitation proofs). */
  secrets: string[];
  /**
   * One event stream of every kind the account holds, by category (the audit door's rows, per
   * stream kind): `apikey` is the spare key's (its admin owner's, not a member's), `email` the
   * owner's address claim (no account's history).
   */
  streams: Record<string, string>;
}

export interface World {
  t: TestService;
  clock: SkewedClock;
  A: AccountResources;
  B: AccountResources;
  C: { accountId: string; accountName: string; userId: string; email: string; name: string; token: string };
  anonymous: { userId: string; verification: string; fileHashes: string[] };
  /** The proof of the invitation link mailed to an address without an account. */
  inviteProof: string;
  guestEmail: string;
  principals: Principal[];
  principal(name: PrincipalName): Principal;
  docsAsset: string;
  /** An owner's full API key (REST and MCP set-up calls). */
  ownerKey: string;
}

const unique = () => crypto.randomBytes(4).toString('hex');

export async function buildWorld(target: DatabaseTarget): Promise<World> {
  const clock = new SkewedClock();
  const t = await startTestService(
    target,
    {
      // The matrix sends thousands of requests from one address: the per-address limits are other suites' subject.
      ANONYMOUS_UPLOADS_PER_HOUR: '100000',
      CLAIM_ATTEMPTS_PER_15_MIN: '100000',
      LOGIN_RATE_LIMIT_PER_15_MIN: '100000',
      // The browsers signed in at set-up wait their turn for as long as the matrix runs; the clock's two-day move still ends the expiring one.
      APP_SESSION_IDLE_SECONDS: String(6 * 3600),
      // Uploads through a request's link are limited per address by a constant: the matrix names a client address of its own for each (requests.ts).
      TRUST_PROXY: 'loopback',
    },
    { clock },
  );
  const call = client(t.url);
  const json = async (method: string, route: string, token: string, body?: unknown, expected = [200, 201]) => {
    const res = await call(method, route, { token, json: body });
    if (!expected.includes(res.status)) throw new Error(`${method} ${route} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  };

  // A session token and an API key issued now, then two days pass: the one-day key and the one-hour token have expired.
  const a = await registerAccount(call, {
    name: `Victim Ateliers ${unique()}`,
    admin: { email: `olivia-${unique()}@victim.example`, name: `Olivia Victim ${unique()}`, password: 'olivia long password' },
  });
  const expiringKey = await json('POST', '/v1/apikeys/', a.token, { account_id: a.account.id, expires_in_days: 1 });
  const expiredJwt = a.token;
  // The app's session of the same day: it ends with the clock's move as well (idle, and past its absolute lifetime).
  const expiredBrowser = await endingBrowser(t.url, { email: a.email, password: a.password });
  clock.advance(2 * 86_400_000 + 60_000);
  const relogin = async (email: string, password: string) => (await json('POST', '/v1/accounts/login', '', { email, password })).access_token as string;
  const ownerLogin = { email: a.email, password: a.password, token: await relogin(a.email, a.password) };

  const ownerKey = await json('POST', '/v1/apikeys/', ownerLogin.token, { account_id: a.account.id, description: 'matrix full' });
  const readKey = await json('POST', '/v1/apikeys/', ownerLogin.token, { account_id: a.account.id, description: 'matrix read', scope: 'read' });
  const revokedKey = await json('POST', '/v1/apikeys/', ownerLogin.token, { account_id: a.account.id });
  await json('DELETE', `/v1/apikeys/${revokedKey.id}`, ownerLogin.token, undefined, [204]);

  const addUser = async (role: 'admin' | 'member', name: string) => {
    const email = `${role}-${unique()}@victim.example`;
    const password = `${role} long password`;
    const added = await json('POST', `/v1/accounts/${a.account.id}/users`, ownerLogin.token, { email, name, password, role });
    return { userId: added.id as string, email, name, login: { email, password, token: await relogin(email, password) } };
  };
  const member = await addUser('member', `Mia Member ${unique()}`);
  const admin = await addUser('admin', `Adam Admin ${unique()}`);
  // Changes to users apply at once: a token minted while an admin (its claims say so) acts as the member the user now is,
  // and a removed user's session token and API key are refused.
  const demoted = await addUser('admin', `Dana Demoted ${unique()}`);
  // The app's session too was opened while an admin.
  const demotedBrowser = await userBrowser(t.url, demoted.login);
  await json('PATCH', `/v1/accounts/${a.account.id}/users/${demoted.userId}`, ownerLogin.token, { role: 'member' });
  const removed = await addUser('member', `Rex Removed ${unique()}`);
  const removedKey = await json('POST', '/v1/apikeys/', removed.login.token, { account_id: a.account.id });
  const removedBrowser = await endingBrowser(t.url, removed.login);
  await json('DELETE', `/v1/accounts/${a.account.id}/users/${removed.userId}`, ownerLogin.token, undefined, [204]);

  const b = await registerAccount(call, {
    name: `Other Corp ${unique()}`,
    admin: { email: `bruno-${unique()}@other.example`, name: `Bruno Other ${unique()}`, password: 'bruno long password' },
  });
  const otherKey = await json('POST', '/v1/apikeys/', b.token, { account_id: b.account.id });
  const c = await registerAccount(call, {
    name: `Invitee Press ${unique()}`,
    admin: { email: `ines-${unique()}@invitee.example`, name: `Ines Invitee ${unique()}`, password: 'ines long password' },
  });

  const resources = async (
    owner: { account: { id: string; name: string }; user: { id: string; name: string }; email: string; password: string },
    token: string,
    file: string,
    users: AccountResources['users'],
    secrets: string[],
  ): Promise<AccountResources> => {
    const verification = await uploadImage(t.url, token, file);
    const restricted = await uploadImage(t.url, token, file);
    const sandbox = await uploadImage(t.url, token, file);
    const tagName = `matrix-${unique()}`;
    const tag = await json('POST', '/v1/tags/', token, { name: tagName });
    await json('PUT', `/v1/verifications/${verification}/tags`, token, { tags: [tagName] });
    const comment = await json('POST', `/v1/verifications/${verification}/comments`, token, { body: 'The first comment.' });
    const link = await json('POST', `/v1/verifications/${verification}/share`, token, { access_type: 'anyone_with_link' });
    const closed = await json('POST', `/v1/verifications/${restricted}/share`, token, { access_type: 'restricted' });
    // In capture mode: its link's capture calls issue challenges (an existing_original request refuses them).
    const request = await json('POST', '/v1/requests', token, { subject: 'The matrix asks', mode: 'capture', expires_at: new Date(clock.now().getTime() + 365 * 86_400_000).toISOString() });
    await t.settled();
    const view = await json('GET', `/v1/verifications/${verification}`, token);
    const thumbnail = await call('GET', `/v1/verifications/${verification}/renditions/thumbnail`, { token });
    if (thumbnail.status !== 302) throw new Error(`no thumbnail: ${thumbnail.status}`);
    const location = new URL(thumbnail.headers.get('location')!, t.url);
    const linkToken = tokenOf(link.share_url);
    const restrictedToken = tokenOf(closed.share_url);
    return {
      accountId: owner.account.id,
      accountName: owner.account.name,
      owner: { userId: owner.user.id, email: owner.email, name: owner.user.name, password: owner.password, token },
      users,
      verification,
      restricted,
      sandbox,
      tag: { id: tag.id, name: tagName },
      comment: comment.id,
      request: request.id,
      requestToken: request.token,
      keyId: '',
      linkToken,
      restrictedToken,
      blobPath: `${location.pathname}${location.search}`,
      fileHashes: hashesOf(view),
      secrets: [...secrets, token, linkToken, restrictedToken, request.token],
      streams: {},
    };
  };

  const A = await resources(a, ownerLogin.token, FILE_A, [
    { userId: member.userId, email: member.email, name: member.name },
    { userId: admin.userId, email: admin.email, name: admin.name },
    { userId: demoted.userId, email: demoted.email, name: demoted.name },
    { userId: removed.userId, email: removed.email, name: removed.name },
  ], [ownerKey.raw_key, readKey.raw_key, revokedKey.raw_key, expiringKey.raw_key, expiredJwt, member.login.token, admin.login.token, demoted.login.token, removed.login.token, removedKey.raw_key]);
  // The key others try to revoke is one no caller of the matrix uses: a wrongful revocation shows up as a finding, not as a broken caller.
  const spareA = await json('POST', '/v1/apikeys/', ownerLogin.token, { account_id: a.account.id, description: 'spare' });
  A.keyId = spareA.id;
  A.secrets.push(spareA.raw_key);
  const B = await resources(b, b.token, FILE_B, [], [otherKey.raw_key]);
  const spareB = await json('POST', '/v1/apikeys/', b.token, { account_id: b.account.id, description: 'spare' });
  B.keyId = spareB.id;
  B.secrets.push(spareB.raw_key);

  // The invitee: a user of account C invited to A's restricted share, and an address without an account.
  const guestEmail = `guest-${unique()}@guest.example`;
  await json('POST', `/v1/verifications/${A.restricted}/share/invites`, ownerLogin.token, { email: c.email });
  await json('POST', `/v1/verifications/${A.restricted}/share/invites`, ownerLogin.token, { email: guestEmail });
  const invite = await findInvite(t.service.deps.knex, A.restricted, guestEmail);
  const inviteProof = linkToken(linkKey(t.dataDir), 'invite', A.restricted, invite!.nonce);
  A.secrets.push(inviteProof);

  // A capture challenge, an upload and a view of the shared report of each account's own: their streams join the audit door's rows.
  for (const [token, key, account] of [[ownerLogin.token, ownerKey.raw_key, A], [b.token, otherKey.raw_key, B]] as const) {
    await json('POST', '/capture/challenge', token);
    const uploaded = await send(t.url, { method: 'PUT', path: await presignedUpload(t.url, key), bytes: new Uint8Array(fixture(MATRIX_FILE)) });
    if (uploaded.status >= 300) throw new Error(`set-up upload answered ${uploaded.status}: ${uploaded.text}`);
    const viewed = await send(t.url, { method: 'GET', path: `/shared/${account.linkToken}` });
    if (viewed.status !== 200) throw new Error(`set-up view of a shared report answered ${viewed.status}`);
  }

  const keyless = await keylessVerify(t.url, { image: fixture(FILE_ANONYMOUS), imageName: 'keyless.jpg' });
  if (!keyless.output) throw new Error(`keyless verification failed: ${JSON.stringify(keyless.error)}`);
  const anonymousUserId = keyless.output.anonymous_user_id as string;
  await t.settled();

  A.streams = await streamsOf(t, A.accountId, { apikey: `apikey-${A.keyId}`, email: emailClaimStream(A.owner.email) });
  B.streams = await streamsOf(t, B.accountId, { apikey: `apikey-${B.keyId}`, email: emailClaimStream(B.owner.email) });

  const docs = await send(t.url, { method: 'GET', path: '/docs' });
  const docsAsset = /\/docs\/assets\/([A-Za-z0-9._-]+)/.exec(docs.text)?.[1];
  if (!docsAsset) throw new Error('the reference page links no asset');

  const secret = t.service.deps.jwtSecret;
  const claims = { acc: a.account.id, role: 'admin', pwd: 0 };
  const now = Math.floor(clock.now().getTime() / 1000);
  const signed = (key: Uint8Array) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setSubject(a.user.id).setIssuer('photoverify').setAudience('photoverify-api').setIssuedAt(now).setExpirationTime(now + 3600).sign(key);
  const forgedJwt = await signed(crypto.randomBytes(32));
  // An unsecured JWT (RFC 7519 section 6): header alg "none", the same claims, an empty signature.
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const algNoneJwt = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...claims, sub: a.user.id, iss: 'photoverify', aud: 'photoverify-api', iat: now, exp: now + 3600 })}.`;
  if (!secret.length) throw new Error('no JWT secret');

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const session = (login: { token: string }) => () => bearer(login.token);
  const cLogin = { email: c.email, password: c.password, token: c.token };
  const bLogin = { email: b.email, password: b.password, token: b.token };
  // The app's browsers: the users sign in through the sign-in form (the owner with the password of now).
  const [ownerBrowser, memberBrowser, adminBrowser, otherBrowser, inviteeBrowser, forgedJwtBrowser, algNoneJwtBrowser] = await Promise.all([
    userBrowser(t.url, ownerLogin),
    userBrowser(t.url, member.login),
    userBrowser(t.url, admin.login),
    userBrowser(t.url, bLogin),
    userBrowser(t.url, cLogin),
    forgedBrowser(t.url, t.service.deps, forgedJwt),
    forgedBrowser(t.url, t.service.deps, algNoneJwt),
  ]);
  const signedOut = await Promise.all(Array.from({ length: 11 }, () => signedOutBrowser(t.url)));
  const out = () => signedOut.pop()!;
  A.secrets.push(...[ownerBrowser, memberBrowser, adminBrowser, demotedBrowser, removedBrowser, expiredBrowser].map((x) => x.token!));
  B.secrets.push(otherBrowser.token!);

  const principals: Principal[] = [
    { name: 'ownerJwt', account: 'A', credential: 'jwt', role: 'admin', userId: a.user.id, headers: session(ownerLogin), mcpHeaders: session(ownerLogin), login: ownerLogin, browser: ownerBrowser },
    { name: 'ownerKey', account: 'A', credential: 'key', role: 'admin', userId: a.user.id, headers: () => ({ 'x-api-key': ownerKey.raw_key }), mcpHeaders: () => ({ 'x-api-key': ownerKey.raw_key }), browser: out() },
    { name: 'ownerKeyAsBearer', account: 'A', credential: 'key', role: 'admin', userId: a.user.id, headers: () => bearer(ownerKey.raw_key), mcpHeaders: () => bearer(ownerKey.raw_key), browser: out() },
    { name: 'readKey', account: 'A', credential: 'key', role: 'admin', scope: 'read', userId: a.user.id, headers: () => ({ 'x-api-key': readKey.raw_key }), mcpHeaders: () => bearer(readKey.raw_key), browser: out() },
    { name: 'member', account: 'A', credential: 'jwt', role: 'member', userId: member.userId, headers: session(member.login), mcpHeaders: session(member.login), login: member.login, browser: memberBrowser },
    { name: 'admin', account: 'A', credential: 'jwt', role: 'admin', userId: admin.userId, headers: session(admin.login), mcpHeaders: session(admin.login), login: admin.login, browser: adminBrowser },
    { name: 'demotedAdmin', account: 'A', credential: 'jwt', role: 'member', userId: demoted.userId, headers: session(demoted.login), mcpHeaders: session(demoted.login), login: demoted.login, browser: demotedBrowser },
    { name: 'otherJwt', account: 'B', credential: 'jwt', role: 'admin', userId: b.user.id, headers: session(bLogin), mcpHeaders: session(bLogin), login: bLogin, browser: otherBrowser },
    { name: 'otherKey', account: 'B', credential: 'key', role: 'admin', userId: b.user.id, headers: () => ({ 'x-api-key': otherKey.raw_key }), mcpHeaders: () => bearer(otherKey.raw_key), browser: out() },
    { name: 'invitee', account: 'C', credential: 'jwt', role: 'admin', userId: c.user.id, headers: session(cLogin), mcpHeaders: session(cLogin), login: cLogin, browser: inviteeBrowser },
    { name: 'linkVisitor', account: null, credential: 'none', headers: () => ({}), mcpHeaders: () => ({}), browser: out() },
    { name: 'inviteLinkHolder', account: null, credential: 'none', headers: () => ({}), mcpHeaders: () => ({}), browser: out() },
    // REST knows no anonymous users: its id sent as a bearer token must be refused like any unknown token.
    { name: 'anonymous', account: null, credential: 'invalid', headers: () => bearer(anonymousUserId), mcpHeaders: () => ({}), browser: out() },
    { name: 'none', account: null, credential: 'none', headers: () => ({}), mcpHeaders: () => ({}), browser: out() },
    { name: 'expiredKey', account: null, credential: 'invalid', headers: () => ({ 'x-api-key': expiringKey.raw_key }), mcpHeaders: () => bearer(expiringKey.raw_key), browser: out() },
    { name: 'revokedKey', account: null, credential: 'invalid', headers: () => ({ 'x-api-key': revokedKey.raw_key }), mcpHeaders: () => bearer(revokedKey.raw_key), browser: out() },
    { name: 'removedUserJwt', account: null, credential: 'invalid', headers: session(removed.login), mcpHeaders: session(removed.login), browser: removedBrowser },
    { name: 'removedUserKey', account: null, credential: 'invalid', headers: () => ({ 'x-api-key': removedKey.raw_key }), mcpHeaders: () => bearer(removedKey.raw_key), browser: out() },
    { name: 'expiredJwt', account: null, credential: 'invalid', headers: () => bearer(expiredJwt), mcpHeaders: () => bearer(expiredJwt), browser: expiredBrowser },
    { name: 'forgedJwt', account: null, credential: 'invalid', headers: () => bearer(forgedJwt), mcpHeaders: () => bearer(forgedJwt), browser: forgedJwtBrowser },
    { name: 'algNoneJwt', account: null, credential: 'invalid', headers: () => bearer(algNoneJwt), mcpHeaders: () => bearer(algNoneJwt), browser: algNoneJwtBrowser },
  ];
  const byName = new Map(principals.map((p) => [p.name, p]));
  return {
    t,
    clock,
    A,
    B,
    C: { accountId: c.account.id, accountName: c.account.name, userId: c.user.id, email: c.email, name: c.user.name, token: c.token },
    anonymous: { userId: anonymousUserId, verification: keyless.output.verification_id, fileHashes: hashesOf(keyless.output.verification) },
    inviteProof,
    guestEmail,
    principals,
    principal: (name) => byName.get(name)!,
    docsAsset,
    ownerKey: ownerKey.raw_key,
  };
}

/** The first stream (by name) of each category the account owns (stream_owners), with `chosen` ones instead. */
async function streamsOf(t: TestService, accountId: string, chosen: Record<string, string>): Promise<Record<string, string>> {
  const rows = await t.service.deps.knex('stream_owners').where({ account_id: accountId }).orderBy('stream').select<{ stream: string }[]>('stream');
  const streams: Record<string, string> = {};
  for (const { stream } of rows) streams[streamCategory(stream)] ??= stream;
  return { ...streams, ...chosen };
}

const tokenOf = (shareUrl: string) => /\/shared\/([^/?#]+)$/.exec(shareUrl)![1]!;

/** The file hashes a verification shows (hex digests: each names one uploaded file). */
function hashesOf(view: { raw_photo_hash?: string | null; image_photo_hash?: string | null }): string[] {
  return [view.raw_photo_hash, view.image_photo_hash].filter((h): h is string => typeof h === 'string' && h.length >= 32).flatMap((h) => [h, h.replace(/^[a-z0-9]+:/, '')]);
}

/** A pre-signed upload for the matrix file, created with an API key over MCP; its PUT path. */
export async function presignedUpload(baseUrl: string, apiKey: string): Promise<string> {
  const answer = await rpc(baseUrl, { authorization: `Bearer ${apiKey}` }, 'tools/call', { name: 'create_upload', arguments: { filename: 'matrix.png' } });
  const url = answer.message?.result?.structuredContent?.upload_url as string | undefined;
  if (!url) throw new Error(`create_upload failed: ${answer.status} ${answer.text}`);
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

export const matrixImage = () => inline('matrix.png', fixture(MATRIX_FILE));
