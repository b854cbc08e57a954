import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { callTool, connectMcp } from '../support/mcp.js';
import { registerAccount } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';

const webp = fs.readFileSync(path.resolve(import.meta.dirname, '../../../shared/fixtures/images/rs_sample1.webp'));

/** Every text a reader could get out of `id` by decoding any part of it as base64 or base64url, from any alignment. */
function readings(id: string): string[] {
  const parts = [id, id.slice(3), ...id.slice(3).split('.')];
  const out: string[] = [];
  for (const part of parts) {
    for (let skip = 0; skip < 4; skip++) {
      for (const encoding of ['base64', 'base64url'] as const) {
        const bytes = Buffer.from(part.slice(skip), encoding);
        out.push(bytes.toString('latin1'), bytes.toString('hex'), bytes.toString('utf8'));
      }
    }
  }
  return out;
}

/** Issue 21, defect 13: upload ids carried the account id (and file name) in readable base64. */
for (const target of databaseTargets) {
  describe(`upload ids on ${target.name}`, () => {
    const { t, call } = serviceSuite(target);
    let agent: Client;
    let accountId: string;
    beforeAll(async () => {
      const owner = await registerAccount(call);
      accountId = owner.account.id;
      const key = await call('POST', '/v1/apikeys/', { token: owner.token, json: { account_id: accountId } });
      agent = await connectMcp(t.url, key.body.raw_key);
    }, 120_000);
    afterAll(async () => agent?.close());

    it('name neither the account nor the file in any decoding of them', async () => {
      const filename = 'harbour-at-dawn.webp';
      const accountBytes = Buffer.from(accountId.replaceAll('-', ''), 'hex');
      const needles = [accountId, accountId.replaceAll('-', ''), accountBytes.toString('latin1'), accountBytes.subarray(0, 6).toString('latin1'), filename, 'harbour'];
      for (let i = 0; i < 5; i++) {
        const ticket = (await callTool(agent, 'create_upload', { filename })).output;
        expect(ticket.upload_id).toMatch(/^up_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
        const texts = readings(ticket.upload_id).map((s) => s.toLowerCase());
        for (const needle of needles) {
          expect(texts.filter((text) => text.includes(needle.toLowerCase())), `${ticket.upload_id} reveals ${JSON.stringify(needle)}`).toEqual([]);
        }
        expect(ticket.upload_url).toBe(`${t.url}/uploads/${ticket.upload_id}`);
      }
      // Two ids for the same file name and account share nothing readable.
      const [a, b] = [(await callTool(agent, 'create_upload', { filename })).output.upload_id as string, (await callTool(agent, 'create_upload', { filename })).output.upload_id as string];
      expect(a.slice(3, 25)).not.toBe(b.slice(3, 25));
    });

    it('still carry the file to a verification, and an altered, invented or old-style id is 404', async () => {
      const ticket = (await callTool(agent, 'create_upload', { filename: 'sample.webp' })).output;
      const [sealed, tag] = (ticket.upload_id as string).slice(3).split('.') as [string, string];
      const flip = (text: string, at: number) => `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;
      const guessed = `up_${crypto.randomBytes(60).toString('base64url')}.${crypto.randomBytes(32).toString('base64url')}`;
      // The readable form this replaced, signed with the service's own key: never read as a sealed one.
      const oldPayload = Buffer.from(JSON.stringify([crypto.randomBytes(16).toString('hex'), accountId, 'sample.webp', Math.floor(Date.now() / 1000) + 600])).toString('base64url');
      const oldStyle = `up_${oldPayload}.${t.service.deps.urlSigner.tag('upload-id', oldPayload)}`;
      const wrong = [`up_${flip(sealed, 5)}.${tag}`, `up_${flip(sealed, sealed.length - 2)}.${tag}`, `up_${sealed}.${flip(tag, 10)}`, guessed, oldStyle];
      for (const id of wrong) {
        const put = await fetch(`${t.url}/uploads/${id}`, { method: 'PUT', body: new Uint8Array(webp) });
        expect([id, put.status, ((await put.json()) as { detail: { error_code: string } }).detail.error_code]).toEqual([id, 404, 'UPLOAD_NOT_FOUND']);
      }
      const put = await fetch(ticket.upload_url, { method: 'PUT', body: new Uint8Array(webp) });
      expect(put.status).toBe(200);
      for (const id of wrong) expect((await callTool(agent, 'verify_image', { image: { upload_id: id } })).error?.error_code).toBe('UPLOAD_NOT_FOUND');
      const verified = await callTool(agent, 'verify_image', { image: { upload_id: ticket.upload_id }, wait_seconds: 0 });
      expect(verified.result.isError).toBeFalsy();
      await t.settled();
      const view = (await callTool(agent, 'get_verification', { verification_id: verified.output.verification_id })).output.verification;
      expect(view).toMatchObject({ name: 'sample.webp', verification_mode: 'image_only' });
    });
  });
}
