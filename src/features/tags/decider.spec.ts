import { describe, expect, it } from 'vitest';
import { given } from '../../../test/support/decider-spec.js';
import { UnprocessableError } from '../../core/errors.js';
import { verificationTagsDecider, vocabularyDecider, type VerificationTagsCommand, type VocabularyCommand } from './decider.js';
import type { TagEvent, VerificationTagEvent } from './events.js';
import { MAX_TAGS_PER_ACCOUNT } from './names.js';

const ACCOUNT = '0a000000-0000-4000-8000-000000000001';
const OTHER_ACCOUNT = '0a000000-0000-4000-8000-000000000002';
const NOW = new Date('2026-03-01T10:00:00.000Z');
const LATER = new Date('2026-03-02T08:30:00.000Z');
const id = (n: number) => `7a000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const SEA = id(1);
const BOAT = id(2);
const NEW = id(99);

const created = (tag_id: string, name: string, color: string | null = null): TagEvent => ({ type: 'TagCreated', data: { tag_id, name, color, created_at: NOW.toISOString() } });
const renamed = (tag_id: string, from: string, to: string): TagEvent => ({ type: 'TagRenamed', data: { tag_id, from, to, renamed_at: LATER.toISOString() } });
const deleted = (tag_id: string, name: string): TagEvent => ({ type: 'TagDeleted', data: { tag_id, name, deleted_at: LATER.toISOString() } });

const create = (name: string, color: string | null = null): VocabularyCommand => ({ type: 'Create', tag_id: NEW, name, color, now: LATER });
const update = (tag_id: string, change: { name?: string; color?: string | null }): VocabularyCommand => ({ type: 'Update', tag_id, ...change, now: LATER });

describe('tag vocabulary', () => {
  describe('when empty', () => {
    it('creates a tag, trimming the name and lower-casing the colour', () => {
      given(vocabularyDecider).when(create('  Sea ', '#1F77B4')).then([{ type: 'TagCreated', data: { tag_id: NEW, name: 'Sea', color: '#1f77b4', created_at: LATER.toISOString() } }]);
    });
    it('creates a tag without a colour', () => {
      given(vocabularyDecider).when(create('Sea')).then([{ type: 'TagCreated', data: { tag_id: NEW, name: 'Sea', color: null, created_at: LATER.toISOString() } }]);
    });
    for (const [why, name] of [['empty', ''], ['blank', '   '], ['41 characters', 'x'.repeat(41)], ['a comma', 'sea,boat'], ['a line break', 'sea\nboat'], ['a bidi override', 'sea\u202Eboat'], ['a zero-width space', 'sea\u200Bboat']] as const) {
      it(`rejects a name that is ${why} with 422 VALIDATION_ERROR`, () => {
        given(vocabularyDecider).when(create(name)).thenThrows(UnprocessableError);
      });
    }
    it('counts characters, not UTF-16 units: 40 emoji are a valid name', () => {
      given(vocabularyDecider).when(create('📷'.repeat(40))).then([{ type: 'TagCreated', data: { tag_id: NEW, name: '📷'.repeat(40), color: null, created_at: LATER.toISOString() } }]);
    });
    for (const color of ['red', '#fff', '#12345g', '1f77b4', '#1f77b4 ']) {
      it(`rejects the colour ${JSON.stringify(color)} with VALIDATION_ERROR`, () => {
        const error = given(vocabularyDecider).when(create('Sea', color)).thenThrows('VALIDATION_ERROR');
        expect(error).toBeInstanceOf(UnprocessableError);
        expect(error.suggestion).toContain('#rrggbb');
      });
    }
    it('answers TAG_NOT_FOUND to an update or delete', () => {
      given(vocabularyDecider).when(update(SEA, { name: 'x' })).thenThrows('TAG_NOT_FOUND');
      given(vocabularyDecider).when({ type: 'Delete', tag_id: SEA, now: LATER }).thenThrows('TAG_NOT_FOUND');
    });
  });

  describe('with a tag', () => {
    const history = [created(SEA, 'Sea', '#0000ff')];
    it('refuses a second tag of the same name in another case with TAG_EXISTS', () => {
      given(vocabularyDecider, history).when(create('SEA')).thenThrows('TAG_EXISTS', /"SEA" already exists/);
    });
    it('renames it', () => {
      given(vocabularyDecider, history).when(update(SEA, { name: 'Ocean' })).then([renamed(SEA, 'Sea', 'Ocean')]);
    });
    it('renames it to another case of its own name', () => {
      given(vocabularyDecider, history).when(update(SEA, { name: 'SEA' })).then([renamed(SEA, 'Sea', 'SEA')]);
    });
    it('recolours it, and clears the colour with null', () => {
      given(vocabularyDecider, history).when(update(SEA, { color: '#00FF00' })).then([{ type: 'TagRecoloured', data: { tag_id: SEA, from: '#0000ff', to: '#00ff00', recoloured_at: LATER.toISOString() } }]);
      given(vocabularyDecider, history).when(update(SEA, { color: null })).then([{ type: 'TagRecoloured', data: { tag_id: SEA, from: '#0000ff', to: null, recoloured_at: LATER.toISOString() } }]);
    });
    it('renames and recolours in one update', () => {
      const events = given(vocabularyDecider, history).when(update(SEA, { name: 'Ocean', color: '#000000' })).then([
        renamed(SEA, 'Sea', 'Ocean'),
        { type: 'TagRecoloured', data: { tag_id: SEA, from: '#0000ff', to: '#000000', recoloured_at: LATER.toISOString() } },
      ]);
      expect(events).toHaveLength(2);
    });
    it('records nothing for an update that changes nothing', () => {
      given(vocabularyDecider, history).when(update(SEA, { name: 'Sea', color: '#0000FF' })).thenNothing();
      given(vocabularyDecider, history).when(update(SEA, {})).thenNothing();
    });
    it('refuses an invalid new name or colour', () => {
      given(vocabularyDecider, history).when(update(SEA, { name: 'a,b' })).thenThrows(UnprocessableError);
      given(vocabularyDecider, history).when(update(SEA, { color: 'blue' })).thenThrows(UnprocessableError);
    });
    it('deletes it, naming it in the event', () => {
      given(vocabularyDecider, history).when({ type: 'Delete', tag_id: SEA, now: LATER }).then([deleted(SEA, 'Sea')]);
    });
    it('ensures names: creates the unknown ones once, case-insensitively, keeps the known', () => {
      given(vocabularyDecider, history)
        .when({ type: 'Ensure', names: [{ name: 'sea', tag_id: id(10) }, { name: 'Boat', tag_id: id(11) }, { name: 'BOAT', tag_id: id(12) }], now: LATER })
        .then([{ type: 'TagCreated', data: { tag_id: id(11), name: 'Boat', color: null, created_at: LATER.toISOString() } }]);
    });
    it('ensures nothing when every name is known', () => {
      given(vocabularyDecider, history).when({ type: 'Ensure', names: [{ name: 'SEA', tag_id: id(10) }], now: LATER }).thenNothing();
    });
  });

  describe('with two tags', () => {
    const history = [created(SEA, 'Sea'), created(BOAT, 'Boat')];
    it('refuses to rename one to the name of the other with TAG_EXISTS', () => {
      given(vocabularyDecider, history).when(update(BOAT, { name: 'sea' })).thenThrows('TAG_EXISTS');
    });
  });

  describe('after a rename or a delete', () => {
    it('frees the old name of a renamed tag and takes the new one', () => {
      const history = [created(SEA, 'Sea'), renamed(SEA, 'Sea', 'Ocean')];
      given(vocabularyDecider, history).when(create('sea')).then([{ type: 'TagCreated', data: { tag_id: NEW, name: 'sea', color: null, created_at: LATER.toISOString() } }]);
      given(vocabularyDecider, history).when(create('OCEAN')).thenThrows('TAG_EXISTS');
    });
    it('frees the name of a deleted tag, and the deleted tag is gone', () => {
      const history = [created(SEA, 'Sea'), deleted(SEA, 'Sea')];
      given(vocabularyDecider, history).when(create('Sea')).then([{ type: 'TagCreated', data: { tag_id: NEW, name: 'Sea', color: null, created_at: LATER.toISOString() } }]);
      given(vocabularyDecider, history).when(update(SEA, { name: 'x' })).thenThrows('TAG_NOT_FOUND');
    });
  });

  describe('when full', () => {
    const history = Array.from({ length: MAX_TAGS_PER_ACCOUNT }, (_, i) => created(id(1000 + i), `tag ${i}`));
    it(`refuses a tag beyond ${MAX_TAGS_PER_ACCOUNT} with VALIDATION_ERROR`, () => {
      given(vocabularyDecider, history).when(create('one more')).thenThrows(UnprocessableError, /at most 1000 tags/);
      given(vocabularyDecider, history).when({ type: 'Ensure', names: [{ name: 'one more', tag_id: NEW }], now: LATER }).thenThrows(UnprocessableError);
    });
    it('still ensures names it has', () => {
      given(vocabularyDecider, history).when({ type: 'Ensure', names: [{ name: 'TAG 7', tag_id: NEW }], now: LATER }).thenNothing();
    });
  });
});

const vocabulary = new Map([
  [SEA, 'Sea'],
  [BOAT, 'Boat'],
  ...Array.from({ length: 25 }, (_, i) => [id(100 + i), `t${i}`] as [string, string]),
]);
const VERIFICATION = { account_id: ACCOUNT };
const base = { account_id: ACCOUNT, verification: VERIFICATION, vocabulary, now: LATER };
const set = (tag_ids: string[], overrides: Partial<VerificationTagsCommand> = {}): VerificationTagsCommand => ({ ...base, type: 'Set', tag_ids, ...overrides }) as VerificationTagsCommand;
const add = (tag_ids: string[], overrides: Partial<VerificationTagsCommand> = {}): VerificationTagsCommand => ({ ...base, type: 'Add', tag_ids, ...overrides }) as VerificationTagsCommand;
const detach = (tag_id: string, overrides: Partial<VerificationTagsCommand> = {}): VerificationTagsCommand => ({ ...base, type: 'Detach', tag_id, ...overrides }) as VerificationTagsCommand;
const changed = (tag_ids: string[], added: [string, string][], removed: [string, string][]): VerificationTagEvent => ({
  type: 'VerificationTagsChanged',
  data: { tag_ids, added: added.map(([i, name]) => ({ id: i, name })), removed: removed.map(([i, name]) => ({ id: i, name })), changed_at: LATER.toISOString() },
});

describe('tags on a verification', () => {
  for (const [name, command] of [['Set', set([SEA])], ['Add', add([SEA])], ['Detach', detach(SEA)]] as const) {
    it(`${name} on another account's verification is rejected with VERIFICATION_NOT_FOUND`, () => {
      given(verificationTagsDecider).when({ ...command, account_id: OTHER_ACCOUNT }).thenThrows('VERIFICATION_NOT_FOUND');
    });
    it(`${name} on a missing or deleted verification is rejected with VERIFICATION_NOT_FOUND`, () => {
      given(verificationTagsDecider).when({ ...command, verification: null }).thenThrows('VERIFICATION_NOT_FOUND');
    });
  }

  describe('without tags', () => {
    it('sets tags, each added once', () => {
      given(verificationTagsDecider).when(set([SEA, BOAT, SEA])).then([changed([SEA, BOAT], [[SEA, 'Sea'], [BOAT, 'Boat']], [])]);
    });
    it('adds tags', () => {
      given(verificationTagsDecider).when(add([BOAT])).then([changed([BOAT], [[BOAT, 'Boat']], [])]);
    });
    it('records nothing for an empty set', () => {
      given(verificationTagsDecider).when(set([])).thenNothing();
    });
    it('answers TAG_NOT_FOUND to a detach', () => {
      given(verificationTagsDecider).when(detach(SEA)).thenThrows('TAG_NOT_FOUND', /not on the verification/);
    });
    it('answers TAG_NOT_FOUND to a tag outside the vocabulary (another account’s)', () => {
      given(verificationTagsDecider).when(add([id(5000)])).thenThrows('TAG_NOT_FOUND');
    });
    it('accepts 20 tags and refuses 21 with VALIDATION_ERROR', () => {
      const twenty = Array.from({ length: 20 }, (_, i) => id(100 + i));
      given(verificationTagsDecider).when(set(twenty)).then([changed(twenty, twenty.map((t, i) => [t, `t${i}`]), [])]);
      given(verificationTagsDecider).when(set([...twenty, SEA])).thenThrows(UnprocessableError, /at most 20 tags/);
    });
  });

  describe('with tags', () => {
    const history = [changed([SEA, BOAT], [[SEA, 'Sea'], [BOAT, 'Boat']], [])];
    it('sets exactly the new list, naming what left', () => {
      given(verificationTagsDecider, history).when(set([BOAT, id(100)])).then([changed([BOAT, id(100)], [[id(100), 't0']], [[SEA, 'Sea']])]);
    });
    it('is idempotent: setting the same tags in another order records nothing', () => {
      given(verificationTagsDecider, history).when(set([BOAT, SEA])).thenNothing();
    });
    it('clears them with an empty set', () => {
      given(verificationTagsDecider, history).when(set([])).then([changed([], [], [[SEA, 'Sea'], [BOAT, 'Boat']])]);
    });
    it('adds without removing, and adding a present tag records nothing', () => {
      given(verificationTagsDecider, history).when(add([id(100), SEA])).then([changed([SEA, BOAT, id(100)], [[id(100), 't0']], [])]);
      given(verificationTagsDecider, history).when(add([SEA])).thenNothing();
    });
    it('detaches one', () => {
      given(verificationTagsDecider, history).when(detach(SEA)).then([changed([BOAT], [], [[SEA, 'Sea']])]);
    });
    it('refuses an add past 20 tags', () => {
      const nineteen = Array.from({ length: 19 }, (_, i) => id(100 + i));
      given(verificationTagsDecider, history).when(add(nineteen)).thenThrows(UnprocessableError);
    });
  });

  describe('with a tag deleted from the vocabulary since', () => {
    const history = [changed([SEA, BOAT], [[SEA, 'Sea'], [BOAT, 'Boat']], [])];
    const withoutSea = new Map([...vocabulary].filter(([key]) => key !== SEA));
    it('no longer carries it: detaching it is TAG_NOT_FOUND', () => {
      given(verificationTagsDecider, history).when(detach(SEA, { vocabulary: withoutSea })).thenThrows('TAG_NOT_FOUND');
    });
    it('does not count it: setting the remaining tag records nothing', () => {
      given(verificationTagsDecider, history).when(set([BOAT], { vocabulary: withoutSea })).thenNothing();
    });
    it('does not list it among the removed tags of a change', () => {
      given(verificationTagsDecider, history).when(set([], { vocabulary: withoutSea })).then([changed([], [], [[BOAT, 'Boat']])]);
    });
  });
});
