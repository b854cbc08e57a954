import { AppError, NotFoundError } from '../../core/errors.js';
import type { Decider } from '../../core/es/decider.js';
import { assertNever } from '../../core/es/events.js';
import { apiKeyEvents, type ApiKeyEvent, type ApiKeyScope } from './events.js';
import { streamName } from '../../core/es/streams.js';

export const apiKeyStream = (keyId: string) => streamName('apikey', keyId);

/** A use is recorded at most this often per key, so authentication does not append on every call. */
export const KEY_USE_RECORD_INTERVAL_MS = 60_000;

export type ApiKeyCommand =
  | {
      type: 'CreateApiKey';
      key_id: string;
      account_id: string;
      user_id: string;
      prefix: string;
      key_hash: string;
      description: string | null;
      scope: ApiKeyScope;
      expires_in_days: number;
      now: Date;
    }
  | { type: 'RevokeApiKey'; account_id: string; now: Date }
  | { type: 'RecordApiKeyUse'; now: Date };

export type ApiKeyState =
  | { status: 'none' }
  | { status: 'active' | 'revoked'; keyId: string; accountId: string; lastUsedAt?: Date };

export const apiKeyDecider: Decider<ApiKeyState, ApiKeyCommand, typeof apiKeyEvents> = {
  catalogue: apiKeyEvents,
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'ApiKeyCreated':
        return { status: 'active', keyId: event.data.key_id, accountId: event.data.account_id };
      case 'ApiKeyRevoked':
        return state.status === 'none' ? state : { ...state, status: 'revoked' };
      case 'ApiKeyUsed':
        return state.status === 'none' ? state : { ...state, lastUsedAt: new Date(event.data.used_at) };
      default:
        return assertNever(event);
    }
  },
  decide(command, state): ApiKeyEvent[] {
    switch (command.type) {
      case 'CreateApiKey': {
        if (state.status !== 'none') throw new AppError('CONFLICT', 'This API key id is already in use.');
        const expires = new Date(command.now.getTime() + command.expires_in_days * 86_400_000);
        return [
          {
            type: 'ApiKeyCreated',
            data: {
              key_id: command.key_id,
              account_id: command.account_id,
              user_id: command.user_id,
              prefix: command.prefix,
              key_hash: command.key_hash,
              description: command.description,
              scope: command.scope,
              created_at: command.now.toISOString(),
              expires_at: expires.toISOString(),
            },
          },
        ];
      }
      case 'RevokeApiKey':
        if (state.status === 'none' || state.accountId !== command.account_id) {
          throw new NotFoundError('API_KEY_NOT_FOUND', 'API key not found.');
        }
        if (state.status === 'revoked') return [];
        return [{ type: 'ApiKeyRevoked', data: { key_id: state.keyId, revoked_at: command.now.toISOString() } }];
      case 'RecordApiKeyUse':
        if (state.status !== 'active') return [];
        if (state.lastUsedAt && command.now.getTime() - state.lastUsedAt.getTime() < KEY_USE_RECORD_INTERVAL_MS) return [];
        return [{ type: 'ApiKeyUsed', data: { key_id: state.keyId, used_at: command.now.toISOString() } }];
      default:
        return assertNever(command);
    }
  },
};
