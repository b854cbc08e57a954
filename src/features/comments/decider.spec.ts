import { describe, expect, it } from 'vitest';
import { given } from '../../../test/support/decider-spec.js';
import { UnprocessableError } from '../../core/errors.js';
import { commentsDecider, MAX_COMMENT_LENGTH, MAX_COMMENTS_PER_VERIFICATION, type CommentCommand, type Commenter, type VerificationFacts } from './decider.js';
import type { CommentEvent } from './events.js';

const ACCOUNT = '0a000000-0000-4000-8000-000000000001';
const OTHER_ACCOUNT = '0a000000-0000-4000-8000-000000000002';
const AUTHOR = '0b000000-0000-4000-8000-000000000001';
const COLLEAGUE = '0b000000-0000-4000-8000-000000000002';
const ADMIN = '0b000000-0000-4000-8000-000000000003';
const STRANGER = '0b000000-0000-4000-8000-000000000099';
const COMMENT = '0c000000-0000-4000-8000-000000000001';
const SECOND = '0c000000-0000-4000-8000-000000000002';

const ADDED_AT = new Date('2026-03-01T09:00:00.000Z');
const NOW = new Date('2026-03-02T10:30:00.000Z');

const author: Commenter = { account_id: ACCOUNT, user_id: AUTHOR, role: 'member' };
const colleague: Commenter = { account_id: ACCOUNT, user_id: COLLEAGUE, role: 'member' };
const admin: Commenter = { account_id: ACCOUNT, user_id: ADMIN, role: 'admin' };
const stranger: Commenter = { account_id: OTHER_ACCOUNT, user_id: STRANGER, role: 'admin' };
const ours: VerificationFacts = { account_id: ACCOUNT };

const added = (id = COMMENT, by = AUTHOR, at = ADDED_AT): CommentEvent => ({
  type: 'CommentAdded',
  data: { comment_id: id, author_user_id: by, author_name: 'Ann', body: 'Check the horizon.', added_at: at.toISOString() },
});
const edited = (body: string, id = COMMENT): CommentEvent => ({ type: 'CommentEdited', data: { comment_id: id, body, edited_at: NOW.toISOString() } });
const deleted = (id = COMMENT): CommentEvent => ({ type: 'CommentDeleted', data: { comment_id: id, deleted_at: NOW.toISOString() } });

const add = (caller = author, verification: VerificationFacts = ours, id = SECOND): CommentCommand => ({
  type: 'AddComment',
  caller,
  verification,
  comment_id: id,
  author_name: 'Ann',
  body: 'Check the horizon.',
  now: ADDED_AT,
});
const edit = (caller: Commenter, body = 'Horizon is fine.', verification: VerificationFacts = ours, id = COMMENT): CommentCommand => ({ type: 'EditComment', caller, verification, comment_id: id, body, now: NOW });
const remove = (caller: Commenter, verification: VerificationFacts = ours, id = COMMENT): CommentCommand => ({ type: 'DeleteComment', caller, verification, comment_id: id, now: NOW });

describe('commentsDecider', () => {
  describe('given a verification without comments', () => {
    it('AddComment records the comment with the caller as author', () => {
      given(commentsDecider, []).when(add(author, ours, COMMENT)).then([added()]);
    });

    it('AddComment on another account’s verification is rejected with VERIFICATION_NOT_FOUND', () => {
      given(commentsDecider, []).when(add(stranger)).thenThrows('VERIFICATION_NOT_FOUND');
    });

    it('AddComment on a missing (or deleted) verification is rejected with VERIFICATION_NOT_FOUND', () => {
      given(commentsDecider, []).when(add(author, null)).thenThrows('VERIFICATION_NOT_FOUND');
    });

    it('EditComment is rejected with COMMENT_NOT_FOUND', () => {
      given(commentsDecider, []).when(edit(author)).thenThrows('COMMENT_NOT_FOUND');
    });

    it('DeleteComment is rejected with COMMENT_NOT_FOUND, also for an admin', () => {
      given(commentsDecider, []).when(remove(admin)).thenThrows('COMMENT_NOT_FOUND');
    });

    it('AddComment stores the body without its surrounding white space', () => {
      given(commentsDecider, []).when({ ...add(author, ours, COMMENT), body: '  Check the horizon.\n' } as CommentCommand).then([added()]);
    });

    for (const [body, message] of [['', /empty/], [' \n\t ', /empty/], ['x'.repeat(MAX_COMMENT_LENGTH + 1), /at most 5000/], ['bell \u0007', /Control characters/], ['evil \u202Egnp.exe', /Bidirectional/], ['isolate \u2066x\u2069', /Bidirectional/], ['zero\u200Bwidth', /Invisible/], ['c1 \u0085', /Control characters/]] as const) {
      it(`AddComment and EditComment of ${JSON.stringify(body.slice(0, 12))} are rejected with VALIDATION_ERROR (spec 7: empty or oversized comment)`, () => {
        given(commentsDecider, []).when({ ...add(), body } as CommentCommand).thenThrows(UnprocessableError, message);
        given(commentsDecider, [added()]).when(edit(author, body)).thenThrows(UnprocessableError, message);
      });
    }

    it(`AddComment of exactly ${MAX_COMMENT_LENGTH} characters, tabs and line breaks included, is recorded`, () => {
      const body = `a\tb\r\n${'c'.repeat(MAX_COMMENT_LENGTH - 5)}`;
      given(commentsDecider, []).when({ ...add(author, ours, COMMENT), body } as CommentCommand).then([{ ...added(), data: { ...added().data, body } } as CommentEvent]);
    });
  });

  describe('given a comment by its author', () => {
    const history = [added()];

    it('AddComment by a colleague adds a second comment', () => {
      given(commentsDecider, history)
        .when(add(colleague))
        .then([{ type: 'CommentAdded', data: { comment_id: SECOND, author_user_id: COLLEAGUE, author_name: 'Ann', body: 'Check the horizon.', added_at: ADDED_AT.toISOString() } }]);
    });

    it('EditComment by the author records the new body and when', () => {
      given(commentsDecider, history).when(edit(author)).then([edited('Horizon is fine.')]);
    });

    it('EditComment by the author with the same body decides nothing', () => {
      given(commentsDecider, history).when(edit(author, 'Check the horizon.')).thenNothing();
    });

    it('EditComment by a colleague is rejected with ACCESS_DENIED', () => {
      given(commentsDecider, history).when(edit(colleague)).thenThrows('ACCESS_DENIED', /Only the author/);
    });

    it('EditComment by an admin who is not the author is rejected with ACCESS_DENIED', () => {
      given(commentsDecider, history).when(edit(admin)).thenThrows('ACCESS_DENIED');
    });

    it('EditComment by another account is rejected with VERIFICATION_NOT_FOUND (existence stays hidden)', () => {
      given(commentsDecider, history).when(edit(stranger)).thenThrows('VERIFICATION_NOT_FOUND');
    });

    it('EditComment of another comment id is rejected with COMMENT_NOT_FOUND', () => {
      given(commentsDecider, history).when(edit(author, 'x', ours, SECOND)).thenThrows('COMMENT_NOT_FOUND');
    });

    it('DeleteComment by the author deletes it', () => {
      given(commentsDecider, history).when(remove(author)).then([deleted()]);
    });

    it('DeleteComment by an admin of the account deletes it', () => {
      given(commentsDecider, history).when(remove(admin)).then([deleted()]);
    });

    it('DeleteComment by a colleague (member) is rejected with ACCESS_DENIED', () => {
      given(commentsDecider, history).when(remove(colleague)).thenThrows('ACCESS_DENIED', /author of a comment or an admin/);
    });

    it('DeleteComment by another account’s admin is rejected with VERIFICATION_NOT_FOUND', () => {
      given(commentsDecider, history).when(remove(stranger)).thenThrows('VERIFICATION_NOT_FOUND');
    });

    it('DeleteComment once the verification is gone is rejected with VERIFICATION_NOT_FOUND', () => {
      given(commentsDecider, history).when(remove(author, null)).thenThrows('VERIFICATION_NOT_FOUND');
    });
  });

  describe('given an edited comment', () => {
    it('a further edit starts from the edited body', () => {
      given(commentsDecider, [added(), edited('Horizon is fine.')]).when(edit(author, 'Horizon is fine.')).thenNothing();
    });
  });

  describe('given a deleted comment', () => {
    const history = [added(), deleted()];

    it('EditComment by the author is rejected with COMMENT_NOT_FOUND', () => {
      given(commentsDecider, history).when(edit(author)).thenThrows('COMMENT_NOT_FOUND');
    });

    it('DeleteComment again is rejected with COMMENT_NOT_FOUND', () => {
      given(commentsDecider, history).when(remove(author)).thenThrows('COMMENT_NOT_FOUND');
    });
  });

  describe(`given a verification with ${MAX_COMMENTS_PER_VERIFICATION} comments`, () => {
    const ids = Array.from({ length: MAX_COMMENTS_PER_VERIFICATION }, (_, i) => `0d000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    const full = ids.map((id) => added(id));

    it('AddComment is rejected with VALIDATION_ERROR (spec 7: comment limit reached)', () => {
      const error = given(commentsDecider, full).when(add(author, ours, SECOND)).thenThrows(UnprocessableError, /maximum of 500 comments/);
      expect(error.details).toEqual({ limit: 500 });
    });

    it('AddComment is allowed again once one is deleted', () => {
      given(commentsDecider, [...full, deleted(ids[0])])
        .when(add(author, ours, SECOND))
        .then([added(SECOND)]);
    });
  });
});
