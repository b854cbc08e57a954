import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { pidOfIdentity, requiresTemporalBinary, startInstance, startTemporalDevServer, type Instance, type TemporalDevServer } from '../support/cluster.js';
import { requires } from '../support/requires.js';
import { requiresS3, s3ServiceEnv } from '../support/s3.js';
import { client, registerAccount, type CallResult } from '../support/service.js';

/**
 * Issue 26, must-work 3: one deployment of two API processes (ROLE=api) and two workers
 * (ROLE=worker), separate OS processes of the compiled service, on one PostgreSQL, one Temporal
 * dev server of its own and one S3 bucket on a real versitygw. Uploads go in through one API
 * and come out through the other; a worker is SIGKILLed in the middle of an analysis; quotas
 * and the login limit are hit through both APIs at once; then 200 image-only and 20 pair uploads
 * spread over both APIs are counted, event by event, in the log.
 *
 * Every instance shares DATA_DIR (its secrets: share-link, URL-signing and invitation keys) and
 * JWT_SECRET, as docker-compose.yml does: links one instance signs, another checks.
 *
 * Load (SCALE_IMAGES, SCALE_PAIRS; the 200 and 20 by default) and every wait are sized
 * for a loaded 2-core machine; nothing asserts a duration.
 */
const gates = [
  requires({ server: 'PostgreSQL server', variable: 'DATABASE_URL', how: 'scripts/start-postgres.sh starts one and prints its URL' }, 'the multi-instance deployment'),
  requiresTemporalBinary('the multi-instance deployment'),
  requiresS3('the multi-instance deployment'),
];
const gate = gates.find((g) => !g.available) ?? gates[0]!;

const IMAGES = Number(process.env.SCALE_IMAGES ?? 200);
const PAIRS = Number(process.env.SCALE_PAIRS ?? 20);

const fixtures = path.resolve(import.meta.dirname, '../../../shared/fixtures');
const read = (file: string) => new Uint8Array(fs.readFileSync(path.join(fixtures, file)));
const pair30d = { image: read('pairs/canon_eos_30d_cr2/IMG_5952.camera-preview.jpg'), raw: read('pairs/canon_eos_30d_cr2/IMG_5952.CR2'), names: ['IMG_5952.jpg', 'IMG_5952.CR2'] };
// The 6D pair is small (0.4 MB RAW): the quota edge's analyses stay cheap.
const pair6d = { image: read('pairs/canon_eos_6d_dng/canon_eos_6d.preview.jpg'), raw: read('pairs/canon_eos_6d_dng/canon_eos_6d.dng'), names: ['6d.jpg', '6d.dng'] };
const webp = read('images/rs_sample1.webp');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function post(url: string, token: string, files: { image: Uint8Array<ArrayBuffer>; raw?: Uint8Array<ArrayBuffer>; names: string[] }): Promise<{ status: number; body: any }> {
  const form = new FormData();
  form.append('image', new Blob([files.image]), files.names[0]);
  if (files.raw) form.append('raw', new Blob([files.raw]), files.names[1]);
  const res = await fetch(`${url}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  return { status: res.status, body: await res.json() };
}

async function uploaded(url: string, token: string, files: Parameters<typeof post>[2]): Promise<string> {
  const res = await post(url, token, files);
  if (res.status !== 201) throw new Error(`upload to ${url} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.id;
}

/** A link the service made (on the deployment's PUBLIC_BASE_URL), asked of one instance, as the proxy would. */
const through = (instance: Instance, link: string) => {
  const u = new URL(link);
  return `${instance.url}${u.pathname}${u.search}`;
};

gate.describe('two API instances and two workers on one PostgreSQL, Temporal and S3', () => {
  let knex: Knex;
  let dropDatabase: () => Promise<void> = async () => {};
  let temporal: TemporalDevServer | undefined;
  let env: Record<string, string>;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-scale-'));
  let apiA: Instance;
  let apiB: Instance;
  const workers: Instance[] = [];
  const everyInstance = () => [apiA, apiB, ...workers].filter(Boolean);
  const callA = (...args: Parameters<ReturnType<typeof client>>) => client(apiA.url)(...args);
  const callB = (...args: Parameters<ReturnType<typeof client>>) => client(apiB.url)(...args);

  /** Events of each type in the verification's stream, counted in the log itself. */
  const eventCounts = async (id: string): Promise<Record<string, number>> => {
    const rows = await knex('events').where({ stream: `verification-${id}` }).select('type').count<{ type: string; count: string }[]>('* as count').groupBy('type');
    return Object.fromEntries(rows.map((r) => [r.type, Number(r.count)]));
  };
  const meteredCount = async (id: string) => Number((await knex('events').where({ type: 'VerificationMetered' }).whereRaw("data->>'verification_id' = ?", [id]).count<{ count: string }[]>('* as count'))[0]!.count);

  async function finished(id: string, token: string, minutes = 15): Promise<any> {
    for (const t0 = Date.now(); Date.now() - t0 < minutes * 60_000; await sleep(500)) {
      const v = (await callB('GET', `/v1/verifications/${id}`, { token })).body;
      if (v.status === 'completed' || v.status === 'failed') return v;
    }
    throw new Error(`verification ${id} did not finish in ${minutes} minutes`);
  }

  /** Which process ran (or runs) the verification's analysis, from Temporal's own record. */
  async function analysisPid(id: string, pending: boolean): Promise<number | undefined> {
    const handle = temporal!.client.workflow.getHandle(`verification-${id}`);
    if (pending) {
      const description = await handle.describe();
      const activity = description.raw.pendingActivities?.find((a) => a.activityType?.name === 'analyzeAndGrade' && a.lastWorkerIdentity);
      return pidOfIdentity(activity?.lastWorkerIdentity);
    }
    const history = await handle.fetchHistory();
    const started = (history.events ?? []).filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes!.identity);
    const scheduled = (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'analyzeAndGrade').map((e) => String(e.eventId));
    const analysisStarted = (history.events ?? []).filter((e) => e.activityTaskStartedEventAttributes && scheduled.includes(String(e.activityTaskStartedEventAttributes.scheduledEventId)));
    return pidOfIdentity(analysisStarted.at(-1)?.activityTaskStartedEventAttributes?.identity ?? started.at(-1));
  }

  beforeAll(async () => {
    const scratch = await databaseTargets.find((t) => t.name === 'postgres')!.scratchUrl();
    dropDatabase = scratch.drop;
    knex = knexFactory({ client: 'pg', connection: scratch.url, pool: { min: 0, max: 2 } });
    temporal = await startTemporalDevServer();
    env = {
      DATABASE_URL: scratch.url!,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_TASK_QUEUE: `pv-scale-${crypto.randomUUID()}`,
      ...(await s3ServiceEnv()),
      DATA_DIR: dataDir,
      JWT_SECRET: crypto.randomBytes(32).toString('base64url'),
      // One public address for every instance, as behind the proxy: the links name it, not an instance.
      PUBLIC_BASE_URL: 'https://photos.example.eu',
      LOGIN_RATE_LIMIT_PER_15_MIN: '20',
    };
    // The first instance writes the shared keys into DATA_DIR; the rest start together after it.
    apiA = await startInstance('api-a', 'api', env);
    const [b, ...rest] = await Promise.all([startInstance('api-b', 'api', env), startInstance('worker-1', 'worker', env), startInstance('worker-2', 'worker', env)]);
    apiB = b!;
    workers.push(...rest);
  }, 10 * 60_000);

  afterAll(async () => {
    await Promise.all(everyInstance().map((instance) => instance.stop()));
    await temporal?.stop();
    await knex?.destroy();
    await dropDatabase();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 120_000);

  it('each process reports its role; a worker serves no API', async () => {
    for (const api of [apiA, apiB]) {
      const health = await client(api.url)('GET', '/v1/public/health');
      expect([health.status, health.body.role]).toEqual([200, 'api']);
      expect(health.body.dependencies.blob_store).toMatchObject({ adapter: 's3' });
    }
    for (const worker of workers) {
      const call = client(worker.url);
      expect((await call('GET', '/ready')).body).toEqual({ status: 'ready', role: 'worker' });
      expect((await call('GET', '/health')).body).toMatchObject({ role: 'worker' });
      expect((await call('GET', '/v1/verifications/')).status).toBe(404);
      expect((await call('POST', '/v1/accounts', { json: {} })).status).toBe(405);
    }
  }, 60_000);

  it('uploads through A, analyses on a worker, and reads, shares, exports and downloads through B', async () => {
    const pro = await registerAccount(callA, { plan: 'professional' });
    const id = await uploaded(apiA.url, pro.token, pair30d);
    const done = await finished(id, pro.token);
    expect(done).toMatchObject({ status: 'completed', assurance_level: 'verified' });
    // The analysis ran on a worker process, not on an API.
    expect(workers.map((w) => w.process.pid)).toContain(await analysisPid(id, false));

    // The image and its thumbnail, through B, by B's redirect and by the link A signed.
    for (const [who, route] of [[apiB, '/image'], [apiA, '/image'], [apiB, '/renditions/thumbnail']] as const) {
      const redirect = await client(who.url)('GET', `/v1/verifications/${id}${route}`, { token: pro.token });
      expect(redirect.status).toBe(302);
      const file = await fetch(through(apiB, redirect.headers.get('location')!));
      expect([route, file.status]).toEqual([route, 200]);
      expect(file.headers.get('content-type')).toMatch(/^image\//);
      expect((await file.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    }

    // Shared through B; the link opens on A and on B, and so does its file.
    const shared = await callB('POST', `/v1/verifications/${id}/share`, { token: pro.token, json: { access_type: 'anyone_with_link' } });
    expect(shared.status).toBe(200);
    for (const who of [apiA, apiB]) {
      expect((await fetch(through(who, shared.body.share_url))).status).toBe(200);
      expect((await fetch(through(who, `${shared.body.share_url}/files/image`))).status).toBe(200);
    }

    // The PSD export, requested through B, built by a worker, downloaded through B.
    const requested = await callB('POST', `/v1/verifications/${id}/psd-export`, { token: pro.token });
    expect(requested.status).toBe(202);
    let exported: any;
    for (const t0 = Date.now(); Date.now() - t0 < 15 * 60_000; await sleep(1000)) {
      exported = (await callB('GET', `/v1/verifications/${id}/psd-export`, { token: pro.token })).body;
      if (exported.status === 'completed' || exported.status === 'failed') break;
    }
    expect(exported).toMatchObject({ status: 'completed', downloads_used: 0 });
    const download = await callB('GET', `/v1/verifications/${id}/psd-export/download`, { token: pro.token });
    expect(download.status).toBe(302);
    const psd = new Uint8Array(await (await fetch(through(apiB, download.headers.get('location')!))).arrayBuffer());
    expect(Buffer.from(psd.subarray(0, 4)).toString('latin1')).toBe('8BPS');
    expect(psd.byteLength).toBe(exported.file_size_bytes);
    expect((await callA('GET', `/v1/verifications/${id}/psd-export`, { token: pro.token })).body.downloads_used).toBe(1);

    const counts = await eventCounts(id);
    expect([counts.VerificationQueued, counts.VerificationCompleted, await meteredCount(id)]).toEqual([1, 1, 1]);
  }, 30 * 60_000);

  it('reads its writes on the other instance at once', async () => {
    const owner = await registerAccount(callB);
    // Logged in on B, the token works on A.
    const id = await uploaded(apiA.url, owner.token, { image: webp, names: ['a.webp'] });
    const onB = await callB('GET', `/v1/verifications/${id}`, { token: owner.token });
    expect(onB.status).toBe(200);
    expect((await callB('GET', '/v1/verifications/?size=100', { token: owner.token })).body.items.map((v: { id: string }) => v.id)).toContain(id);
    const shared = await callB('POST', `/v1/verifications/${id}/share`, { token: owner.token, json: { access_type: 'anyone_with_link' } });
    expect((await callA('GET', `/v1/verifications/${id}/share`, { token: owner.token })).body).toMatchObject({ access_type: 'anyone_with_link', share_url: shared.body.share_url });
    await finished(id, owner.token);
  }, 10 * 60_000);

  it('keeps the quota exact under concurrent uploads at its edge split between A and B', async () => {
    // Free: 5 pairs a month, then 402. Ten at once, five through each API.
    const free = await registerAccount(callA);
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => post((i % 2 ? apiA : apiB).url, free.token, pair6d)));
    const accepted = results.filter((r) => r.status === 201);
    expect(accepted).toHaveLength(5);
    expect(results.filter((r) => r.status === 402).map((r) => r.body.detail.error_code)).toEqual(Array(5).fill('QUOTA_EXCEEDED'));
    const usage = await callB('GET', `/v1/accounts/${free.account.id}/usage`, { token: free.token });
    expect(usage.body).toMatchObject({ plan: 'free', included: 5, included_used: 5, included_remaining: 0 });
    for (const r of accepted) expect((await finished(r.body.id, free.token)).status).toBe('completed');
    expect(await Promise.all(accepted.map((r) => meteredCount(r.body.id)))).toEqual(Array(5).fill(1));
  }, 20 * 60_000);

  it('keeps the login limit exact under concurrent wrong passwords split between A and B', async () => {
    const { email } = await registerAccount(callA);
    const answers: CallResult[] = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? callA : callB)('POST', '/v1/accounts/login', { json: { email, password: `wrong guess ${i}` } })));
    expect(answers.filter((res) => res.status === 401)).toHaveLength(20);
    const limited = answers.filter((res) => res.status === 429);
    expect(limited).toHaveLength(10);
    for (const res of limited) expect(res.body.detail.error_code).toBe('RATE_LIMIT_EXCEEDED');
  }, 120_000);

  it('finishes an analysis once on the other worker when the one holding it is SIGKILLed', async () => {
    const owner = await registerAccount(callA, { plan: 'professional' });
    const id = await uploaded(apiB.url, owner.token, pair30d);
    let holder: number | undefined;
    for (const t0 = Date.now(); !holder && Date.now() - t0 < 10 * 60_000; ) {
      holder = await analysisPid(id, true);
      if (!holder) await sleep(50);
    }
    const victim = workers.find((w) => w.process.pid === holder);
    expect(victim, `the analysis is held by pid ${holder}, not by a worker (${workers.map((w) => w.process.pid)})`).toBeDefined();
    await victim!.crash();
    const survivor = workers.find((w) => w !== victim)!;

    const done = await finished(id, owner.token);
    expect(done).toMatchObject({ status: 'completed', assurance_level: 'verified' });
    expect(await analysisPid(id, false)).toBe(survivor.process.pid);
    const counts = await eventCounts(id);
    expect(counts).toMatchObject({ VerificationQueued: 1, VerificationStarted: 1, AnalysisRecorded: 8, VerificationGraded: 1, VerificationCompleted: 1 });
    expect(await meteredCount(id)).toBe(1);
    const usage = await callA('GET', `/v1/accounts/${owner.account.id}/usage`, { token: owner.token });
    expect(usage.body.included_used).toBe(1);

    // The deployment gets its second worker back for what follows.
    workers[workers.indexOf(victim!)] = await startInstance(`${victim!.name}-restarted`, 'worker', env);
  }, 20 * 60_000);

  it(`completes ${IMAGES} image-only and ${PAIRS} pair uploads spread over both APIs: none lost, none duplicated`, async () => {
    const images = await registerAccount(callA);
    const pairs = await registerAccount(callB, { plan: 'professional' });
    const jobs = [...Array.from({ length: IMAGES }, () => ({ token: images.token, files: { image: webp, names: ['a.webp'] } })), ...Array.from({ length: PAIRS }, () => ({ token: pairs.token, files: pair30d }))];
    // Interleaved, so pairs arrive while image-only checks run; 8 uploads in flight at a time.
    const order = jobs.map((job, i) => ({ job, key: (i * 7919) % jobs.length })).sort((a, b) => a.key - b.key).map((x) => x.job);
    const ids: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < order.length) {
          const i = next++;
          ids[i] = await uploaded((i % 2 ? apiA : apiB).url, order[i]!.token, order[i]!.files);
        }
      }),
    );
    expect(new Set(ids).size).toBe(IMAGES + PAIRS);

    const streams = ids.map((id) => `verification-${id}`);
    const terminal = async () => Number((await knex('events').whereIn('stream', streams).whereIn('type', ['VerificationCompleted', 'VerificationFailed']).count<{ count: string }[]>('* as count'))[0]!.count);
    const t0 = Date.now();
    let ended = 0;
    for (; ended < ids.length && Date.now() - t0 < 60 * 60_000; await sleep(2000)) ended = await terminal();
    console.info(`[scale] ${IMAGES} image-only + ${PAIRS} pairs through 2 APIs and 2 workers: all ended ${Math.round((Date.now() - t0) / 1000)} s after the last upload (load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')})`);
    expect(ended).toBe(ids.length);

    // Exactly one of each per verification: nothing lost, nothing run twice.
    const rows = await knex('events').whereIn('stream', streams).whereIn('type', ['VerificationQueued', 'VerificationCompleted', 'VerificationFailed']).select('stream', 'type').count<{ stream: string; type: string; count: string }[]>('* as count').groupBy('stream', 'type');
    const per = (type: string) => rows.filter((r) => r.type === type);
    expect(per('VerificationQueued').length).toBe(ids.length);
    expect(per('VerificationCompleted').length).toBe(ids.length);
    expect(per('VerificationFailed')).toEqual([]);
    expect(rows.filter((r) => Number(r.count) !== 1)).toEqual([]);
    const metered = Number((await knex('events').where({ type: 'VerificationMetered' }).whereRaw("data->>'account_id' = ?", [pairs.account.id]).count<{ count: string }[]>('* as count'))[0]!.count);
    expect(metered).toBe(PAIRS);

    // And the read side, through B, agrees.
    const listed = async (token: string) => {
      const seen: string[] = [];
      for (let offset = 0; ; offset += 100) {
        const body = (await callB('GET', `/v1/verifications/?size=100&offset=${offset}`, { token })).body;
        seen.push(...body.items.filter((v: { status: string }) => v.status === 'completed').map((v: { id: string }) => v.id));
        if (body.items.length < 100) return seen;
      }
    };
    expect(new Set([...(await listed(images.token)), ...(await listed(pairs.token))])).toEqual(new Set(ids));
    const usage = await callB('GET', `/v1/accounts/${pairs.account.id}/usage`, { token: pairs.token });
    expect(usage.body.included_used).toBe(PAIRS);
  }, 90 * 60_000);
});

