import { describe, it } from 'vitest';
import { given } from '../../../test/support/decider-spec.js';
import { apiKeyDecider, KEY_USE_RECORD_INTERVAL_MS, type ApiKeyCommand } from './decider.js';
import type { ApiKeyEvent } from './events.js';

const KEY = '0c000000-0000-4000-8000-000000000001';
const ACCOUNT = '0a000000-0000-4000-8000-000000000001';
const OTHER_ACCOUNT = '0a000000-0000-4000-8000-000000000002';
const USER = '0b000000-0000-4000-8000-000000000001';

const CREATED_AT = new Date('2026-03-01T12:00:00.000Z');
const NOW = new Date('2026-03-05T08:00:00.000Z');
const later = (ms: number) => new Date(NOW.getTime() + ms);

/** What the command names and the event records unchanged. */
const key = {
  key_id: KEY,
  account_id: ACCOUNT,
  user_id: USER,
  prefix: 'pv_live_ab12',
  key_hash: 'hash-of-secret',
  description: 'CI uploads',
  scope: 'read',
} as const;

const create: ApiKeyCommand = { type: 'CreateApiKey', ...key, expires_in_days: 90, now: CREATED_AT };

const created: ApiKeyEvent = {
  type: 'ApiKeyCreated',
  data: { ...key, created_at: '2026-03-01T12:00:00.000Z', expires_at: '2026-05-30T12:00:00.000Z' },
};
const used = (at: Date): ApiKeyEvent => ({ type: 'ApiKeyUsed', data: { key_id: KEY, used_at: at.toISOString() } });
const revoked = (at: Date): ApiKeyEvent => ({ type: 'ApiKeyRevoked', data: { key_id: KEY, revoked_at: at.toISOString() } });

const revoke = (accountId = ACCOUNT, now = NOW): ApiKeyCommand => ({ type: 'RevokeApiKey', account_id: accountId, now });
const recordUse = (now: Date): ApiKeyCommand => ({ type: 'RecordApiKeyUse', now });

describe('apiKeyDecider', () => {
  describe('given no key', () => {
    it('CreateApiKey creates the key, expiring expires_in_days after now', () => {
      given(apiKeyDecider, []).when(create).then([created]);
    });

    it('CreateApiKey with no description and full scope records them as given', () => {
      given(apiKeyDecider, [])
        .when({ ...create, description: null, scope: 'full', expires_in_days: 1 })
        .then([{ type: 'ApiKeyCreated', data: { ...created.data, description: null, scope: 'full', expires_at: '2026-03-02T12:00:00.000Z' } } as ApiKeyEvent]);
    });

    it('RevokeApiKey is rejected with API_KEY_NOT_FOUND', () => {
      given(apiKeyDecider, []).when(revoke()).thenThrows('API_KEY_NOT_FOUND');
    });

    it('RecordApiKeyUse decides nothing', () => {
      given(apiKeyDecider, []).when(recordUse(NOW)).thenNothing();
    });
  });

  describe('given an active key', () => {
    it('CreateApiKey with the same id is rejected with CONFLICT', () => {
      given(apiKeyDecider, [created]).when(create).thenThrows('CONFLICT');
    });

    it('RevokeApiKey by the owning account revokes it', () => {
      given(apiKeyDecider, [created]).when(revoke()).then([revoked(NOW)]);
    });

    it('RevokeApiKey by another account is rejected with API_KEY_NOT_FOUND (existence is not revealed)', () => {
      given(apiKeyDecider, [created]).when(revoke(OTHER_ACCOUNT)).thenThrows('API_KEY_NOT_FOUND');
    });

    it('RecordApiKeyUse on a key never used records the use', () => {
      given(apiKeyDecider, [created]).when(recordUse(NOW)).then([used(NOW)]);
    });
  });

  describe('given an active key used recently', () => {
    const history = [created, used(NOW)];

    it('RecordApiKeyUse again at the same instant decides nothing (idempotent)', () => {
      given(apiKeyDecider, history).when(recordUse(NOW)).thenNothing();
    });

    it('RecordApiKeyUse within the record interval decides nothing', () => {
      given(apiKeyDecider, history).when(recordUse(later(KEY_USE_RECORD_INTERVAL_MS - 1))).thenNothing();
    });

    it('RecordApiKeyUse once the record interval has passed records the use', () => {
      const at = later(KEY_USE_RECORD_INTERVAL_MS);
      given(apiKeyDecider, history).when(recordUse(at)).then([used(at)]);
    });

    it('RecordApiKeyUse with a clock earlier than the last recorded use decides nothing', () => {
      given(apiKeyDecider, history).when(recordUse(later(-KEY_USE_RECORD_INTERVAL_MS * 10))).thenNothing();
    });

    it('the interval counts from the latest recorded use', () => {
      const second = later(KEY_USE_RECORD_INTERVAL_MS);
      given(apiKeyDecider, [...history, used(second)])
        .when(recordUse(later(KEY_USE_RECORD_INTERVAL_MS + 1000)))
        .thenNothing();
    });
  });

  describe('given a revoked key', () => {
    const history = [created, used(NOW), revoked(later(1000))];

    it('CreateApiKey with the same id is rejected with CONFLICT', () => {
      given(apiKeyDecider, history).when(create).thenThrows('CONFLICT');
    });

    it('RevokeApiKey again by the owning account decides nothing (idempotent)', () => {
      given(apiKeyDecider, history).when(revoke(ACCOUNT, later(5000))).thenNothing();
    });

    it('RevokeApiKey by another account is rejected with API_KEY_NOT_FOUND', () => {
      given(apiKeyDecider, history).when(revoke(OTHER_ACCOUNT)).thenThrows('API_KEY_NOT_FOUND');
    });

    it('RecordApiKeyUse decides nothing, however long after the last use', () => {
      given(apiKeyDecider, history).when(recordUse(later(KEY_USE_RECORD_INTERVAL_MS * 100))).thenNothing();
    });
  });
});
