import { describe, expect, it } from 'vitest';
import { given } from '../../../test/support/decider-spec.js';
import { requestDecider, type RequestCommand, type RequestSettings } from './decider.js';
import type { RequestEvent } from './events.js';

const T0 = new Date('2026-03-01T10:00:00.000Z');
const LATER = new Date('2026-03-05T10:00:00.000Z');
const DEADLINE = '2026-03-10T00:00:00.000Z';
const AFTER = new Date('2026-03-10T00:00:00.000Z');
const V1 = '0d000000-0000-4000-8000-000000000001';
const V2 = '0d000000-0000-4000-8000-000000000002';
const TOKEN = 'x'.repeat(43);
const DIGEST = 'a'.repeat(64);

const settings: RequestSettings = { subject: 'Finalist photo', instructions: 'The original and its RAW', mode: 'existing_original', expires_at: DEADLINE, max_submissions: 2, share_with_provider: false };

const create = (s: Partial<RequestSettings> = {}, now = T0): RequestCommand => ({ type: 'Create', settings: { ...settings, ...s }, token: TOKEN, token_sha256: DIGEST, now });
const update = (changes: Partial<RequestSettings>, close = false, now = LATER): RequestCommand => ({ type: 'Update', changes, close, now });
const submit = (verification_id: string, now = LATER): RequestCommand => ({ type: 'Submit', verification_id, now });
const withdraw = (verification_id: string): RequestCommand => ({ type: 'Withdraw', verification_id, reason: 'QUOTA_EXCEEDED', now: LATER });
const expire = (now: Date, expires_at = DEADLINE): RequestCommand => ({ type: 'Expire', expires_at, now });
const remove = (): RequestCommand => ({ type: 'Delete', now: LATER });
const acceptCapture = (now = LATER): RequestCommand => ({ type: 'AcceptCapture', now });

const created = (s: Partial<RequestSettings> = {}): RequestEvent => ({ type: 'RequestCreated', data: { ...settings, ...s, token: TOKEN, token_sha256: DIGEST, created_at: T0.toISOString() } });
const received = (verification_id: string, submission_count: number): RequestEvent => ({ type: 'RequestSubmissionReceived', data: { verification_id, submission_count, received_at: LATER.toISOString() } });
const withdrawn = (verification_id: string, submission_count: number): RequestEvent => ({ type: 'RequestSubmissionWithdrawn', data: { verification_id, submission_count, reason: 'QUOTA_EXCEEDED', withdrawn_at: LATER.toISOString() } });
const closed = (): RequestEvent => ({ type: 'RequestClosed', data: { closed_at: LATER.toISOString() } });
const expired = (expires_at = DEADLINE): RequestEvent => ({ type: 'RequestExpired', data: { expires_at, expired_at: AFTER.toISOString() } });

describe('verification request decider', () => {
  describe('create', () => {
    it('records the request with its token digest', () => given(requestDecider, []).when(create()).then([created()]));
    it('refuses a deadline that is not in the future (422)', () => given(requestDecider, []).when(create({ expires_at: T0.toISOString() })).thenThrows('VALIDATION_ERROR'));
    it('records nothing for a stream that exists', () => given(requestDecider, [created()]).when(create()).thenNothing());
  });

  describe('update and close', () => {
    it('records only the fields that change', () =>
      given(requestDecider, [created()]).when(update({ subject: 'Finalist photo', max_submissions: 5 })).then([{ type: 'RequestUpdated', data: { changes: { max_submissions: 5 }, updated_at: LATER.toISOString() } }]));
    it('records nothing when nothing changes', () => given(requestDecider, [created()]).when(update({ subject: 'Finalist photo' })).thenNothing());
    it('closes, with closed_at', () => given(requestDecider, [created()]).when(update({}, true)).then([closed()]));
    it('closing is terminal: a change afterwards is refused (422)', () => given(requestDecider, [created(), closed()]).when(update({ subject: 'Another' })).thenThrows('VALIDATION_ERROR'));
    it('closing a closed request again changes nothing', () => given(requestDecider, [created(), closed()]).when(update({}, true)).thenNothing());
    it('refuses max_submissions below the submissions received', () =>
      given(requestDecider, [created(), received(V1, 1), received(V2, 2)]).when(update({ max_submissions: 1 })).thenThrows('VALIDATION_ERROR'));
    it('refuses a deadline in the past', () => given(requestDecider, [created()]).when(update({ expires_at: T0.toISOString() })).thenThrows('VALIDATION_ERROR'));
    it('an expired request opens again with a later deadline', () =>
      given(requestDecider, [created(), expired()]).when(update({ expires_at: '2026-04-01T00:00:00.000Z' }, false, AFTER)).then([{ type: 'RequestUpdated', data: { changes: { expires_at: '2026-04-01T00:00:00.000Z' }, updated_at: AFTER.toISOString() } }]));
    it('404 for a deleted request', () => given(requestDecider, [created(), { type: 'RequestDeleted', data: { deleted_at: LATER.toISOString() } }]).when(update({}, true)).thenThrows('REQUEST_NOT_FOUND'));
  });

  describe('delete', () => {
    it('deletes a request without submissions', () => given(requestDecider, [created()]).when(remove()).then([{ type: 'RequestDeleted', data: { deleted_at: LATER.toISOString() } }]));
    it('409 with a submission', () => given(requestDecider, [created(), received(V1, 1)]).when(remove()).thenThrows('REQUEST_HAS_SUBMISSIONS'));
    it('a withdrawn submission does not count', () => given(requestDecider, [created(), received(V1, 1), withdrawn(V1, 0)]).when(remove()).then([{ type: 'RequestDeleted', data: { deleted_at: LATER.toISOString() } }]));
    it('404 when missing', () => given(requestDecider, []).when(remove()).thenThrows('REQUEST_NOT_FOUND'));
  });

  describe('submissions', () => {
    it('counts a submission', () => given(requestDecider, [created()]).when(submit(V1)).then([received(V1, 1)]));
    it('refuses one past max_submissions', () => given(requestDecider, [created(), received(V1, 1), received(V2, 2)]).when(submit('0d000000-0000-4000-8000-000000000003')).thenThrows('REQUEST_FULL'));
    it('a withdrawn place can be taken again', () => given(requestDecider, [created(), received(V1, 1), received(V2, 2), withdrawn(V1, 1)]).when(submit(V1)).then([received(V1, 2)]));
    it('refuses a closed request', () => given(requestDecider, [created(), closed()]).when(submit(V1)).thenThrows('REQUEST_CLOSED'));
    it('refuses at and after the deadline, recorded or not', () => {
      given(requestDecider, [created()]).when(submit(V1, AFTER)).thenThrows('REQUEST_EXPIRED');
      given(requestDecider, [created(), expired()]).when(submit(V1, AFTER)).thenThrows('REQUEST_EXPIRED');
    });
    it('withdraws only a counted submission', () => {
      given(requestDecider, [created(), received(V1, 1)]).when(withdraw(V1)).then([withdrawn(V1, 0)]);
      given(requestDecider, [created(), received(V1, 1), withdrawn(V1, 0)]).when(withdraw(V1)).thenNothing();
    });
  });

  describe('capture calls through the link (challenge, attestation)', () => {
    const capture = (s: Partial<RequestSettings> = {}) => created({ mode: 'capture', ...s });
    it('a capture request that takes a submission accepts them, recording nothing', () => given(requestDecider, [capture()]).when(acceptCapture()).thenNothing());
    it('an existing_original request refuses them (409 REQUEST_NOT_CAPTURE)', () => given(requestDecider, [created()]).when(acceptCapture()).thenThrows('REQUEST_NOT_CAPTURE'));
    it('a closed capture request refuses them', () => given(requestDecider, [capture(), closed()]).when(acceptCapture()).thenThrows('REQUEST_CLOSED'));
    it('at and after the deadline they are refused', () => given(requestDecider, [capture()]).when(acceptCapture(AFTER)).thenThrows('REQUEST_EXPIRED'));
    it('a full capture request refuses them', () => given(requestDecider, [capture({ max_submissions: 1 }), received(V1, 1)]).when(acceptCapture()).thenThrows('REQUEST_FULL'));
    it('a deleted request is not found', () => given(requestDecider, [capture(), { type: 'RequestDeleted', data: { deleted_at: LATER.toISOString() } }]).when(acceptCapture()).thenThrows('REQUEST_NOT_FOUND'));
  });

  describe('expiry', () => {
    it('records the expiry once the deadline has passed', () => given(requestDecider, [created()]).when(expire(AFTER)).then([expired()]));
    it('not before the deadline', () => given(requestDecider, [created()]).when(expire(LATER)).thenNothing());
    it('once per deadline', () => given(requestDecider, [created(), expired()]).when(expire(AFTER)).thenNothing());
    it('not for a deadline that moved', () =>
      given(requestDecider, [created(), { type: 'RequestUpdated', data: { changes: { expires_at: '2026-04-01T00:00:00.000Z' }, updated_at: LATER.toISOString() } }]).when(expire(AFTER)).thenNothing());
    it('not for a closed request', () => given(requestDecider, [created(), closed()]).when(expire(AFTER)).thenNothing());
    it('a moved deadline expires again', () => {
      const moved: RequestEvent = { type: 'RequestUpdated', data: { changes: { expires_at: '2026-04-01T00:00:00.000Z' }, updated_at: AFTER.toISOString() } };
      const events = given(requestDecider, [created(), expired(), moved]).when(expire(new Date('2026-04-02T00:00:00.000Z'), '2026-04-01T00:00:00.000Z')).then([
        { type: 'RequestExpired', data: { expires_at: '2026-04-01T00:00:00.000Z', expired_at: '2026-04-02T00:00:00.000Z' } },
      ]);
      expect(events).toHaveLength(1);
    });
  });
});
