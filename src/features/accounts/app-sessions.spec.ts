import { describe, it } from 'vitest';
import { given } from '../../../test/support/decider-spec.js';
import { appSessionDecider, APP_SESSION_USE_RECORD_INTERVAL_MS, type AppSessionCommand } from './app-sessions.js';
import type { AppSessionEvent } from './events.js';

const SESSION = '0c000000-0000-4000-8000-000000000001';
const ACCOUNT = '0a000000-0000-4000-8000-000000000001';
const USER = '0b000000-0000-4000-8000-000000000001';
const STARTED_AT = new Date('2026-03-02T10:00:00.000Z');
const at = (ms: number) => new Date(STARTED_AT.getTime() + ms);
const HASH = 'a'.repeat(64);

const start: AppSessionCommand = { type: 'StartAppSession', session_id: SESSION, account_id: ACCOUNT, user_id: USER, token_sha256: HASH, password_changed_at: null, now: STARTED_AT };
const started: AppSessionEvent = {
  type: 'AppSessionStarted',
  data: { session_id: SESSION, account_id: ACCOUNT, user_id: USER, token_sha256: HASH, password_changed_at: null, started_at: STARTED_AT.toISOString() },
};
const used = (ms: number): AppSessionEvent => ({ type: 'AppSessionUsed', data: { session_id: SESSION, used_at: at(ms).toISOString() } });
const signedOut = (ms: number): AppSessionEvent => ({ type: 'AppSessionSignedOut', data: { session_id: SESSION, signed_out_at: at(ms).toISOString() } });

describe('app session decider', () => {
  describe('given no session', () => {
    it('StartAppSession starts it, recording only the secret’s hash', () => {
      given(appSessionDecider, []).when(start).then([started]);
    });
    it('a use or a sign-out records nothing', () => {
      given(appSessionDecider, []).when({ type: 'RecordAppSessionUse', now: at(120_000) }).thenNothing();
      given(appSessionDecider, []).when({ type: 'SignOutAppSession', now: at(120_000) }).thenNothing();
    });
  });

  describe('given a live session', () => {
    it('StartAppSession again (a retried append) records nothing', () => {
      given(appSessionDecider, [started]).when(start).thenNothing();
    });
    it('a use within a minute of the last recorded one records nothing; a minute after, it is recorded', () => {
      given(appSessionDecider, [started]).when({ type: 'RecordAppSessionUse', now: at(APP_SESSION_USE_RECORD_INTERVAL_MS - 1) }).thenNothing();
      given(appSessionDecider, [started]).when({ type: 'RecordAppSessionUse', now: at(APP_SESSION_USE_RECORD_INTERVAL_MS) }).then([used(APP_SESSION_USE_RECORD_INTERVAL_MS)]);
      given(appSessionDecider, [started, used(90_000)]).when({ type: 'RecordAppSessionUse', now: at(120_000) }).thenNothing();
      given(appSessionDecider, [started, used(90_000)]).when({ type: 'RecordAppSessionUse', now: at(150_000) }).then([used(150_000)]);
    });
    it('SignOutAppSession signs it out', () => {
      given(appSessionDecider, [started, used(90_000)]).when({ type: 'SignOutAppSession', now: at(100_000) }).then([signedOut(100_000)]);
    });
  });

  describe('given a signed-out session', () => {
    it('records no use and no second sign-out', () => {
      given(appSessionDecider, [started, signedOut(1000)]).when({ type: 'RecordAppSessionUse', now: at(3_600_000) }).thenNothing();
      given(appSessionDecider, [started, signedOut(1000)]).when({ type: 'SignOutAppSession', now: at(3_600_000) }).thenNothing();
    });
  });
});
