/**
 * Secrets never reach the log (issue 21, must-work 6a; DESIGN "Robustness rules"): every flow that
 * handles one runs against a service logging at debug level into memory, and no line may hold a
 * password, login token, raw API key, share token, invitation proof or token, pre-signed URL
 * signature, upload id, capture nonce or attestation the flows used. (The whole suite's logs are
 * scanned the same way at the end of every run: test/support/log-capture.ts.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newDevice, signAttestation } from '../support/capture.js';
import { databaseTargets } from '../support/databases.js';
import { secretsIn } from '../support/log-capture.js';
import { callTool, connectMcp } from '../support/mcp.js';
import { client, registerAccount, startTestService, uploadImage, type TestService } from '../support/service.js';

const webp = fs.readFileSync(path.resolve(import.meta.dirname, '../../../shared/fixtures/images/rs_sample1.webp'));

for (const target of databaseTargets) {
  describe(`no secret in the log (${target.name})`, { timeout: 300_000 }, () => {
    const lines: string[] = [];
    const secrets = new Set<string>();
    let t: TestService;
    let call: ReturnType<typeof client>;
    const keep = (value: unknown) => secretsIn(value).forEach((s) => secrets.add(s));
    /** A link the service made (on PUBLIC_BASE_URL, here the unbound port 0) on the test service's address. */
    const here = (link: string) => {
      const url = new URL(link, t.url);
      return `${t.url}${url.pathname}${url.search}`;
    };

    /** The outbox's newest message to an address, quoted-printable soft breaks undone. */
    const mailTo = (address: string) => {
      const dir = path.join(t.dataDir, 'outbox');
      const texts = fs.existsSync(dir) ? fs.readdirSync(dir).map((f) => fs.readFileSync(path.join(dir, f), 'utf8').replace(/=\r?\n/g, '').replace(/=3D/g, '=')) : [];
      return texts.find((text) => text.includes(address));
    };
    const waitForMail = async (address: string) => {
      for (let i = 0; i < 200; i++) {
        const text = mailTo(address);
        if (text) return text;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`no mail to ${address}`);
    };

    beforeAll(async () => {
      const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
      t = await startTestService(target, {}, { logger });
      call = client(t.url);

      // Registration and login: the password and the JWT.
      const owner = await registerAccount(call);
      keep({ password: owner.password, access_token: owner.token });
      await call('POST', '/v1/accounts/login', { json: { email: owner.email, password: 'a wrong password!' } });
      keep({ password: 'a wrong password!' });

      // An API key, used both ways.
      const key = await call('POST', '/v1/apikeys/', { token: owner.token, json: { account_id: owner.account.id, description: 'logs test' } });
      keep(key.body);
      await call('GET', '/v1/accounts/me', { apiKey: key.body.raw_key });
      await call('GET', '/v1/accounts/me', { token: key.body.raw_key });

      // Pre-signed file URLs, followed.
      const id = await uploadImage(t.url, owner.token);
      await t.settled();
      for (const file of ['image', 'renditions/thumbnail']) {
        const res = await call('GET', `/v1/verifications/${id}/${file}`, { token: owner.token });
        const location = res.headers.get('location');
        if (location) {
          keep(location);
          await fetch(here(location));
        }
      }

      // A share link, its page and files; then restricted, with an invitation by e-mail.
      const share = await call('POST', `/v1/verifications/${id}/share`, { token: owner.token, json: { access_type: 'anyone_with_link' } });
      keep(share.body);
      const page = await fetch(here(share.body.share_url));
      keep(await page.text());
      await fetch(here(`${share.body.share_url}/files/image`), { redirect: 'manual' }).then((r) => keep(r.headers.get('location') ?? ''));
      await call('POST', `/v1/verifications/${id}/share`, { token: owner.token, json: { access_type: 'restricted' } });
      await call('POST', `/v1/verifications/${id}/share/invites`, { token: owner.token, json: { email: 'guest@example.eu' } });
      const invitation = await waitForMail('guest@example.eu');
      keep(invitation);
      const personal = /https?:\/\/\S+invite=[A-Za-z0-9_-]+/.exec(invitation)?.[0];
      expect(personal, 'the invitation mail carries a personal link').toBeDefined();
      await fetch(here(personal!));

      // A user invited to the account: the set-password link, its page, and the acceptance.
      const member = await call('POST', `/v1/accounts/${owner.account.id}/users`, { token: owner.token, json: { email: 'member@example.eu', name: 'Member' } });
      expect(member.status).toBe(201);
      const welcome = await waitForMail('member@example.eu');
      keep(welcome);
      const invitationToken = /set-password#([A-Za-z0-9_-]+)/.exec(welcome)?.[1];
      expect(invitationToken, 'the welcome mail carries a set-password link').toBeDefined();
      await fetch(`${t.url}/accounts/set-password`);
      const accepted = await call('POST', '/v1/accounts/invitations/accept', { json: { token: invitationToken, password: 'the member chose this one' } });
      keep({ token: invitationToken, password: 'the member chose this one' });
      keep(accepted.body);

      // A password change.
      await call('PUT', '/v1/accounts/me/password', { token: owner.token, json: { current_password: owner.password, new_password: 'a brand new password' } });
      keep({ password: 'a brand new password' });

      // MCP with the key: an upload URL, PUT to.
      const agent = await connectMcp(t.url, key.body.raw_key);
      try {
        const ticket = (await callTool(agent, 'create_upload', { filename: 'a.webp' })).output as { upload_id: string; upload_url: string };
        keep({ token: ticket.upload_id });
        keep(ticket.upload_url);
        await fetch(here(ticket.upload_url), { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: new Uint8Array(webp) });
        await callTool(agent, 'verify_image', { upload_id: ticket.upload_id, wait_seconds: 0 });
      } finally {
        await agent.close();
      }

      // A capture challenge and a signed attestation.
      const login = await call('POST', '/v1/accounts/login', { json: { email: owner.email, password: 'a brand new password' } });
      const challenge = await call('POST', '/capture/challenge', { token: login.body.access_token });
      keep({ token: challenge.body.nonce });
      const device = await newDevice();
      const attestation = await signAttestation(device, { v: 1, nonce: challenge.body.nonce, image_sha256: 'a'.repeat(64), raw_sha256: null, captured_at: new Date().toISOString() });
      keep({ attestation });
      await call('POST', '/capture/attestation', { token: login.body.access_token, json: { attestation } });
      await t.settled();
    });
    afterAll(async () => t?.stop());

    it('logged every request at debug level, and gathered the secrets to look for', () => {
      expect(lines.filter((line) => line.includes('"req"')).length).toBeGreaterThan(20);
      for (const route of ['/v1/accounts/login', '/v1/apikeys/', '/blobs/', '/shared/', '/uploads/', '/capture/attestation', '/mcp']) expect(lines.some((line) => line.includes(route)), route).toBe(true);
      expect(secrets.size).toBeGreaterThan(12);
    });

    it('holds none of them', () => {
      const leaks = [...secrets].flatMap((secret) => {
        const line = lines.find((l) => l.includes(secret));
        return line ? [`${secret.slice(0, 16)}… in ${line.slice(0, 400)}`] : [];
      });
      expect(leaks).toEqual([]);
    });
  });
}
