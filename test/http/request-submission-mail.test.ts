import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ParsedUpload } from '../../src/core/blob-store.js';
import type { AppDeps } from '../../src/core/module/deps.js';
import type { EventStore } from '../../src/core/es/event-store.js';
import { createSubmissionMailActivities, submissionMailSweep } from '../../src/features/requests/submission-mail-activities.js';
import { submitToRequest } from '../../src/features/requests/submissions.js';
import { submissionMailId } from '../../workflows/requests/submission-mail-workflow.js';
import { databaseTargets } from '../support/databases.js';
import { serviceSuite } from '../support/suite.js';

/**
 * The requester is told of each submission by e-mail (issue 24, must-work 3), over real HTTP on
 * each database, through the file outbox: one message per submission to the request's creator
 * (an API key's user; the oldest admin once the creator has left), naming the request, the
 * verification id and its API link, never the provider page's token, the provider's file name
 * only in the body; nothing for a refused submission; two for two concurrent ones. A
 * submission whose message a crash left unqueued (appends to mail streams failing, as a process
 * killed right after the verification is recorded) is mailed once by the submission mail sweep,
 * and its step run again queues nothing more (test/workflows/crash-points.test.ts names this file).
 */
const pairDir = path.resolve(import.meta.dirname, '../../../shared/fixtures/pairs/canon_eos_30d_cr2');
const photo = fs.readFileSync(path.join(pairDir, 'IMG_5952.camera-preview.jpg'));
const raw = fs.readFileSync(path.join(pairDir, 'IMG_5952.CR2'));
const SWEEP_MS = 200;
/** A file name a provider controls: markup, a line break that would start a mail header, a bidi override (no slash: a path's last part is kept). */
const HOSTILE_NAME = 'IMG<img src=x onerror=alert(1)>\r\nBcc: victim@example.org \u202Egpj.jpg';

function pairForm(imageName = 'IMG_5952.jpg'): FormData {
  const form = new FormData();
  form.append('image', new Blob([new Uint8Array(photo)]), imageName);
  form.append('raw', new Blob([new Uint8Array(raw)]), 'IMG_5952.CR2');
  return form;
}

/** A header's RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`) decoded; folding and the space between adjacent words removed. */
function headerWords(value: string): string {
  const unfolded = value.replace(/\r?\n[ \t]/g, ' ').replace(/\?=\s+=\?/g, '?==?');
  return unfolded.replace(/=\?UTF-8\?([QB])\?([^?]*)\?=/gi, (_m, kind: string, text: string) =>
    kind.toUpperCase() === 'B'
      ? Buffer.from(text, 'base64').toString('utf8')
      : Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_h, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1').toString('utf8'),
  );
}

/** A message as written to the outbox: headers and the decoded text and HTML parts. */
interface OutboxMail {
  file: string;
  raw: string;
  headers: string;
  decoded: string;
}

for (const target of databaseTargets) describe(`The requester's e-mail of each submission on ${target.name}`, () => {
  const { t, call, newAccount } = serviceSuite(target, { TRUST_PROXY: 'loopback', PUBLIC_BASE_URL: 'https://verify.example.eu' }, { workflowSweepMs: SWEEP_MS });
  // Professional: the suite submits more pairs than the Free plan's five a month.
  const owner = newAccount({ plan: 'professional' });
  let address = 0;

  const outbox = (): OutboxMail[] => {
    const dir = path.join(t.dataDir, 'outbox');
    if (!fs.existsSync(dir)) return [];
    return fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.eml'))
      .map((file) => {
        const raw = fs.readFileSync(path.join(dir, file), 'utf8');
        const [headers] = raw.split(/\r?\n\r?\n/, 1) as [string];
        // Quoted-printable soft breaks and escapes, and base64 parts, read back as text.
        const qp = raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
        const base64 = [...raw.matchAll(/Content-Transfer-Encoding: base64\r?\n(?:[^\r\n]+\r?\n)*?\r?\n([A-Za-z0-9+/=\r\n]+)/g)].map((m) => Buffer.from(m[1]!.replace(/\s/g, ''), 'base64').toString('utf8'));
        return { file, raw, headers, decoded: Buffer.from([qp, ...base64].join('\n'), 'latin1').toString('utf8') };
      });
  };
  const mailsAbout = (verificationId: string) => outbox().filter((m) => m.decoded.includes(verificationId));
  const events = async (type: string) => (await t.service.deps.store.readAll({ after: 0n, limit: 1_000_000 })).filter((e) => e.type === type);
  const queuedFor = async (verificationId: string) => (await events('MailQueued')).filter((e) => e.data.mail_id === submissionMailId(verificationId));
  /** Waits until the outbox holds a message about each id. */
  async function mailed(...ids: string[]) {
    for (let i = 0; i < 600 && !ids.every((id) => mailsAbout(id).length > 0); i++) await new Promise((r) => setTimeout(r, 100));
    await t.settled();
  }

  async function request(opts: { token?: string; apiKey?: string } = { token: owner.token }, body: Record<string, unknown> = {}) {
    const res = await call('POST', '/v1/requests', { ...opts, json: { subject: 'Harbour <b>sunrise</b> & "friends"', expires_at: new Date(Date.now() + 86_400_000).toISOString(), ...body } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return { id: res.body.id as string, token: res.body.token as string, page: new URL(res.body.url).pathname };
  }
  /** The form's POST, from an address of its own (the limit per address is not what is tested). */
  async function submit(page: string, form: FormData): Promise<{ status: number; verificationId: string | null }> {
    address += 1;
    const res = await fetch(`${t.url}${page}`, { method: 'POST', body: form, redirect: 'manual', headers: { 'x-forwarded-for': `198.51.100.${address}` } });
    const location = res.headers.get('location');
    return { status: res.status, verificationId: location ? location.split('/').at(-1)! : null };
  }

  it('mails the request’s creator once per submission: the request, the verification id and its API link; no token, no provider text in the subject', async () => {
    const { id, token, page } = await request();
    const sent = await submit(page, pairForm(HOSTILE_NAME));
    expect(sent.status).toBe(303);
    const verificationId = sent.verificationId!;
    await mailed(verificationId);

    const mails = mailsAbout(verificationId);
    expect(mails).toHaveLength(1);
    const [mail] = mails as [OutboxMail];
    expect(mail.headers).toMatch(new RegExp(`^To: ${owner.email}$`, 'm'));
    const subject = headerWords(/^Subject: (.*(?:\r?\n[ \t].*)*)/m.exec(mail.headers)![1]!);
    expect(subject).toBe('New submission to your request: Harbour <b>sunrise</b> & "friends"');
    // The provider's file name is in no header: no injected Bcc, no name in the subject.
    expect(mail.headers).not.toMatch(/^Bcc:/im);
    expect(mail.headers).not.toContain('IMG');
    expect(mail.headers).not.toContain('victim@example.org');
    expect(mail.decoded).toContain(`https://verify.example.eu/v1/verifications/${verificationId}`);
    expect(mail.decoded).toContain(`https://verify.example.eu/v1/verifications/?request_id=${id}`);
    expect(mail.decoded).toContain(`https://verify.example.eu/v1/requests/${id}`);
    expect(mail.decoded).toContain('Harbour <b>sunrise</b> & "friends"'); // the text part, as written
    expect(mail.decoded).toContain('Harbour &lt;b&gt;sunrise&lt;/b&gt; &amp; &quot;friends&quot;'); // the HTML part, escaped
    expect(mail.decoded).toContain('Submission: 1 of at most 1');
    // The file name, cleaned when stored (no line break, no bidi override), and escaped in the HTML.
    expect(mail.decoded).toContain('IMG<img src=x onerror=alert(1)> Bcc: victim@example.org gpj.jpg');
    expect(mail.decoded).toContain('IMG&lt;img src=x onerror=alert(1)&gt; Bcc: victim@example.org gpj.jpg');
    expect(/<!doctype html>[\s\S]*<\/html>/.exec(mail.decoded)![0]).not.toContain('<img');
    expect(mail.decoded).not.toContain('\u202E');
    expect(mail.raw).not.toContain(token);
    expect(mail.raw).not.toContain('/r/');

    const queued = await queuedFor(verificationId);
    expect(queued).toHaveLength(1);
    expect(queued[0]!.metadata.account_id).toBe(owner.account.id);
    // The requester sees it in the account's audit history, sent.
    const history = await call('GET', `/v1/audit/streams/mail-${submissionMailId(verificationId)}`, { token: owner.token });
    expect(history.status).toBe(200);
    expect((history.body.events as { type: string }[]).map((e) => e.type)).toContain('MailSent');
    // Later sweeps owe nothing.
    expect(await submissionMailSweep({ knex: t.service.deps.knex, now: new Date() })).toEqual([]);
  }, 300_000);

  it('sends nothing for a refused submission (its place withdrawn)', async () => {
    const { id, page } = await request();
    const before = (await events('MailQueued')).length;
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(photo.subarray(0, 200))]), 'cut.jpg');
    const refused = await submit(page, form);
    expect(refused.status).toBe(400);
    await t.settled();
    await new Promise((r) => setTimeout(r, 10 * SWEEP_MS));
    await t.settled();
    const withdrawn = (await events('RequestSubmissionWithdrawn')).filter((e) => e.stream === `request-${id}`);
    expect(withdrawn).toHaveLength(1);
    expect(await events('MailQueued')).toHaveLength(before);
    // Its step, were a run started for it, owes nothing.
    const activities = createSubmissionMailActivities(t.service.deps);
    const withdrawnId = String(withdrawn[0]!.data.verification_id);
    expect(await activities.queueSubmissionMail({} as never, submissionMailId(withdrawnId), { request_id: id, verification_id: withdrawnId })).toBe('superseded');
    expect(await events('MailQueued')).toHaveLength(before);
  }, 300_000);

  it('sends two for two concurrent submissions, each about its own verification', async () => {
    const { page } = await request({ token: owner.token }, { max_submissions: 2 });
    const sent = await Promise.all([submit(page, pairForm()), submit(page, pairForm())]);
    expect(sent.map((s) => s.status)).toEqual([303, 303]);
    const ids = sent.map((s) => s.verificationId!);
    expect(new Set(ids).size).toBe(2);
    await mailed(...ids);
    for (const verificationId of ids) {
      expect(mailsAbout(verificationId)).toHaveLength(1);
      expect(await queuedFor(verificationId)).toHaveLength(1);
    }
    const counts = ids.map((v) => /Submission: (\d) of at most 2/.exec(mailsAbout(v)[0]!.decoded)?.[1]).sort();
    expect(counts).toEqual(['1', '2']);
  }, 300_000);

  it('tells an API key’s user of a request the key created, and the oldest admin once the creator has left', async () => {
    const key = await call('POST', '/v1/apikeys/', { token: owner.token, json: { account_id: owner.account.id } });
    expect(key.status).toBe(201);
    const byKey = await request({ apiKey: key.body.raw_key });
    const keySent = await submit(byKey.page, pairForm());
    expect(keySent.status).toBe(303);

    const memberEmail = `member-${owner.account.id.slice(0, 8)}@picture-desk.example`;
    const added = await call('POST', `/v1/accounts/${owner.account.id}/users`, { token: owner.token, json: { email: memberEmail, name: 'Desk', role: 'member', password: 'member password 1' } });
    expect(added.status).toBe(201);
    const member = await call('POST', '/v1/accounts/login', { json: { email: memberEmail, password: 'member password 1' } });
    const byMember = await request({ token: member.body.access_token }, { max_submissions: 2 });
    const memberSent = await submit(byMember.page, pairForm());
    expect(memberSent.status).toBe(303);
    await mailed(keySent.verificationId!, memberSent.verificationId!);
    const removed = await call('DELETE', `/v1/accounts/${owner.account.id}/users/${added.body.id}`, { token: owner.token });
    expect(removed.status).toBe(204);
    const afterLeaving = await submit(byMember.page, pairForm());
    expect(afterLeaving.status).toBe(303);
    await mailed(afterLeaving.verificationId!);
    expect(mailsAbout(keySent.verificationId!)[0]!.headers).toMatch(new RegExp(`^To: ${owner.email}$`, 'm'));
    expect(mailsAbout(memberSent.verificationId!)[0]!.headers).toMatch(new RegExp(`^To: ${memberEmail}$`, 'm'));
    expect(mailsAbout(afterLeaving.verificationId!)[0]!.headers).toMatch(new RegExp(`^To: ${owner.email}$`, 'm'));
  }, 300_000);

  it('a submission whose e-mail a crash left unqueued is mailed once by the sweep; its step run again queues nothing more', async () => {
    const { id, token } = await request();
    const deps = t.service.deps;
    // The process "dies" after the verification is recorded: nothing reaches a mail stream.
    const store = new Proxy(deps.store, {
      get(target, name) {
        if (name === 'append') {
          return (stream: string, ...rest: unknown[]) => (stream.startsWith('mail-') ? Promise.reject(new Error('killed before the mail was queued')) : (target.append as (...a: unknown[]) => unknown)(stream, ...rest));
        }
        const value = Reflect.get(target, name, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as EventStore;
    const receive = async (): Promise<ParsedUpload> => {
      const stage = async (field: string, bytes: Buffer, filename: string) => ({ field, filename, staged: await deps.blobs.stage(Readable.from([bytes]), { maxBytes: deps.config.MAX_UPLOAD_BYTES }) });
      return { files: new Map([['image', await stage('image', photo, 'IMG_5952.jpg')], ['raw', await stage('raw', raw, 'IMG_5952.CR2')]]), fields: {} };
    };
    const submitted = await submitToRequest({ ...deps, store } as AppDeps, token, { clientAddress: '192.0.2.77', correlationId: 'cut-off-submission', receive });
    const verificationId = submitted.verification_id;
    expect(submitted.request_id).toBe(id);

    await mailed(verificationId);
    const queued = await queuedFor(verificationId);
    expect(queued).toHaveLength(1);
    expect(queued[0]!.metadata.actor).toEqual({ type: 'system', id: 'submission-mail-recovery' });
    expect(queued[0]!.metadata.correlation_id).toBe('cut-off-submission');
    expect(mailsAbout(verificationId)).toHaveLength(1);
    expect(mailsAbout(verificationId)[0]!.headers).toMatch(new RegExp(`^To: ${owner.email}$`, 'm'));

    // The step again (a run resumed after a kill after it): queued already, nothing added.
    const activities = createSubmissionMailActivities(deps);
    expect(await activities.queueSubmissionMail({} as never, submissionMailId(verificationId), { request_id: id, verification_id: verificationId })).toBe('queued');
    expect(await submissionMailSweep({ knex: deps.knex, now: new Date() })).toEqual([]);
    await new Promise((r) => setTimeout(r, 10 * SWEEP_MS));
    await t.settled();
    expect(await queuedFor(verificationId)).toHaveLength(1);
    expect(mailsAbout(verificationId)).toHaveLength(1);
  }, 300_000);
});
