import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { callTool, connectMcp, type ToolOutcome } from '../support/mcp.js';
import { serviceSuite } from '../support/suite.js';
import { seedVerification } from './psd-export-support.js';
import type { StubPsdDeps } from '../support/psd-stub.js';

/**
 * An agent requests and fetches a PSD export through the MCP tool `export_psd` (issue 23,
 * must-work 3): the same use cases as REST, the same errors, each download counted. The builder
 * is a stub (the file's own suites build real ones).
 */
vi.mock('../../src/features/psd-export/psd-file.js', async (importOriginal) => {
  const { storeStubPsd } = await import('../support/psd-stub.js');
  return { ...(await importOriginal<object>()), buildPsdExport: (deps: StubPsdDeps, verificationId: string) => storeStubPsd(deps, verificationId) };
});

function expectToolError(outcome: ToolOutcome, code: string) {
  expect(outcome.result.isError, JSON.stringify(outcome.result)).toBe(true);
  expect(outcome.error).toMatchObject({ error_code: code, message: expect.any(String), suggestion: expect.any(String) });
}

for (const target of databaseTargets) describe(`the export_psd tool on ${target.name}`, () => {
  const { t, call, newAccount } = serviceSuite(target);
  const pro = newAccount({ plan: 'professional' });
  const basic = newAccount({ plan: 'basic' });
  const agents: Client[] = [];
  const agentOf = async (token: string, accountId: string, scope = 'full') => {
    const key = await call('POST', '/v1/apikeys/', { token, json: { account_id: accountId, scope } });
    expect(key.status).toBe(201);
    const agent = await connectMcp(t.url, key.body.raw_key);
    agents.push(agent);
    return agent;
  };
  let agent: Client;
  beforeAll(async () => {
    agent = await agentOf(pro.token, pro.account.id);
  });
  afterAll(async () => {
    for (const a of agents) await a.close();
  });

  it('requests the export, waits for it, and fetches it: each download_url uses one of the 5', async () => {
    const pair = await seedVerification(t, pro.account.id);
    const first = await callTool(agent, 'export_psd', { verification_id: pair });
    expect(first.output).toMatchObject({ status: 'completed', downloads_used: 0, downloads_limit: 5, canvas_width: 30, canvas_height: 20 });
    expect(first.output).not.toHaveProperty('download_url');

    const fetched = await callTool(agent, 'export_psd', { verification_id: pair, download: true });
    expect(fetched.output).toMatchObject({ status: 'completed', downloads_used: 1, created_at: (first.output as { created_at: string }).created_at });
    const file = await fetch((fetched.output as { download_url: string }).download_url);
    expect(await file.text()).toBe(`8BPS stub export of ${pair}`);
    // The REST status is the same export.
    expect((await call('GET', `/v1/verifications/${pair}/psd-export`, { token: pro.token })).body.downloads_used).toBe(1);

    for (let used = 2; used <= 5; used++) expect((await callTool(agent, 'export_psd', { verification_id: pair, download: true })).output).toMatchObject({ downloads_used: used });
    expectToolError(await callTool(agent, 'export_psd', { verification_id: pair, download: true }), 'DOWNLOAD_LIMIT_REACHED');
  });

  it('answers the same errors as REST', async () => {
    const imageOnly = await seedVerification(t, pro.account.id, 'image_only');
    expectToolError(await callTool(agent, 'export_psd', { verification_id: imageOnly, wait: 0 }), 'VALIDATION_ERROR');
    const theirs = await seedVerification(t, basic.account.id);
    expectToolError(await callTool(agent, 'export_psd', { verification_id: theirs, wait: 0 }), 'VERIFICATION_NOT_FOUND');
    const basicAgent = await agentOf(basic.token, basic.account.id);
    expectToolError(await callTool(basicAgent, 'export_psd', { verification_id: theirs, wait: 0 }), 'NOT_ENTITLED');
    const keyless = await connectMcp(t.url);
    agents.push(keyless);
    expectToolError(await callTool(keyless, 'export_psd', { verification_id: theirs, wait: 0 }), 'AUTHENTICATION_REQUIRED');
    const reader = await agentOf(pro.token, pro.account.id, 'read');
    expectToolError(await callTool(reader, 'export_psd', { verification_id: await seedVerification(t, pro.account.id), wait: 0 }), 'ACCESS_DENIED');
  });
});
