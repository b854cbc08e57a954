import { afterAll, beforeAll } from 'vitest';
import { SESSIONS_OUTLIVE_CLOCK } from './clock.js';
import type { DatabaseTarget } from './databases.js';
import { client, registerAccount, startTestService, type TestService, type TestServiceOptions } from './service.js';

export type Call = ReturnType<typeof client>;
export type Account = Awaited<ReturnType<typeof registerAccount>>;

export interface ServiceSuite {
  /** The suite's service (it follows `t.restart()`). */
  t: TestService;
  /** HTTP to it over the socket, as `client(t.url)`. */
  call: Call;
  /**
   * An account registered (its admin logged in) in a beforeAll of its own, after the ones declared
   * before this call; `overrides` go to registerAccount. Call it in the describe body, not in a test.
   */
  newAccount(overrides?: Record<string, unknown>): Account;
}

/**
 * The preamble of a suite over one service: a beforeAll that starts it on the target (`env` and
 * `options` as for startTestService) and an afterAll that stops it. `t`, `call` and the accounts are
 * stand-ins that read the real ones once the hooks have run, so the suite names them at declaration
 * and uses them in its own hooks and tests. A suite's own setup goes in a beforeAll declared after
 * this call: vitest runs beforeAll hooks in order and afterAll hooks in reverse, so the suite's own
 * teardown runs while the service is still up.
 *
 * A suite that passes a `clock` moves the service's time, and access tokens expire on it: its
 * sessions outlive the moves (SESSIONS_OUTLIVE_CLOCK) unless `env` sets JWT_TTL_SECONDS itself.
 */
export function serviceSuite(target: DatabaseTarget, env: Record<string, string> = {}, options: TestServiceOptions = {}): ServiceSuite {
  let started: TestService | undefined;
  const running = (): TestService => {
    if (!started) throw new Error('the service is not started yet: use it in a hook or test, after serviceSuite');
    return started;
  };
  beforeAll(async () => {
    started = await startTestService(target, options.clock ? { ...SESSIONS_OUTLIVE_CLOCK, ...env } : env, options);
  });
  afterAll(async () => started?.stop());

  const t: TestService = {
    get service() {
      return running().service;
    },
    get url() {
      return running().url;
    },
    get dataDir() {
      return running().dataDir;
    },
    eventCount: () => running().eventCount(),
    storedBlobs: () => running().storedBlobs(),
    settled: () => running().settled(),
    restart: () => running().restart(),
    stop: () => running().stop(),
  };
  const call: Call = (method, route, callOptions) => client(running().url)(method, route, callOptions);

  const newAccount = (overrides: Record<string, unknown> = {}): Account => {
    let registered: Account | undefined;
    beforeAll(async () => {
      registered = await registerAccount(call, overrides);
    });
    const current = (): Account => {
      if (!registered) throw new Error('the account is not registered yet: use it in a hook or test, after serviceSuite');
      return registered;
    };
    return {
      get account() {
        return current().account;
      },
      get user() {
        return current().user;
      },
      get token() {
        return current().token;
      },
      get email() {
        return current().email;
      },
      get password() {
        return current().password;
      },
    };
  };

  return { t, call, newAccount };
}
