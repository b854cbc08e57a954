import { execFile, spawnSync } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { requires } from '../support/requires.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * Interoperability with an independent client: the official Python MCP SDK (`pip install mcp`,
 * installed by .ci/run). Skipped, saying so, where it is not installed.
 */
const pythonMcp = requires(
  { server: 'Python MCP SDK', available: spawnSync('python3', ['-c', 'import mcp.client.streamable_http, mcp.client.session'], { encoding: 'utf8' }).status === 0, how: 'pip install mcp' },
  'the MCP interoperability check with the official Python SDK',
);
const script = path.resolve(import.meta.dirname, '../../scripts/mcp-python-client.py');
const image = path.resolve(import.meta.dirname, '../../../shared/fixtures/c2pa/pt_adobe-20220124-C.jpg');

describe('MCP interoperability with the official Python SDK', () => {
  let t: TestService;
  beforeAll(async () => {
    if (pythonMcp.available) t = await startTestService(databaseTargets[0]!);
  }, 120_000);
  afterAll(async () => t?.stop());

  pythonMcp.it('lists the tools and runs the keyless image-only check', async () => {
    // Asynchronous: the service answering it runs in this process.
    const { stdout } = await promisify(execFile)('python3', [script, t.url, image], { timeout: 180_000 });
    const out = JSON.parse(stdout);
    expect(out.server).toBe('photoverify');
    const names = out.tools.map((tool: { name: string }) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['verify_image', 'verify_pair', 'get_verification', 'create_upload']));
    expect(out.tools.every((tool: { has_output_schema: boolean }) => tool.has_output_schema)).toBe(true);
    expect(out.is_error).toBe(false);
    expect(out.structured).toMatchObject({ done: true, status: 'completed', verification: { verification_mode: 'image_only', name: 'pt_adobe-20220124-C.jpg' } });
    expect(out.structured.anonymous_user_id).toMatch(/^anon_/);
    expect(out.text).toContain(out.structured.verification_id);
  });
});
