import fs from 'node:fs';
import path from 'node:path';
import { addMember } from '../support/members.js';
import { client, registerAccount, uploadImage } from '../support/service.js';

/**
 * What Schemathesis needs to reach past the 404s: an account with an API key, and real ids for
 * every path parameter (a verification with a tag, a comment and a share; a second key, user,
 * tag and verification for the DELETE operations, so that deleting them does not take away the
 * ones the other operations use).
 */
export interface Targets {
  apiKey: string;
  /** The admin's session token, for the operations that take only a login (JWT), not a key. */
  jwt: string;
  ids: Record<string, string[]>;
  /** Ids an operation that deletes or removes gets instead, by operation name ("DELETE /v1/tags/{tag_id}"). */
  spares: Record<string, Record<string, string>>;
}

export async function prepareTargets(baseUrl: string): Promise<Targets> {
  const call = client(baseUrl);
  const admin = await registerAccount(call);
  const expect2xx = (what: string, result: { status: number; body: unknown }) => {
    if (result.status < 200 || result.status > 299) throw new Error(`${what} answered ${result.status}: ${JSON.stringify(result.body)}`);
    return result.body as Record<string, any>;
  };
  const key = expect2xx('creating the API key', await call('POST', '/v1/apikeys/', { token: admin.token, json: { account_id: admin.account.id, description: 'schemathesis' } }));
  const spareKey = expect2xx('creating a spare key', await call('POST', '/v1/apikeys/', { token: admin.token, json: { account_id: admin.account.id, description: 'revoked by schemathesis' } }));
  const member = await addMember(call, admin);
  const verification = await uploadImage(baseUrl, admin.token);
  const spareVerification = await uploadImage(baseUrl, admin.token);
  const tag = expect2xx('creating a tag', await call('POST', '/v1/tags/', { token: admin.token, json: { name: 'schemathesis' } }));
  const spareTag = expect2xx('creating a spare tag', await call('POST', '/v1/tags/', { token: admin.token, json: { name: 'spare' } }));
  expect2xx('tagging', await call('POST', `/v1/verifications/${verification}/tags`, { token: admin.token, json: { tags: ['schemathesis'] } }));
  const comment = expect2xx('commenting', await call('POST', `/v1/verifications/${verification}/comments`, { token: admin.token, json: { body: 'A comment to edit.' } }));
  const share = expect2xx('sharing', await call('POST', `/v1/verifications/${verification}/share`, { token: admin.token, json: { access_type: 'anyone_with_link' } }));
  const token = new URL(share.share_url as string).pathname.split('/').pop()!;
  const farAway = new Date(Date.now() + 365 * 86_400_000).toISOString();
  const request = expect2xx('creating a verification request', await call('POST', '/v1/requests', { token: admin.token, json: { subject: 'Schemathesis asks', expires_at: farAway } }));
  const spareRequest = expect2xx('creating a spare verification request', await call('POST', '/v1/requests', { token: admin.token, json: { subject: 'deleted by schemathesis', expires_at: farAway } }));
  return {
    apiKey: key.raw_key as string,
    jwt: admin.token,
    ids: {
      account_id: [admin.account.id],
      verification_id: [verification],
      tag_id: [tag.id],
      comment_id: [comment.id],
      key_id: [spareKey.id],
      user_id: [member.user.id],
      token: [token],
      request_id: [request.id],
      kind: ['image', 'thumbnail'],
    },
    spares: {
      'DELETE /v1/verifications/{verification_id}': { verification_id: spareVerification },
      'DELETE /v1/verifications/{verification_id}/share': { verification_id: spareVerification },
      'DELETE /v1/tags/{tag_id}': { tag_id: spareTag.id },
      'DELETE /v1/requests/{request_id}': { request_id: spareRequest.id },
    },
  };
}

/**
 * A Schemathesis configuration for this run: the checked-in schemathesis.toml, plus a dictionary
 * of real ids for each path parameter, drawn for most generated requests (the rest stay
 * generated: unknown and malformed ids are tested too).
 */
export function writeRunConfig(dir: string, repoRoot: string, targets: Targets, probability = 0.8): string {
  const lines = [fs.readFileSync(path.join(repoRoot, 'schemathesis.toml'), 'utf8'), ''];
  for (const [name, values] of Object.entries(targets.ids)) {
    lines.push(`[dictionaries.${name}]`, `values = [${values.map((v) => JSON.stringify(v)).join(', ')}]`, '');
  }
  lines.push('[parameters]');
  for (const name of Object.keys(targets.ids)) lines.push(`"path.${name}" = { dictionary = "${name}", probability = ${probability} }`);
  for (const [operation, ids] of Object.entries(targets.spares)) {
    lines.push('', '[[operations]]', `include-name = ${JSON.stringify(operation)}`);
    lines.push(`parameters = { ${Object.entries(ids).map(([name, id]) => `"path.${name}" = ${JSON.stringify(id)}`).join(', ')} }`);
  }
  const file = path.join(dir, 'schemathesis.toml');
  fs.writeFileSync(file, lines.join('\n') + '\n');
  return file;
}
