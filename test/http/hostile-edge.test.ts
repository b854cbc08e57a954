import { Writable } from 'node:stream';
import zlib from 'node:zlib';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loadConfig } from '../../src/core/config.js';
import { startService, type Service } from '../../src/service.js';
import { scanJsonStructure } from '../../src/adapters/http/json-limits.js';
import { databaseTargets } from '../support/databases.js';
import { client, registerAccount, startTestService, uploadImage } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';
import { callTool, inline } from '../support/mcp.js';

/**
 * Issue 21's HTTP-edge defects, each as a hostile client sends it: a huge JSON body (1), text
 * PostgreSQL cannot hold (2), malformed %-escapes (4), a false Content-Encoding (5), signed URLs
 * in the log (8), a forged X-Forwarded-For (12), /blobs without hardening headers (13).
 */

const fixture = (file: string) => fs.readFileSync(path.resolve(import.meta.dirname, '../../../shared/fixtures', file));
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"k0":1,…}}` with `keys` keys: the probe's body. */
function manyKeys(keys: number): string {
  const parts: string[] = [];
  for (let i = 0; i < keys; i++) parts.push(`"k${i}":1`);
  return `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{${parts.join(',')}}}`;
}

/** Runs `send` while watching JSON.parse (the service runs in this process) for texts over `bytes`. */
async function largeParsesDuring<T>(bytes: number, send: () => Promise<T>): Promise<{ result: T; parsed: number }> {
  const original = JSON.parse;
  let parsed = 0;
  const spy = vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: any) => {
    if (typeof text === 'string' && text.length > bytes) parsed++;
    return original(text, reviver);
  });
  try {
    return { result: await send(), parsed };
  } finally {
    spy.mockRestore();
  }
}

/** A keyless MCP client whose requests carry extra headers (X-Forwarded-For). */
async function keylessClient(baseUrl: string, headers: Record<string, string>): Promise<Client> {
  const mcp = new Client({ name: 'hostile-edge', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers } }));
  await mcp.listTools();
  return mcp;
}

async function keylessVerifyImage(baseUrl: string, headers: Record<string, string> = {}) {
  const mcp = await keylessClient(baseUrl, headers);
  try {
    return await callTool(mcp, 'verify_image', { image: inline('a.webp', fixture('images/rs_sample1.webp')), wait_seconds: 0 });
  } finally {
    await mcp.close();
  }
}

describe('the structural pre-scan of JSON bytes', () => {
  it('counts entries and depth, skips string contents (escaped quotes included), and stops at a limit', () => {
    expect(scanJsonStructure(Buffer.from('{"a":[1,2,{"b":"x,y{[\\"]}"}]}'))).toEqual({ ok: true, entries: 5, depth: 3 });
    expect(scanJsonStructure(Buffer.from(manyKeys(10_001)))).toEqual({ ok: false, reason: 'entries' });
    expect(scanJsonStructure(Buffer.from(`${'['.repeat(33)}${']'.repeat(33)}`))).toEqual({ ok: false, reason: 'depth' });
    expect(scanJsonStructure(Buffer.from('"\\\\"'))).toEqual({ ok: true, entries: 0, depth: 0 });
  });
});

for (const target of databaseTargets) {
  describe(`hostile input at the HTTP edge on ${target.name}`, () => {
    const { t, call } = serviceSuite(target);
    let token: string;
    beforeAll(async () => {
      ({ token } = await registerAccount(call));
    }, 120_000);

    it('refuses a keyless /mcp body of 200,000 keys by its structure, before parsing it, while health answers (defect 1)', async () => {
      const body = manyKeys(200_000);
      const { result, parsed } = await largeParsesDuring(1_000_000, async () => {
        const hostile = fetch(`${t.url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body });
        const health = await call('GET', '/v1/public/health');
        const response = await hostile;
        return { health, status: response.status, answer: (await response.json()) as any };
      });
      expect(result.status).toBe(413);
      expect(result.answer.detail).toMatchObject({ error_code: 'PAYLOAD_TOO_LARGE', details: { limit: 10_000, counted: 'keys and array items' } });
      expect(parsed, 'the hostile body reached JSON.parse').toBe(0);
      expect(result.health.status).toBe(200);
      // A body nested deeper than any request needs is refused the same way.
      const deep = await fetch(`${t.url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"a":${'['.repeat(5000)}${']'.repeat(5000)}}}` });
      expect(deep.status).toBe(413);
      // An ordinary keyless exchange still works.
      expect((await keylessVerifyImage(t.url)).error).toBeUndefined();
    }, 180_000);

    it('bounds REST bodies by structure, and by a smaller byte limit for callers without credentials (defect 1)', async () => {
      const items = `[${Array(20_000).fill('1').join(',')}]`; // 40 KB: under the 64 KiB limit
      const tags = await call('POST', '/v1/tags/', { token, body: items });
      expect(tags.status).toBe(413);
      expect(tags.body.detail.error_code).toBe('PAYLOAD_TOO_LARGE');
      const padded = { email: 'nobody@example.eu', password: 'x'.repeat(20_000) };
      expect((await call('POST', '/v1/accounts/login', { json: padded })).status).toBe(413);
      // With credentials the same body is read (and then judged: the token is not valid).
      expect((await call('POST', '/v1/accounts/login', { json: padded, token: 'not-a-token' })).status).toBe(401);
    }, 60_000);

    it('refuses NUL and unpaired surrogates anywhere in a JSON body with 422 naming the field, leaving nothing half-written (defect 2)', async () => {
      const email = `surrogate-${Date.now()}@example.eu`;
      const admin = { email, name: 'Admin', password: 'a long enough password' };
      await t.settled(); // earlier tests' verifications append their last events asynchronously
      const before = await t.eventCount();
      const lone = await call('POST', '/v1/accounts', { json: { name: 'x\ud800', admin } });
      expect(lone.status).toBe(422);
      expect(lone.body.detail[0]).toMatchObject({ loc: ['body', 'name'], type: 'string_unrepresentable' });
      const nulInKey = await call('POST', '/v1/accounts', { json: { name: 'Fine', admin: { ...admin, ['na\u0000me']: 'x' } } });
      expect(nulInKey.status).toBe(422);
      expect(nulInKey.body.detail[0].loc).toEqual(['body', 'admin', 'na\u0000me']);
      expect(await t.eventCount()).toBe(before);
      // The address was not taken by the refused attempts.
      expect((await call('POST', '/v1/accounts', { json: { name: 'Fine', admin } })).status).toBe(201);

      const mcp = await fetch(`${t.url}/mcp`, {
        method: 'POST',
        headers: MCP_HEADERS,
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_upload', arguments: { filename: 'a\udc00.jpg' } } }),
      });
      expect(mcp.status).toBe(422);
      expect(((await mcp.json()) as any).detail[0].loc).toEqual(['body', 'params', 'arguments', 'filename']);
    }, 60_000);

    it('refuses NUL in query and path values with 422 (defect 2)', async () => {
      const query = await call('GET', '/v1/verifications/?search=a%00b', { token });
      expect(query.status).toBe(422);
      expect(query.body.detail[0].loc).toEqual(['query', 'search']);
      const pathValue = await call('GET', '/v1/verifications/a%00b', { token });
      expect(pathValue.status).toBe(422);
      expect(pathValue.body.detail[0].loc).toEqual(['path', 'verification_id']);
    });

    it('answers a malformed %-escape in a path parameter with 400, an HTML page on page routes (defect 4)', async () => {
      for (const route of ['/v1/verifications/%ZZ', '/v1/verifications/%E0%A4%A', '/blobs/%ZZ?exp=1&ct=image%2Fjpeg&sig=x', '/uploads/%ZZ', '/docs/assets/%ZZ']) {
        const res = await call(route.startsWith('/uploads') ? 'PUT' : 'GET', route, { token });
        expect(res.status, route).toBe(400);
        expect(res.body.detail.error_code, route).toBe('VALIDATION_ERROR');
        expect(res.body.detail.suggestion, route).toMatch(/percent-encode/i);
      }
      // Also without credentials.
      expect((await call('GET', '/v1/verifications/%ZZ')).status).toBe(400);
      for (const route of ['/shared/%ZZ', '/shared/%ZZ/files/image']) {
        const page = await call('GET', route);
        expect(page.status, route).toBe(400);
        expect(page.headers.get('content-type'), route).toMatch(/^text\/html/);
      }
    });

    it('answers a body that is not what its Content-Encoding says with 400, and inflates genuine ones within the limit (defect 5)', async () => {
      const login = JSON.stringify({ email: 'nobody@example.eu', password: 'wrong password' });
      for (const encoding of ['gzip', 'deflate', 'br']) {
        for (const [method, route, options] of [
          ['POST', '/v1/accounts/login', {}],
          ['POST', '/v1/tags/', { token }],
        ] as const) {
          const res = await call(method, route, { ...options, body: login, headers: { 'content-encoding': encoding } });
          expect(res.status, `${encoding} ${route}`).toBe(400);
          expect(res.body.detail.error_code).toBe('VALIDATION_ERROR');
        }
        const mcp = await fetch(`${t.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, 'content-encoding': encoding }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
        expect(mcp.status, `${encoding} /mcp`).toBe(400);
      }
      // A genuinely gzipped body is read (wrong password: 401, not a parse error).
      const gzipped = await fetch(`${t.url}/v1/accounts/login`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: zlib.gzipSync(login) });
      expect(gzipped.status).toBe(401);
      // A compression bomb stops at the limit: 50 MB of spaces gzip to about 50 KB.
      const bomb = zlib.gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20));
      const bombed = await fetch(`${t.url}/v1/tags/`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', authorization: `Bearer ${token}` }, body: bomb });
      expect(bombed.status).toBe(413);
    }, 60_000);

    it('answers health 200 "degraded", not 503, while the database is too busy to answer its probe (defect 13)', async () => {
      let locked!: () => void;
      let release!: () => void;
      const lockHeld = new Promise<void>((resolve) => (locked = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      // The event log locked by a long transaction, as a heavy start-up catch-up or load holds it.
      const busy = t.service.deps.knex.transaction(async (trx) => {
        await trx.raw('lock table events in access exclusive mode');
        locked();
        await released;
      });
      await lockHeld;
      const health = await call('GET', '/v1/public/health').finally(release);
      await busy;
      expect(health.status).toBe(200);
      expect(health.body.status).toBe('degraded');
      expect(health.body.dependencies.event_store).toMatchObject({ status: 'degraded', detail: expect.stringMatching(/no answer within/) });
      expect((await call('GET', '/v1/public/health')).body.status).toBe('ok');
    }, 60_000);

    it('serves /blobs with nosniff and a sandboxing CSP (defect 13)', async () => {
      const id = await uploadImage(t.url, token);
      const redirect = await call('GET', `/v1/verifications/${id}/image`, { token });
      expect(redirect.status).toBe(302);
      const blob = await fetch(redirect.headers.get('location')!);
      expect(blob.status).toBe(200);
      expect(blob.headers.get('x-content-type-options')).toBe('nosniff');
      expect(blob.headers.get('content-security-policy')).toMatch(/(^|; )sandbox(;|$)/);
      expect(blob.headers.get('content-security-policy')).toContain("default-src 'none'");
      await blob.arrayBuffer();
    }, 60_000);
  });
}

describe('which proxies may name the client (defect 12)', () => {
  it('reads TRUST_PROXY as express does, and refuses what is not a proxy', () => {
    expect(loadConfig({}).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8, 2001:db8::1' }).TRUST_PROXY).toBe('loopback,10.0.0.0/8,2001:db8::1');
    expect(() => loadConfig({ TRUST_PROXY: 'everyone' })).toThrow(/TRUST_PROXY/);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/99' })).toThrow(/TRUST_PROXY/);
  });

  const target = databaseTargets[0]!;
  for (const [trust, honoured] of [[undefined, false], ['loopback', true]] as const) {
    it(`a loopback client's X-Forwarded-For ${honoured ? 'is' : 'is not'} honoured with TRUST_PROXY ${trust ?? 'unset'}`, async () => {
      const t = await startTestService(target, { ANONYMOUS_UPLOADS_PER_HOUR: '1', ...(trust ? { TRUST_PROXY: trust } : {}) });
      try {
        expect((await keylessVerifyImage(t.url)).error).toBeUndefined();
        expect((await keylessVerifyImage(t.url)).error?.error_code).toBe('RATE_LIMIT_EXCEEDED');
        const forged = await keylessVerifyImage(t.url, { 'x-forwarded-for': '203.0.113.7' });
        if (honoured) expect(forged.error).toBeUndefined();
        else expect(forged.error?.error_code).toBe('RATE_LIMIT_EXCEEDED');
      } finally {
        await t.stop();
      }
    }, 120_000);
  }
});

describe('signed URLs in the log (defect 8)', () => {
  let service: Service;
  let lines: string[];
  let dataDir: string;
  beforeAll(async () => {
    lines = [];
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-log-'));
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, PASSWORD_HASH_COST: '10', LOG_LEVEL: 'info' });
    service = await startService(config, { logger: pino({ level: 'info' }, sink), inMemoryDatabase: true });
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('writes neither a download URL\'s signature nor an upload URL\'s id to the log', async () => {
    const call = client(service.url);
    const { token } = await registerAccount(call);
    const id = await uploadImage(service.url, token);
    const redirect = await call('GET', `/v1/verifications/${id}/image`, { token });
    const download = new URL(redirect.headers.get('location')!);
    expect((await fetch(download)).status).toBe(200);

    const mcp = await keylessClient(service.url, {});
    const ticket = (await callTool(mcp, 'create_upload', { filename: 'a.webp' })).output as { upload_url: string; upload_id: string };
    await mcp.close();
    const put = await fetch(ticket.upload_url, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: fixture('images/rs_sample1.webp') });
    expect(put.status).toBe(200);

    const log = lines.join('');
    const signature = download.searchParams.get('sig')!;
    expect(signature.length).toBeGreaterThan(20);
    expect(log).toContain('/blobs/'); // the requests were logged
    expect(log).toContain('/uploads/');
    expect(log).not.toContain(signature);
    expect(log).not.toContain(ticket.upload_id);
    expect(log).toContain('sig=[redacted]');
  }, 120_000);
});
