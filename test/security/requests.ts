import crypto from 'node:crypto';
import { client } from '../support/service.js';
import type { RawRequest } from './http.js';
import { fixture, matrixImage, MATRIX_FILE, presignedUpload, type AccountName, type AccountResources, type Principal, type World } from './world.js';

/**
 * The minimal valid request of each operation for one caller and one target: path parameters
 * filled from the target's resources, a body the schema accepts. A resource the request would
 * use up (a verification deleted, a tag removed) is made fresh first, but only when the caller
 * is expected to be let through: a refused request must find the stable resource unchanged.
 */

/** Whose resources the request names: account A's or B's, A's anonymous-user counterpart, A's restricted share. */
export type Target = 'A' | 'B' | 'anonymous' | 'restricted';

export const targetAccount = (target: Target): AccountName | null => (target === 'B' ? 'B' : target === 'anonymous' ? null : 'A');

export interface Built extends RawRequest {
  /** Runs after the answer (a password change hands out a new session token). */
  after?: (status: number, body: string) => void;
  /** The path parameters' values it used (a page reuses an operation's fresh resources). */
  values: Record<string, string>;
}

const unique = () => crypto.randomBytes(6).toString('hex');

/** `streamKind`: the audit door's row of one stream kind (the target account's stream of that category); a verification's stream otherwise. */
export async function buildRequest(world: World, operation: string, target: Target, principal: Principal, allowed: boolean, streamKind?: string): Promise<Built> {
  const [method, template] = operation.split(' ') as [string, string];
  const account = target === 'B' ? world.B : world.A;
  const owner = client(world.t.url);
  const asOwner = async (verb: string, route: string, body?: unknown) => {
    const res = await owner(verb, route, { token: account.owner.token, json: body });
    if (res.status >= 300) throw new Error(`set-up ${verb} ${route} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const fresh = allowed && target === 'A';

  // Path parameters: the target's stable resource unless the operation uses one up.
  let verification = target === 'anonymous' ? world.anonymous.verification : account.verification;
  let json: unknown;
  const params: Record<string, string | (() => Promise<string>)> = {
    account_id: account.accountId,
    verification_id: () => Promise.resolve(verification),
    tag_id: account.tag.id,
    comment_id: account.comment,
    request_id: account.request,
    request_token: account.requestToken,
    key_id: account.keyId,
    user_id: target === 'B' ? account.owner.userId : account.users[0]!.userId,
    stream: () => {
      if (streamKind === undefined) return Promise.resolve(`verification-${verification}`);
      const stream = account.streams[streamKind];
      return stream ? Promise.resolve(stream) : Promise.reject(new Error(`account ${target} holds no stream of kind ${streamKind}`));
    },
    token: target === 'restricted' ? world.A.restrictedToken : account.linkToken,
    kind: 'image',
    file: world.docsAsset,
  };
  let path: string | undefined;
  let form: FormData | undefined;
  let bytes: Uint8Array | undefined;
  let after: Built['after'];
  const headers = principal.headers();

  switch (operation) {
    case 'POST /mcp':
      json = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
      headers.accept = 'application/json, text/event-stream';
      break;
    case 'POST /v1/accounts':
      json = { name: `Registered ${unique()}`, admin: { email: `new-${unique()}@new.example`, name: 'New Admin', password: 'a long enough password' } };
      break;
    case 'POST /v1/accounts/login':
      json = { email: world.A.owner.email, password: world.principal('ownerJwt').login!.password };
      break;
    case 'POST /v1/accounts/invitations/accept':
      json = { token: crypto.randomBytes(32).toString('base64url'), password: 'a long enough password' };
      break;
    case 'PUT /v1/accounts/me/password': {
      const login = principal.login;
      const next = `changed ${unique()} password`;
      json = { current_password: login?.password ?? 'not the password', new_password: next };
      after = (status, body) => {
        if (status !== 200 || !login) return;
        login.password = next;
        login.token = (JSON.parse(body) as { access_token: string }).access_token;
        if (principal.name === 'ownerJwt') world.A.owner.token = login.token;
        if (principal.name === 'otherJwt') world.B.owner.token = login.token;
      };
      break;
    }
    case 'PATCH /v1/accounts/{account_id}':
      json = { billing_country: 'DE' };
      break;
    case 'POST /v1/accounts/{account_id}/users':
      json = { email: `added-${unique()}@victim.example`, name: 'Added User', password: 'added long password', role: 'member' };
      break;
    case 'PATCH /v1/accounts/{account_id}/users/{user_id}':
    case 'DELETE /v1/accounts/{account_id}/users/{user_id}':
      if (fresh) params.user_id = (await asOwner('POST', `/v1/accounts/${account.accountId}/users`, { email: `temp-${unique()}@victim.example`, name: 'Temporary User', password: 'temporary long password', role: 'member' })).id;
      if (method === 'PATCH') json = { role: 'member' };
      break;
    case 'POST /v1/apikeys/':
      json = { account_id: account.accountId, description: 'made by the matrix', expires_in_days: 1 };
      break;
    case 'DELETE /v1/apikeys/{key_id}':
      if (fresh) params.key_id = (await asOwner('POST', '/v1/apikeys/', { account_id: account.accountId, description: 'to revoke' })).id;
      break;
    case 'POST /capture/attestation':
      // Nothing the matrix could sign: an authorised caller reaches validation (400/422).
      json = { attestation: 'not an attestation' };
      break;
    case 'POST /v1/verifications/claim':
      json = { anonymous_user_id: `anon_${crypto.randomBytes(32).toString('base64url')}` };
      break;
    case 'POST /v1/verifications/':
      form = new FormData();
      form.append('image', new Blob([new Uint8Array(fixture(MATRIX_FILE))]), 'matrix.png');
      break;
    case 'DELETE /v1/verifications/{verification_id}':
      if (fresh) verification = await uploadAsOwner(world, account.owner.token);
      break;
    case 'POST /v1/verifications/{verification_id}/share':
      if (target !== 'anonymous' && target !== 'B') verification = account.sandbox;
      json = { access_type: 'restricted' };
      break;
    case 'DELETE /v1/verifications/{verification_id}/share':
      if (fresh) {
        verification = account.sandbox;
        await asOwner('POST', `/v1/verifications/${verification}/share`, { access_type: 'restricted' });
      }
      break;
    case 'POST /v1/verifications/{verification_id}/share/invites':
      if (fresh) {
        verification = account.sandbox;
        await asOwner('POST', `/v1/verifications/${verification}/share`, { access_type: 'restricted' });
      } else if (target === 'A') verification = account.restricted;
      json = { email: `invited-${unique()}@guest.example` };
      break;
    case 'DELETE /v1/verifications/{verification_id}/share/invites': {
      let email = world.guestEmail;
      if (fresh) {
        verification = account.sandbox;
        email = `revoked-${unique()}@guest.example`;
        await asOwner('POST', `/v1/verifications/${verification}/share`, { access_type: 'restricted' });
        await asOwner('POST', `/v1/verifications/${verification}/share/invites`, { email });
      } else if (target === 'A') verification = account.restricted;
      json = { email };
      break;
    }
    case 'PUT /v1/verifications/{verification_id}/tags':
    case 'POST /v1/verifications/{verification_id}/tags':
      json = { tags: [account.tag.name] };
      break;
    case 'DELETE /v1/verifications/{verification_id}/tags/{tag_id}':
      if (fresh) {
        verification = account.sandbox;
        await asOwner('POST', `/v1/verifications/${verification}/tags`, { tags: [account.tag.name] });
      }
      break;
    case 'POST /v1/tags/':
      json = { name: `made-${unique()}` };
      break;
    case 'PATCH /v1/tags/{tag_id}':
      json = { color: '#336699' };
      break;
    case 'DELETE /v1/tags/{tag_id}':
      if (fresh) params.tag_id = (await asOwner('POST', '/v1/tags/', { name: `doomed-${unique()}` })).id;
      break;
    case 'POST /v1/verifications/{verification_id}/comments':
      json = { body: 'A comment from the matrix.' };
      break;
    case 'PATCH /v1/verifications/{verification_id}/comments/{comment_id}':
      json = { body: 'The first comment.' };
      break;
    case 'DELETE /v1/verifications/{verification_id}/comments/{comment_id}':
      if (fresh) params.comment_id = (await asOwner('POST', `/v1/verifications/${verification}/comments`, { body: 'To be deleted.' })).id;
      break;
    case 'POST /v1/requests':
      json = { subject: `made by the matrix ${unique()}`, expires_at: new Date(world.clock.now().getTime() + 86_400_000).toISOString() };
      break;
    case 'PATCH /v1/requests/{request_id}':
      json = { instructions: 'changed by the matrix' };
      break;
    case 'POST /r/{request_token}':
      // No files: counted, refused by the upload's checks (invalid), withdrawn. A request of its own for each call: the link's hourly limit is the requests suite's subject.
      params.request_token = (await asOwner('POST', '/v1/requests', { subject: `posted to by the matrix ${unique()}`, expires_at: new Date(world.clock.now().getTime() + 86_400_000).toISOString() })).token;
      headers['x-forwarded-for'] = `198.18.${crypto.randomInt(0, 256)}.${crypto.randomInt(1, 255)}`;
      form = new FormData();
      break;
    case 'POST /r/{request_token}/capture/challenge':
      // Capture calls are limited per client address: each call names one of its own.
      headers['x-forwarded-for'] = `198.18.${crypto.randomInt(0, 256)}.${crypto.randomInt(1, 255)}`;
      break;
    case 'POST /r/{request_token}/capture/attestation':
      headers['x-forwarded-for'] = `198.18.${crypto.randomInt(0, 256)}.${crypto.randomInt(1, 255)}`;
      json = { attestation: 'not an attestation' };
      break;
    case 'DELETE /v1/requests/{request_id}':
      if (fresh) params.request_id = (await asOwner('POST', '/v1/requests', { subject: 'to delete', expires_at: new Date(world.clock.now().getTime() + 86_400_000).toISOString() })).id;
      break;
    case 'GET /blobs/{key}':
      path = world.A.blobPath;
      break;
    case 'GET /assets/{file}':
      params.file = 'audit-verify.js';
      break;
    case 'PUT /uploads/{upload_id}':
      // The pre-signed URL is the credential: each caller gets one of its own to use.
      path = allowed ? await presignedUpload(world.t.url, world.ownerKey) : `/uploads/${unique()}`;
      bytes = new Uint8Array(fixture(MATRIX_FILE));
      break;
    default:
      break;
  }

  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(params)) values[name] = typeof value === 'function' ? await value() : value;
  if (!path) {
    path = fillPath(operation, values);
    // The holder of a personal invitation link opens the report (and its files) with its proof.
    if (principal.name === 'inviteLinkHolder' && template.startsWith('/shared/')) path += `?invite=${encodeURIComponent(world.inviteProof)}`;
  }
  return { method, path, headers, json, form, bytes, after, values };
}

function fillPath(operation: string, values: Record<string, string>): string {
  const template = operation.split(' ')[1]!;
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`${operation}: the matrix has no value for the path parameter {${name}}; add one in test/security/requests.ts`);
    return encodeURIComponent(value);
  });
}

/** How the matrix sends one page of the web app (a row's options in the EXPECTED table). */
export interface PageShape {
  /**
   * The REST operation whose use case the page calls: its set-up is the page's (a fresh
   * resource for a caller who will use it up, the same ids otherwise), and its JSON body, field
   * by field, is the form's (unless `fields` says otherwise).
   */
  like?: string;
  /**
   * The form's fields (beside the CSRF token): from the target account's resources, the path's
   * values (fresh ones through `like`) and the `like` operation's body. A `like` operation sent
   * as multipart (an upload) makes the form multipart, its files included.
   */
  fields?: (c: { account: AccountResources; values: Record<string, string>; json: any }) => Record<string, string>;
  /** The form carries the sign-in page's token, not the session's (the sign-in form itself). */
  csrf?: 'login';
  /** A query string the page needs. */
  query?: Record<string, string>;
}

/**
 * One page of the web app as the caller's browser asks for it: the target's ids in the path
 * (fresh ones through `like`), its cookie (and an API key holder's key, which must not open the
 * app), and on a POST the form a page of its session would hold (urlencoded, with the session's
 * CSRF token) sent from this origin.
 */
export async function buildPageRequest(world: World, operation: string, shape: PageShape, target: Target, principal: Principal, allowed: boolean): Promise<Built> {
  const method = operation.split(' ')[0]!;
  const browser = principal.browser;
  await browser.ready();
  const like = await buildRequest(world, shape.like ?? operation, target, principal, allowed);
  const query = shape.query ? `?${new URLSearchParams(shape.query).toString()}` : '';
  const path = `${fillPath(operation, like.values)}${query}`;
  // A browser sends cookies, never an Authorization or X-Api-Key header: only a caller holding a
  // valid API key sends it along, to show that a key does not open the app.
  const headers: Record<string, string> = { ...(principal.credential === 'key' ? principal.headers() : {}), cookie: browser.cookie };
  if (method === 'GET') return { method, path, headers, values: like.values };
  headers.origin = new URL(world.t.url).origin;
  headers['sec-fetch-site'] = 'same-origin';
  const fields = shape.fields ? shape.fields({ account: target === 'B' ? world.B : world.A, values: like.values, json: like.json }) : formOf(like.json);
  const csrf = shape.csrf === 'login' ? browser.loginCsrf : browser.csrf;
  const all = { ...(csrf ? { csrf_token: csrf } : {}), ...fields };
  if (like.form) {
    // A multipart form: the token and fields first (as a page's form orders them), then the files.
    const form = new FormData();
    for (const [name, value] of Object.entries(all)) form.append(name, value);
    for (const [name, value] of like.form.entries()) form.append(name, value);
    return { method, path, headers, form, values: like.values };
  }
  return { method, path, headers, urlencoded: all, values: like.values };
}

/** A JSON body as a form's fields: its strings, numbers and booleans; a list as its items joined by commas. */
function formOf(json: unknown): Record<string, string> {
  const fields: Record<string, string> = {};
  if (!json || typeof json !== 'object') return fields;
  for (const [name, value] of Object.entries(json)) {
    if (Array.isArray(value)) fields[name] = value.map(String).join(',');
    else if (value !== null && typeof value !== 'object') fields[name] = String(value);
  }
  return fields;
}

async function uploadAsOwner(world: World, token: string): Promise<string> {
  const form = new FormData();
  form.append('image', new Blob([new Uint8Array(fixture(MATRIX_FILE))]), 'matrix.png');
  const res = await fetch(`${world.t.url}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  if (res.status !== 201) throw new Error(`set-up upload answered ${res.status}`);
  return ((await res.json()) as { id: string }).id;
}

/** The arguments of one MCP tool call for a caller and a target (the anonymous user names its own id). */
export async function toolArguments(world: World, tool: string, target: Target, principal: Principal, allowed: boolean): Promise<Record<string, unknown>> {
  const account = target === 'B' ? world.B : world.A;
  const verification = target === 'anonymous' ? world.anonymous.verification : account.verification;
  const anonymous = principal.name === 'anonymous' ? { anonymous_user_id: world.anonymous.userId } : {};
  switch (tool) {
    case 'verify_image':
      return { image: matrixImage(), wait_seconds: 0, ...anonymous };
    case 'verify_pair':
      // Not a RAW: an admitted caller reaches the file checks (a real pair would cost minutes of CPU per caller).
      return { image: matrixImage(), raw: { filename: 'matrix.dng', content_base64: Buffer.from('not a raw file').toString('base64') }, wait_seconds: 0, ...anonymous };
    case 'create_upload':
      return { filename: 'matrix.png' };
    case 'get_verification':
    case 'get_share':
      return { verification_id: verification, ...anonymous };
    case 'export_psd':
      return { verification_id: verification, wait: 0 };
    case 'share_verification':
      return { verification_id: target === 'A' ? account.sandbox : verification, access_type: 'restricted', ...anonymous };
    case 'unshare_verification': {
      if (allowed && target === 'A') {
        const res = await client(world.t.url)('POST', `/v1/verifications/${account.sandbox}/share`, { token: account.owner.token, json: { access_type: 'restricted' } });
        if (res.status !== 200) throw new Error(`set-up share answered ${res.status}`);
      }
      return { verification_id: target === 'A' ? account.sandbox : verification, ...anonymous };
    }
    case 'list_verifications':
      return { ...anonymous };
    case 'get_account_usage':
    case 'get_upgrade_link':
      return {};
    default:
      throw new Error(`the matrix has no arguments for the MCP tool ${tool}; add them in test/security/requests.ts`);
  }
}
