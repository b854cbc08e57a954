import crypto from 'node:crypto';
import { execute } from '../../core/es/commands.js';
import { foldStream } from '../../core/es/decider.js';
import type { AppDeps } from '../../core/module/deps.js';
import { isoDate } from '../../core/http/schemas.js';
import { callerOf, type Call, type Principal } from '../../core/principal.js';
import { findVerification } from '../verifications/index.js';
import {
  checkOwner,
  liveTagIds,
  tagNotFound,
  verificationTagsDecider,
  verificationTagsStream,
  vocabularyDecider,
  vocabularyStream,
  type Tag,
  type VerificationTagsCommand,
  type VocabularyCommand,
  type VocabularyState,
} from './decider.js';
import { checkTagName, MAX_TAGS_PER_VERIFICATION, tagKey, tooManyTags } from './names.js';
import { tagsWithCounts, verificationCount } from '../../../projections/tags/index.js';

/** The spec's Tag (2.4) as the tag endpoints answer it. */
export interface TagView {
  id: string;
  name: string;
  color: string | null;
  verification_count: number;
  created_at: string;
  updated_at: string;
}

/** A tag as a verification carries it (spec 2.1). */
export interface TagRef {
  id: string;
  name: string;
  color: string | null;
}

const compare = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
/** The read models' order (projections/tags/queries.ts): name key, then name, in code-point order. */
const byName = (a: TagRef, b: TagRef) => compare(tagKey(a.name), tagKey(b.name)) || compare(a.name, b.name) || compare(a.id, b.id);

const toView = (tag: Tag, verificationCount: number): TagView => ({
  id: tag.id,
  name: tag.name,
  color: tag.color,
  verification_count: verificationCount,
  created_at: tag.createdAt,
  updated_at: tag.updatedAt,
});

const vocabularyOf = async (deps: AppDeps, accountId: string): Promise<VocabularyState> => (await foldStream(deps.store, vocabularyStream(accountId), vocabularyDecider)).state;

/**
 * Runs a vocabulary command. This process's writers of one account's vocabulary take turns
 * (deps.streamLocks); the stream's expected revision decides between processes, and a command
 * that loses the race is decided again on the fresh vocabulary, where a duplicate name is a 409.
 */
async function changeVocabulary(deps: AppDeps, call: Call, command: VocabularyCommand): Promise<VocabularyState> {
  const stream = vocabularyStream(callerOf(call).accountId);
  return deps.streamLocks.run(stream, async () => {
    await execute(deps, call, stream, vocabularyDecider, command);
    // The vocabulary as the stream says right after the command: the answer does not wait on a read model.
    return (await foldStream(deps.store, stream, vocabularyDecider)).state;
  });
}

export async function listTags(deps: AppDeps, principal: Principal): Promise<{ items: TagView[] }> {
  const rows = await tagsWithCounts(deps.knex, principal.accountId);
  return {
    items: rows.map((row) => ({
      id: row.id,
      name: row.name,
      color: row.color,
      verification_count: Number(row.verification_count),
      created_at: isoDate(row.created_at)!,
      updated_at: isoDate(row.updated_at)!,
    })),
  };
}

export async function createTag(deps: AppDeps, call: Call, input: { name: string; color?: string | null }): Promise<TagView> {
  const id = crypto.randomUUID();
  const vocabulary = await changeVocabulary(deps, call, { type: 'Create', tag_id: id, name: input.name, color: input.color ?? null, now: deps.now() });
  const tag = vocabulary.tags.get(id);
  // Deleted by a concurrent call between the command and this read.
  if (!tag) throw tagNotFound();
  return toView(tag, 0);
}

/** Renames and/or recolours a tag; a rename shows on every verification carrying it (they reference the tag by id). */
export async function updateTag(deps: AppDeps, call: Call, tagId: string, input: { name?: string; color?: string | null }): Promise<TagView> {
  const vocabulary = await changeVocabulary(deps, call, { type: 'Update', tag_id: tagId, ...input, now: deps.now() });
  const tag = vocabulary.tags.get(tagId);
  if (!tag) throw tagNotFound();
  return toView(tag, await verificationCount(deps.knex, tagId));
}

/** Deletes a tag: it leaves every verification carrying it, which are otherwise unchanged. */
export async function deleteTag(deps: AppDeps, call: Call, tagId: string): Promise<void> {
  await changeVocabulary(deps, call, { type: 'Delete', tag_id: tagId, now: deps.now() });
}

export type TagChange = { type: 'Set' | 'Add'; names: string[] } | { type: 'Detach'; tag_id: string };

/**
 * Changes the tags on one of the caller's verifications and answers its whole list, sorted by
 * name. Set and Add name tags: unknown names are created in the vocabulary first (after every
 * check that could refuse the call, so a refused call creates nothing). Concurrent changes of one
 * verification's tags are decided one after another on fresh state (D-034): none is lost.
 */
export async function changeVerificationTags(deps: AppDeps, call: Call, verificationId: string, change: TagChange): Promise<{ tags: TagRef[] }> {
  const principal = callerOf(call);
  const row = await findVerification(deps.knex, verificationId);
  const verification = row ? { account_id: row.account_id } : null;
  // Before anything is created in the vocabulary; the decider checks it again.
  checkOwner({ account_id: principal.accountId, verification });
  const stream = verificationTagsStream(verificationId);

  return deps.streamLocks.run(stream, async () => {
    let vocabulary = await vocabularyOf(deps, principal.accountId);
    let tagIds: string[] = [];
    if (change.type !== 'Detach') {
      const names = uniqueByKey(change.names.map(checkTagName));
      if (names.length > MAX_TAGS_PER_VERIFICATION) throw tooManyTags(names.length);
      if (change.type === 'Add') {
        const { state } = await foldStream(deps.store, stream, verificationTagsDecider);
        const present = new Set(liveTagIds(state, nameMap(vocabulary)).map((id) => tagKey(vocabulary.tags.get(id)!.name)));
        const total = new Set([...present, ...names.map(tagKey)]).size;
        if (total > MAX_TAGS_PER_VERIFICATION) throw tooManyTags(total);
      }
      if (names.some((name) => !vocabulary.byKey.has(tagKey(name)))) {
        vocabulary = await changeVocabulary(deps, call, { type: 'Ensure', names: names.map((name) => ({ name, tag_id: crypto.randomUUID() })), now: deps.now() });
      }
      tagIds = names.map((name) => vocabulary.byKey.get(tagKey(name))).filter((id): id is string => id !== undefined);
    }
    const base = { account_id: principal.accountId, verification, vocabulary: nameMap(vocabulary), now: deps.now() };
    const command: VerificationTagsCommand = change.type === 'Detach' ? { ...base, type: 'Detach', tag_id: change.tag_id } : { ...base, type: change.type, tag_ids: tagIds };
    await execute(deps, call, stream, verificationTagsDecider, command);
    const { state } = await foldStream(deps.store, stream, verificationTagsDecider);
    const tags = liveTagIds(state, base.vocabulary).map((id) => vocabulary.tags.get(id)!);
    return { tags: tags.map((t) => ({ id: t.id, name: t.name, color: t.color })).sort(byName) };
  });
}

const nameMap = (vocabulary: VocabularyState): ReadonlyMap<string, string> => new Map([...vocabulary.tags].map(([id, tag]) => [id, tag.name]));

/** The first spelling of each name, case-insensitively ("Sea" and "sea" in one request are one tag). */
function uniqueByKey(names: string[]): string[] {
  const seen = new Map<string, string>();
  for (const name of names) if (!seen.has(tagKey(name))) seen.set(tagKey(name), name);
  return [...seen.values()];
}
