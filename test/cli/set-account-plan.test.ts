/**
 * The operator command that records contract terms (Enterprise), run as a child process against
 * a service's embedded database while the service is stopped, as operations.md describes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.js';
import { startService, type Service } from '../../src/service.js';
import { runNode } from '../support/processes.js';
import { client, registerAccount } from '../support/service.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-operator-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const start = () =>
  startService(loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, PASSWORD_HASH_COST: '10', LOG_LEVEL: 'silent', DATABASE_URL: '', TEMPORAL_ADDRESS: '' }), {
    logger: pino({ level: 'silent' }),
  });

const setPlan = (args: string[]) =>
  runNode(['dist/src/cli/operator.js', 'accounts:set-plan', ...args], { DATA_DIR: dataDir, DATABASE_URL: '', EVENTSTORE_URL: '', LOG_LEVEL: 'silent' });

describe('npm run accounts:set-plan', () => {
  let service: Service | undefined;
  afterAll(async () => service?.stop(), 120_000);

  // Slow by nature, not by mistake (28 s alone): two starts of a service on an on-disk PGlite
  // (its WebAssembly database opened, migrated and projected each time) and two child processes
  // that each open that database again. Sized for a machine at load 10 on two cores (about 4
  // times slower), with room to spare.
  it('grants Enterprise terms that the account admin cannot, recorded with the operator as actor', async () => {
    // The argument errors open no database: checked meanwhile, beside the service's start.
    const refusals = Promise.all([setPlan(['--account', '00000000-0000-4000-8000-000000000001', '--plan', 'platinum']), setPlan(['--account', '00000000-0000-4000-8000-000000000001'])]);
    service = await start();
    const admin = await registerAccount(client(service.url), { plan: 'professional' });
    await service.stop();
    service = undefined;

    const [platinum, nothing] = await refusals;
    expect([platinum.code, platinum.stderr]).toEqual([2, expect.stringMatching(/--plan must be one of/)]);
    expect([nothing.code, nothing.stderr]).toEqual([2, expect.stringMatching(/Nothing to change/)]);
    expect((await setPlan(['--account', '00000000-0000-4000-8000-000000000000', '--plan', 'enterprise'])).stderr).toMatch(/Account not found/);
    const granted = await setPlan(['--account', admin.account.id, '--plan', 'enterprise', '--budget-cap', 'none']);
    expect(granted.stderr).toBe('');
    expect(granted.code).toBe(0);
    expect(JSON.parse(granted.stdout)).toMatchObject({ plan: 'enterprise', monthly_budget_cap_eur: null });

    service = await start();
    const call = client(service.url);
    const token = (await call('POST', '/v1/accounts/login', { json: { email: admin.email, password: admin.password } })).body.access_token;
    const account = await call('GET', `/v1/accounts/${admin.account.id}`, { token });
    expect(account.body.plan).toBe('enterprise');
    const audit = await call('GET', `/v1/audit/streams/account-${admin.account.id}`, { token });
    expect(audit.body.events.at(-1)).toMatchObject({ type: 'AccountSettingsChanged', metadata: { actor: { type: 'system', id: 'operator' } } });
    // Enterprise is the contract's to end, not the admin's; the budget stays the admin's.
    const downgrade = await call('PATCH', `/v1/accounts/${admin.account.id}`, { token, json: { plan: 'free' } });
    expect([downgrade.status, downgrade.body.detail?.error_code]).toEqual([403, 'ACCESS_DENIED']);
    expect((await call('PATCH', `/v1/accounts/${admin.account.id}`, { token, json: { monthly_budget_cap_eur: 50 } })).body).toMatchObject({ plan: 'enterprise', monthly_budget_cap_eur: 50 });
  }, 10 * 60_000);
});
