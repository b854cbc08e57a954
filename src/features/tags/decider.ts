import type { Decider } from '../../core/es/decider.js';
import { ConflictError, NotFoundError, UnprocessableError } from '../../core/errors.js';
import { assertNever } from '../../core/es/events.js';
import { streamName } from '../../core/es/streams.js';
import { verificationNotFound } from '../verifications/index.js';
import { tagEvents, verificationTagEvents, type TagEvent, type VerificationTagEvent } from './events.js';
import { checkColor, checkTagName, MAX_TAGS_PER_ACCOUNT, MAX_TAGS_PER_VERIFICATION, tagKey, tooManyTags } from './names.js';

export const vocabularyStream = (accountId: string) => streamName('tags', accountId);
export const verificationTagsStream = (verificationId: string) => streamName('verification_tags', verificationId);

export const tagNotFound = () => new NotFoundError('TAG_NOT_FOUND', 'Tag not found.', { suggestion: 'List your tags with GET /v1/tags/.' });
const tagExists = (name: string) =>
  new ConflictError('TAG_EXISTS', `A tag named "${name}" already exists in this account (names are compared case-insensitively).`, {
    suggestion: 'Use the existing tag (GET /v1/tags/ lists them), or choose another name.',
  });

// ---------------------------------------------------------------- the vocabulary

export interface Tag {
  id: string;
  name: string;
  color: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface VocabularyState {
  tags: ReadonlyMap<string, Tag>;
  /** Name key (tagKey) to tag id: the uniqueness rule. */
  byKey: ReadonlyMap<string, string>;
}

export type VocabularyCommand =
  | { type: 'Create'; tag_id: string; name: string; color: string | null; now: Date }
  /** `name`/`color` absent: unchanged; `color` null: cleared. */
  | { type: 'Update'; tag_id: string; name?: string; color?: string | null; now: Date }
  | { type: 'Delete'; tag_id: string; now: Date }
  /** Makes sure these names exist (PUT/POST on a verification create unknown ones); each comes with the id it gets if new. */
  | { type: 'Ensure'; names: { name: string; tag_id: string }[]; now: Date };

export const vocabularyDecider: Decider<VocabularyState, VocabularyCommand, typeof tagEvents> = {
  catalogue: tagEvents,
  initialState: () => ({ tags: new Map(), byKey: new Map() }),
  evolve(state, event) {
    const tags = new Map(state.tags);
    const byKey = new Map(state.byKey);
    switch (event.type) {
      case 'TagCreated': {
        const d = event.data;
        tags.set(d.tag_id, { id: d.tag_id, name: d.name, color: d.color, createdAt: d.created_at, updatedAt: d.created_at });
        byKey.set(tagKey(d.name), d.tag_id);
        break;
      }
      case 'TagRenamed': {
        const tag = tags.get(event.data.tag_id);
        if (!tag) return state;
        byKey.delete(tagKey(tag.name));
        byKey.set(tagKey(event.data.to), tag.id);
        tags.set(tag.id, { ...tag, name: event.data.to, updatedAt: event.data.renamed_at });
        break;
      }
      case 'TagRecoloured': {
        const tag = tags.get(event.data.tag_id);
        if (!tag) return state;
        tags.set(tag.id, { ...tag, color: event.data.to, updatedAt: event.data.recoloured_at });
        break;
      }
      case 'TagDeleted': {
        const tag = tags.get(event.data.tag_id);
        if (!tag) return state;
        byKey.delete(tagKey(tag.name));
        tags.delete(tag.id);
        break;
      }
      default:
        return assertNever(event);
    }
    return { tags, byKey };
  },
  decide(command, state): TagEvent[] {
    const at = command.now.toISOString();
    switch (command.type) {
      case 'Create': {
        const name = checkTagName(command.name);
        const color = checkColor(command.color);
        if (state.byKey.has(tagKey(name))) throw tagExists(name);
        checkRoom(state, 1);
        return [{ type: 'TagCreated', data: { tag_id: command.tag_id, name, color, created_at: at } }];
      }
      case 'Update': {
        const tag = state.tags.get(command.tag_id);
        if (!tag) throw tagNotFound();
        const name = command.name === undefined ? tag.name : checkTagName(command.name);
        const color = command.color === undefined ? tag.color : checkColor(command.color);
        const holder = state.byKey.get(tagKey(name));
        // A change of case only ("nature" to "Nature") is a rename of the same tag.
        if (holder !== undefined && holder !== tag.id) throw tagExists(name);
        const events: TagEvent[] = [];
        if (name !== tag.name) events.push({ type: 'TagRenamed', data: { tag_id: tag.id, from: tag.name, to: name, renamed_at: at } });
        if (color !== tag.color) events.push({ type: 'TagRecoloured', data: { tag_id: tag.id, from: tag.color, to: color, recoloured_at: at } });
        return events;
      }
      case 'Delete': {
        const tag = state.tags.get(command.tag_id);
        if (!tag) throw tagNotFound();
        return [{ type: 'TagDeleted', data: { tag_id: tag.id, name: tag.name, deleted_at: at } }];
      }
      case 'Ensure': {
        const created = new Map<string, TagEvent>();
        for (const entry of command.names) {
          const name = checkTagName(entry.name);
          const key = tagKey(name);
          if (state.byKey.has(key) || created.has(key)) continue;
          created.set(key, { type: 'TagCreated', data: { tag_id: entry.tag_id, name, color: null, created_at: at } });
        }
        checkRoom(state, created.size);
        return [...created.values()];
      }
      default:
        return assertNever(command);
    }
  },
};

function checkRoom(state: VocabularyState, adding: number): void {
  if (adding > 0 && state.tags.size + adding > MAX_TAGS_PER_ACCOUNT) {
    throw new UnprocessableError(`An account can have at most ${MAX_TAGS_PER_ACCOUNT} tags.`, { suggestion: 'Delete tags that are no longer used (DELETE /v1/tags/{tag_id}).' });
  }
}

// ---------------------------------------------------------------- the tags on one verification

export interface VerificationTagsState {
  /** As last recorded; ids of tags deleted since are still here, and ignored (TagDeleted detached them). */
  tagIds: readonly string[];
}

interface VerificationTagsBase {
  /** The calling account. */
  account_id: string;
  /** The verification's owner as the verifications read model says (null: missing or deleted). */
  verification: { account_id: string } | null;
  /** The account's live tags, id to name, as the vocabulary stream says when the command is given. */
  vocabulary: ReadonlyMap<string, string>;
  now: Date;
}

export type VerificationTagsCommand =
  | (VerificationTagsBase & { type: 'Set'; tag_ids: string[] })
  | (VerificationTagsBase & { type: 'Add'; tag_ids: string[] })
  | (VerificationTagsBase & { type: 'Detach'; tag_id: string });

/** Only the owning account changes a verification's tags; another account's looks exactly like a missing one. */
export function checkOwner(command: Pick<VerificationTagsBase, 'account_id' | 'verification'>): void {
  if (!command.verification || command.verification.account_id !== command.account_id) throw verificationNotFound();
}

/** The tags a verification carries now: the recorded ones still in the vocabulary. */
export const liveTagIds = (state: VerificationTagsState, vocabulary: ReadonlyMap<string, string>): string[] => state.tagIds.filter((id) => vocabulary.has(id));

export const verificationTagsDecider: Decider<VerificationTagsState, VerificationTagsCommand, typeof verificationTagEvents> = {
  catalogue: verificationTagEvents,
  initialState: () => ({ tagIds: [] }),
  evolve(_state, event) {
    switch (event.type) {
      case 'VerificationTagsChanged':
        return { tagIds: event.data.tag_ids };
      default:
        return assertNever(event.type);
    }
  },
  decide(command, state): VerificationTagEvent[] {
    checkOwner(command);
    const current = liveTagIds(state, command.vocabulary);
    let next: string[];
    switch (command.type) {
      case 'Set':
        next = unique(command.tag_ids);
        break;
      case 'Add':
        next = unique([...current, ...command.tag_ids]);
        break;
      case 'Detach':
        if (!current.includes(command.tag_id)) {
          throw new NotFoundError('TAG_NOT_FOUND', 'This tag is not on the verification.', { suggestion: 'GET /v1/verifications/{verification_id} lists its tags.' });
        }
        next = current.filter((id) => id !== command.tag_id);
        break;
      default:
        return assertNever(command);
    }
    const unknown = next.find((id) => !command.vocabulary.has(id));
    if (unknown) throw tagNotFound();
    if (next.length > MAX_TAGS_PER_VERIFICATION) throw tooManyTags(next.length);
    const added = next.filter((id) => !current.includes(id));
    const removed = current.filter((id) => !next.includes(id));
    if (added.length === 0 && removed.length === 0) return [];
    const ref = (id: string) => ({ id, name: command.vocabulary.get(id)! });
    return [{ type: 'VerificationTagsChanged', data: { tag_ids: next, added: added.map(ref), removed: removed.map(ref), changed_at: command.now.toISOString() } }];
  },
};

const unique = (ids: string[]): string[] => [...new Set(ids)];
