import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_ATTEMPTS } from '../../src/core/es/decider.js';
import type { AppDeps } from '../../src/core/module/deps.js';
import { WrongExpectedRevisionError } from '../../src/core/errors.js';
import type { EventStore } from '../../src/core/es/event-store.js';
import { KeyedLock } from '../../src/core/es/keyed-lock.js';
import { newCall, type Principal } from '../../src/core/principal.js';
import { principalFromJwt } from '../../src/features/accounts/sessions.js';
import { changeVerificationTags, createTag } from '../../src/features/tags/use-cases.js';
import { databaseTargets } from '../support/databases.js';
import { registerAccount, uploadImage } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';


type Account = Awaited<ReturnType<typeof registerAccount>>;

const upload = (url: string, token: string) => uploadImage(url, token, 'images/rs_sample1.webp', 'harbour.webp');

const names = (tags: { name: string }[]) => tags.map((t) => t.name);

/**
 * The store as several service instances see it when their commands on one stream race: the
 * first append of each of `parties` callers is held until all of them have decided, so all
 * decide on the same revision and all but one append lose. Counts the appends that lost.
 */
function contendedStore(store: EventStore, stream: string, parties: number): { store: EventStore; conflicts: () => number } {
  let arrived = 0;
  let conflicts = 0;
  let open!: () => void;
  const allDecided = new Promise<void>((resolve) => (open = resolve));
  const contended: EventStore = Object.create(store);
  contended.append = async (name, events, options) => {
    if (name === stream && arrived < parties) {
      arrived += 1;
      if (arrived === parties) open();
      await allDecided;
    }
    try {
      return await store.append(name, events, options);
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) conflicts += 1;
      throw error;
    }
  };
  return { store: contended, conflicts: () => conflicts };
}

for (const target of databaseTargets) {
  describe(`tags over HTTP on ${target.name}`, () => {
    const { t, call, newAccount } = serviceSuite(target);
    const owner = newAccount();
    const other = newAccount();
    let ownerPrincipal: Principal;
    let otherPrincipal: Principal;
    /** The owner's verifications, and one of the other account's. */
    let v1: string;
    let v2: string;
    let v3: string;
    let foreign: string;

    const tagsOf = (id: string) => `/v1/verifications/${id}/tags`;
    const as = (account: Account) => ({ token: account.token });
    const expectError = (res: { status: number; body: any }, status: number, code: string) => {
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      expect(res.body.detail.error_code).toBe(code);
      expect(res.body.detail.suggestion, 'every error suggests what to do').toEqual(expect.any(String));
    };
    const vocabulary = async (account: Account) => {
      const res = await call('GET', '/v1/tags/', as(account));
      expect(res.status).toBe(200);
      return res.body.items as { id: string; name: string; color: string | null; verification_count: number; created_at: string; updated_at: string }[];
    };
    const tagNamed = async (account: Account, name: string) => (await vocabulary(account)).find((tag) => tag.name === name)!;
    const verification = async (id: string, account = owner) => (await call('GET', `/v1/verifications/${id}`, as(account))).body;
    const list = async (query: string, account = owner) => {
      const res = await call('GET', `/v1/verifications/?size=100&${query}`, as(account));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body as { items: { id: string; tags: { name: string }[] }[]; total: number };
    };
    const history = async (stream: string) => {
      const res = await call('GET', `/v1/audit/streams/${stream}`, as(owner));
      expect(res.status).toBe(200);
      return res.body.events as { type: string; data: Record<string, unknown> }[];
    };
    /** A use-case call as the owner, through deps of our own choosing (another process's lock). */
    const useCaseCall = (principal: Principal) => newCall(principal, crypto.randomUUID(), '127.0.0.1');

    beforeAll(async () => {
      ownerPrincipal = await principalFromJwt(t.service.deps, owner.token);
      otherPrincipal = await principalFromJwt(t.service.deps, other.token);
      v1 = await upload(t.url, owner.token);
      v2 = await upload(t.url, owner.token);
      v3 = await upload(t.url, owner.token);
      foreign = await upload(t.url, other.token);
      await t.settled();
    }, 180_000);

    it('creates tags (201) and lists them sorted by name, case-insensitively, with verification_count', async () => {
      const created = await call('POST', '/v1/tags/', { ...as(owner), json: { name: 'sea', color: '#1F77B4' } });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({ id: expect.any(String), name: 'sea', color: '#1f77b4', verification_count: 0, created_at: expect.any(String), updated_at: created.body.created_at });
      expect((await call('POST', '/v1/tags/', { ...as(owner), json: { name: '  Boat ' } })).body).toMatchObject({ name: 'Boat', color: null });
      expect((await call('POST', '/v1/tags/', { ...as(owner), json: { name: 'anchor', color: null } })).status).toBe(201);
      const items = await vocabulary(owner);
      expect(names(items)).toEqual(['anchor', 'Boat', 'sea']);
      expect(items.every((tag) => tag.verification_count === 0)).toBe(true);
      expect(await vocabulary(other)).toEqual([]);
    });

    it('refuses a duplicate name in any case with 409 TAG_EXISTS, recording nothing', async () => {
      const before = await t.eventCount();
      expectError(await call('POST', '/v1/tags/', { ...as(owner), json: { name: 'SEA' } }), 409, 'TAG_EXISTS');
      expectError(await call('POST', '/v1/tags/', { ...as(owner), json: { name: ' boat' } }), 409, 'TAG_EXISTS');
      expect(await t.eventCount()).toBe(before);
      // Another account's vocabulary is its own.
      expect((await call('POST', '/v1/tags/', { ...as(other), json: { name: 'Sea' } })).status).toBe(201);
    });

    it('refuses invalid names and colours with 422 VALIDATION_ERROR, and malformed bodies with the 422 list', async () => {
      const before = await t.eventCount();
      for (const name of ['', '   ', 'x'.repeat(41), 'sea,boat', 'tab\there']) {
        expectError(await call('POST', '/v1/tags/', { ...as(owner), json: { name } }), 422, 'VALIDATION_ERROR');
      }
      for (const color of ['red', '#fff', '#12345g', '1f77b4']) {
        const res = await call('POST', '/v1/tags/', { ...as(owner), json: { name: 'colourful', color } });
        expectError(res, 422, 'VALIDATION_ERROR');
        expect(res.body.detail.suggestion).toContain('#rrggbb');
      }
      expect((await call('POST', '/v1/tags/', { ...as(owner), json: { name: 'x'.repeat(40) } })).status).toBe(201);
      const malformed = await call('POST', '/v1/tags/', { ...as(owner), json: { colour: '#000000' } });
      expect(malformed.status).toBe(422);
      expect(malformed.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc: ['body', 'name'], type: 'missing' })]));
      expect((await call('POST', '/v1/tags/', { ...as(owner), json: { name: 7 } })).status).toBe(422);
      expect(await t.eventCount()).toBe(before + 1);
      expect((await call('DELETE', `/v1/tags/${(await tagNamed(owner, 'x'.repeat(40))).id}`, as(owner))).status).toBe(204);
    });

    it('requires credentials (401) and refuses changes with a read-only key (403)', async () => {
      expect((await call('GET', '/v1/tags/')).status).toBe(401);
      expect((await call('POST', '/v1/tags/', { json: { name: 'x' } })).status).toBe(401);
      expect((await call('PUT', tagsOf(v1), { json: { tags: ['x'] } })).status).toBe(401);
      const key = await call('POST', '/v1/apikeys/', { ...as(owner), json: { account_id: owner.account.id, scope: 'read' } });
      expect((await call('GET', '/v1/tags/', { apiKey: key.body.raw_key })).status).toBe(200);
      expectError(await call('PUT', tagsOf(v1), { apiKey: key.body.raw_key, json: { tags: ['x'] } }), 403, 'ACCESS_DENIED');
      expectError(await call('POST', '/v1/tags/', { apiKey: key.body.raw_key, json: { name: 'x' } }), 403, 'ACCESS_DENIED');
    });

    it('sets the tags of a verification exactly: unknown names created, case-insensitive, idempotent, empty clears', async () => {
      const set = await call('PUT', tagsOf(v1), { ...as(owner), json: { tags: ['SEA', 'harbour', 'Harbour', ' boat '] } });
      expect(set.status).toBe(200);
      const sea = await tagNamed(owner, 'sea');
      expect(set.body.tags).toEqual([
        { id: (await tagNamed(owner, 'Boat')).id, name: 'Boat', color: null },
        { id: expect.any(String), name: 'harbour', color: null },
        { id: sea.id, name: 'sea', color: '#1f77b4' },
      ]);
      // "harbour" joined the vocabulary once, in the spelling first given.
      expect(names(await vocabulary(owner))).toEqual(['anchor', 'Boat', 'harbour', 'sea']);
      const before = await t.eventCount();
      const again = await call('PUT', tagsOf(v1), { ...as(owner), json: { tags: ['boat', 'Harbour', 'sea'] } });
      expect(again.body).toEqual(set.body);
      expect(await t.eventCount(), 'an identical PUT records nothing').toBe(before);
      expect((await verification(v1)).tags).toEqual(set.body.tags);

      const replaced = await call('PUT', tagsOf(v2), { ...as(owner), json: { tags: ['anchor'] } });
      expect(names(replaced.body.tags)).toEqual(['anchor']);
      expect(names((await call('PUT', tagsOf(v2), { ...as(owner), json: { tags: ['sea', 'lighthouse'] } })).body.tags)).toEqual(['lighthouse', 'sea']);
      expect((await call('PUT', tagsOf(v3), { ...as(owner), json: { tags: ['sea'] } })).status).toBe(200);
      const cleared = await call('PUT', tagsOf(v3), { ...as(owner), json: { tags: [] } });
      expect(cleared.body).toEqual({ tags: [] });
      expect((await verification(v3)).tags).toEqual([]);
      const counts = Object.fromEntries((await vocabulary(owner)).map((tag) => [tag.name, tag.verification_count]));
      expect(counts).toEqual({ anchor: 0, Boat: 1, harbour: 1, lighthouse: 1, sea: 2 });
    });

    it('adds tags without removing present ones and returns the full list', async () => {
      const added = await call('POST', tagsOf(v2), { ...as(owner), json: { tags: ['ANCHOR', 'sea', 'storm'] } });
      expect(added.status).toBe(200);
      expect(names(added.body.tags)).toEqual(['anchor', 'lighthouse', 'sea', 'storm']);
      const before = await t.eventCount();
      expect((await call('POST', tagsOf(v2), { ...as(owner), json: { tags: ['Storm'] } })).body).toEqual(added.body);
      expect(await t.eventCount()).toBe(before);
    });

    it('orders tags by name alike in every answer, whatever their case and accents', async () => {
      const spellings = ['Zebra', 'éclair', 'apple', 'Émile', 'Eagle', 'zoo'];
      const set = await call('PUT', tagsOf(v3), { ...as(owner), json: { tags: spellings } });
      const order = names(set.body.tags);
      expect(order.slice(0, 4)).toEqual(['apple', 'Eagle', 'Zebra', 'zoo']);
      expect(names((await verification(v3)).tags)).toEqual(order);
      expect(names(await vocabulary(owner)).filter((name) => spellings.includes(name))).toEqual(order);
      expect((await call('PUT', tagsOf(v3), { ...as(owner), json: { tags: [] } })).body.tags).toEqual([]);
      for (const name of spellings) expect((await call('DELETE', `/v1/tags/${(await tagNamed(owner, name)).id}`, as(owner))).status).toBe(204);
    });

    it('allows 20 tags on a verification and refuses more with 422 VALIDATION_ERROR, creating nothing', async () => {
      const twenty = Array.from({ length: 20 }, (_, i) => `bulk ${i}`);
      expect((await call('PUT', tagsOf(v3), { ...as(owner), json: { tags: twenty } })).body.tags).toHaveLength(20);
      const before = await t.eventCount();
      const vocabularyBefore = await vocabulary(owner);
      expectError(await call('PUT', tagsOf(v3), { ...as(owner), json: { tags: [...twenty, 'one too many'] } }), 422, 'VALIDATION_ERROR');
      expectError(await call('POST', tagsOf(v3), { ...as(owner), json: { tags: ['one too many'] } }), 422, 'VALIDATION_ERROR');
      // Twenty-one spellings of twenty names are twenty tags.
      expect((await call('PUT', tagsOf(v3), { ...as(owner), json: { tags: [...twenty, 'BULK 0'] } })).status).toBe(200);
      for (const tags of [[''], ['a,b'], ['x'.repeat(41)]]) expectError(await call('PUT', tagsOf(v1), { ...as(owner), json: { tags } }), 422, 'VALIDATION_ERROR');
      expect((await call('PUT', tagsOf(v1), { ...as(owner), json: { tags: 'sea' } })).status).toBe(422);
      expect((await call('PUT', tagsOf(v1), { ...as(owner), json: {} })).status).toBe(422);
      expect(await t.eventCount()).toBe(before);
      expect(await vocabulary(owner)).toEqual(vocabularyBefore);
      expect((await call('PUT', tagsOf(v3), { ...as(owner), json: { tags: [] } })).status).toBe(200);
    });

    it('detaches a tag from a verification (it stays in the vocabulary); 404 TAG_NOT_FOUND when it is not there', async () => {
      const storm = await tagNamed(owner, 'storm');
      const detached = await call('DELETE', `${tagsOf(v2)}/${storm.id}`, as(owner));
      expect(detached.status).toBe(200);
      expect(names(detached.body.tags)).toEqual(['anchor', 'lighthouse', 'sea']);
      expect((await tagNamed(owner, 'storm')).verification_count).toBe(0);
      expectError(await call('DELETE', `${tagsOf(v2)}/${storm.id}`, as(owner)), 404, 'TAG_NOT_FOUND');
      expectError(await call('DELETE', `${tagsOf(v2)}/${crypto.randomUUID()}`, as(owner)), 404, 'TAG_NOT_FOUND');
      const othersTag = (await vocabulary(other))[0]!;
      expectError(await call('DELETE', `${tagsOf(v2)}/${othersTag.id}`, as(owner)), 404, 'TAG_NOT_FOUND');
      expect((await call('DELETE', `${tagsOf(v2)}/not-a-uuid`, as(owner))).status).toBe(422);
    });

    it("hides another account's verifications and tags: 404 on every route", async () => {
      const before = await t.eventCount();
      for (const [method, json] of [['PUT', { tags: ['sea'] }], ['POST', { tags: ['sea'] }]] as const) {
        expectError(await call(method, tagsOf(foreign), { ...as(owner), json }), 404, 'VERIFICATION_NOT_FOUND');
        expectError(await call(method, tagsOf(crypto.randomUUID()), { ...as(owner), json }), 404, 'VERIFICATION_NOT_FOUND');
      }
      const sea = await tagNamed(owner, 'sea');
      expectError(await call('DELETE', `${tagsOf(foreign)}/${sea.id}`, as(owner)), 404, 'VERIFICATION_NOT_FOUND');
      expectError(await call('PATCH', `/v1/tags/${sea.id}`, { ...as(other), json: { name: 'mine now' } }), 404, 'TAG_NOT_FOUND');
      expectError(await call('DELETE', `/v1/tags/${sea.id}`, as(other)), 404, 'TAG_NOT_FOUND');
      expect(await t.eventCount()).toBe(before);
      // The other account's verification list never shows the owner's tags, nor matches them.
      expect((await list('tags=sea', other)).total).toBe(0);
      expect((await verification(foreign, other)).tags).toEqual([]);
    });

    it('renames and recolours a tag everywhere it is carried; 409 for a taken name, 404 for an unknown tag, 422 for bad values', async () => {
      const sea = await tagNamed(owner, 'sea');
      const renamed = await call('PATCH', `/v1/tags/${sea.id}`, { ...as(owner), json: { name: 'Ocean' } });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toMatchObject({ id: sea.id, name: 'Ocean', color: '#1f77b4', verification_count: 2 });
      expect(renamed.body.updated_at > sea.updated_at || renamed.body.updated_at === sea.updated_at).toBe(true);
      expect((await verification(v1)).tags).toContainEqual({ id: sea.id, name: 'Ocean', color: '#1f77b4' });
      expect(names((await verification(v2)).tags)).toEqual(['anchor', 'lighthouse', 'Ocean']);
      expect((await list('tags=ocean')).total).toBe(2);
      expect((await list('tags=sea')).total).toBe(0);
      const recoloured = await call('PATCH', `/v1/tags/${sea.id}`, { ...as(owner), json: { color: '#00AA00' } });
      expect(recoloured.body).toMatchObject({ name: 'Ocean', color: '#00aa00' });
      expect((await verification(v2)).tags).toContainEqual({ id: sea.id, name: 'Ocean', color: '#00aa00' });
      expect((await call('PATCH', `/v1/tags/${sea.id}`, { ...as(owner), json: { name: 'OCEAN' } })).body.name).toBe('OCEAN');
      expect((await call('PATCH', `/v1/tags/${sea.id}`, { ...as(owner), json: { name: 'Ocean', color: null } })).body).toMatchObject({ name: 'Ocean', color: null });
      const before = await t.eventCount();
      expectError(await call('PATCH', `/v1/tags/${sea.id}`, { ...as(owner), json: { name: 'ANCHOR' } }), 409, 'TAG_EXISTS');
      expectError(await call('PATCH', `/v1/tags/${sea.id}`, { ...as(owner), json: { color: 'green' } }), 422, 'VALIDATION_ERROR');
      expectError(await call('PATCH', `/v1/tags/${sea.id}`, { ...as(owner), json: { name: 'a,b' } }), 422, 'VALIDATION_ERROR');
      expectError(await call('PATCH', `/v1/tags/${crypto.randomUUID()}`, { ...as(owner), json: { name: 'x' } }), 404, 'TAG_NOT_FOUND');
      expect((await call('PATCH', `/v1/tags/${sea.id}`, { ...as(owner), json: { name: 'x', extra: 1 } })).status).toBe(422);
      const unchanged = await call('PATCH', `/v1/tags/${sea.id}`, { ...as(owner), json: {} });
      expect(unchanged.body).toMatchObject({ name: 'Ocean', color: null });
      expect(await t.eventCount()).toBe(before);
    });

    it('deletes a tag (204): detached everywhere, the verifications otherwise unchanged; then 404 TAG_NOT_FOUND', async () => {
      const anchor = await tagNamed(owner, 'anchor');
      const before = await verification(v2);
      expect((await call('DELETE', `/v1/tags/${anchor.id}`, as(owner))).status).toBe(204);
      const after = await verification(v2);
      expect(names(after.tags)).toEqual(['lighthouse', 'Ocean']);
      const { tags: _a, image_thumbnail_url: _b, ...rest } = before;
      const { tags: _c, image_thumbnail_url: _d, ...restAfter } = after;
      expect(restAfter).toEqual(rest);
      expect(names(await vocabulary(owner))).not.toContain('anchor');
      expect((await list('tags=anchor')).total).toBe(0);
      expectError(await call('DELETE', `/v1/tags/${anchor.id}`, as(owner)), 404, 'TAG_NOT_FOUND');
      expectError(await call('DELETE', `${tagsOf(v2)}/${anchor.id}`, as(owner)), 404, 'TAG_NOT_FOUND');
      // The name is free again, as a new tag that no verification carries.
      const again = await call('POST', '/v1/tags/', { ...as(owner), json: { name: 'Anchor' } });
      expect(again.status).toBe(201);
      expect(again.body.id).not.toBe(anchor.id);
      expect(names((await verification(v2)).tags)).toEqual(['lighthouse', 'Ocean']);
    });

    it('filters the list by tags (all/any, case-insensitive, at most 10) and finds tag names by search', async () => {
      // v1: Boat, harbour, Ocean; v2: lighthouse, Ocean; v3: none.
      const ids = (page: { items: { id: string }[] }) => page.items.map((item) => item.id).sort();
      expect(ids(await list('tags=OCEAN'))).toEqual([v1, v2].sort());
      expect(ids(await list('tags=ocean,boat'))).toEqual([v1]);
      expect(ids(await list('tags=ocean,boat&tag_match=all'))).toEqual([v1]);
      expect(ids(await list('tags=lighthouse,boat&tag_match=any'))).toEqual([v1, v2].sort());
      expect(ids(await list('tags=lighthouse,nothing-like-it&tag_match=any'))).toEqual([v2]);
      expect((await list('tags=lighthouse,nothing-like-it')).total).toBe(0);
      expect(ids(await list('tags=%20Ocean%20,,ocean'))).toEqual([v1, v2].sort());
      const page = await list('tags=ocean');
      expect(page.items.find((item) => item.id === v2)!.tags).toEqual([
        { id: expect.any(String), name: 'lighthouse', color: null },
        { id: expect.any(String), name: 'Ocean', color: null },
      ]);
      expect(ids(await list('search=BOA'))).toEqual([v1]);
      expect(ids(await list('search=light'))).toEqual([v2]);
      expect(ids(await list('search=Ocean'))).toEqual([v1, v2].sort());
      // The file name still matches every one of them.
      expect((await list('search=harbour.webp')).total).toBe(3);
      const eleven = Array.from({ length: 11 }, (_, i) => `t${i}`).join(',');
      // A validation failure, 422 naming the parameter, as every other filter's (issue 36 item 11).
      const tooMany = await call('GET', `/v1/verifications/?tags=${eleven}`, as(owner));
      expect(tooMany.status, JSON.stringify(tooMany.body)).toBe(422);
      expect(tooMany.body.detail[0].loc).toEqual(['query', 'tags']);
      expect((await call('GET', `/v1/verifications/?tags=${Array.from({ length: 10 }, (_, i) => `t${i}`).join(',')}`, as(owner))).status).toBe(200);
      expect((await call('GET', '/v1/verifications/?tags=ocean&tag_match=some', as(owner))).status).toBe(422);
    });

    it('records TagCreated, TagRenamed, TagRecoloured, TagDeleted and VerificationTagsChanged in the audit history', async () => {
      const vocabularyEvents = await history(`tags-${owner.account.id}`);
      const types = new Set(vocabularyEvents.map((e) => e.type));
      expect([...types].sort()).toEqual(['TagCreated', 'TagDeleted', 'TagRecoloured', 'TagRenamed']);
      expect(vocabularyEvents.find((e) => e.type === 'TagRenamed')!.data).toMatchObject({ from: 'sea', to: 'Ocean' });
      const changes = await history(`verification_tags-${v2}`);
      expect(changes.map((e) => e.type).every((type) => type === 'VerificationTagsChanged')).toBe(true);
      expect(changes[0]!.data).toMatchObject({ added: [{ name: 'anchor' }], removed: [] });
      // Another account's streams stay hidden.
      expect((await call('GET', `/v1/audit/streams/tags-${owner.account.id}`, as(other))).status).toBe(404);
    });

    it('forgets the tags of a deleted verification: counts and filters no longer see it', async () => {
      const doomed = await upload(t.url, owner.token);
      await t.settled();
      expect((await call('PUT', tagsOf(doomed), { ...as(owner), json: { tags: ['Ocean', 'ephemeral'] } })).status).toBe(200);
      expect((await tagNamed(owner, 'ephemeral')).verification_count).toBe(1);
      const ocean = (await tagNamed(owner, 'Ocean')).verification_count;
      expect((await list('tags=ephemeral')).total).toBe(1);
      expect((await call('DELETE', `/v1/verifications/${doomed}`, as(owner))).status).toBe(200);
      expect((await tagNamed(owner, 'ephemeral')).verification_count).toBe(0);
      expect((await tagNamed(owner, 'Ocean')).verification_count).toBe(ocean - 1);
      expect((await list('tags=ephemeral')).total).toBe(0);
      expectError(await call('PUT', tagsOf(doomed), { ...as(owner), json: { tags: ['Ocean'] } }), 404, 'VERIFICATION_NOT_FOUND');
    });

    it('lets exactly one of many concurrent creations of one name win; the others get 409 TAG_EXISTS', async () => {
      const spellings = ['Regatta', 'regatta', 'REGATTA', 'Regatta', 'rEgAtTa', 'regatta'];
      const answers = await Promise.all(spellings.map((name) => call('POST', '/v1/tags/', { ...as(owner), json: { name } })));
      expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
      for (const answer of answers.filter((a) => a.status !== 201)) expectError(answer, 409, 'TAG_EXISTS');
      expect((await vocabulary(owner)).filter((tag) => tag.name.toLowerCase() === 'regatta')).toHaveLength(1);
      // Concurrent PUTs creating the same new name on different verifications share one tag.
      const puts = await Promise.all([v1, v2, v3].map((id) => call('POST', tagsOf(id), { ...as(owner), json: { tags: ['Sailing'] } })));
      expect(puts.map((p) => p.status)).toEqual([200, 200, 200]);
      const sailing = (await vocabulary(owner)).filter((tag) => tag.name === 'Sailing');
      expect(sailing).toHaveLength(1);
      expect(sailing[0]!.verification_count).toBe(3);
    });

    it('decides a duplicate name between instances by the stream revision, not the database index', async () => {
      // Three instances (one database; each its own store object and locks, as processes have: runCommand locks per store) create "Crossing" at once.
      const race = contendedStore(t.service.deps.store, `tags-${owner.account.id}`, 3);
      const instances: AppDeps[] = ['Crossing', 'crossing', 'CROSSING'].map(() => ({ ...t.service.deps, store: Object.create(race.store) as EventStore, streamLocks: new KeyedLock() }));
      const outcomes = await Promise.allSettled(instances.map((deps, i) => createTag(deps, useCaseCall(ownerPrincipal), { name: ['Crossing', 'crossing', 'CROSSING'][i]! })));
      expect(race.conflicts(), 'two appends lost the race and were decided again').toBe(2);
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      for (const outcome of outcomes) if (outcome.status === 'rejected') expect(outcome.reason.code).toBe('TAG_EXISTS');
      const events = (await history(`tags-${owner.account.id}`)).filter((e) => e.type === 'TagCreated' && String(e.data.name).toLowerCase() === 'crossing');
      expect(events).toHaveLength(1);
    });

    it('never loses one of many concurrent tag changes of one verification', async () => {
      const reset = await call('PUT', tagsOf(v3), { ...as(owner), json: { tags: [] } });
      expect(reset.body.tags).toEqual([]);
      // Through HTTP: one process, every add lands.
      const adds = Array.from({ length: 8 }, (_, i) => `wave ${i}`);
      const answers = await Promise.all(adds.map((name) => call('POST', tagsOf(v3), { ...as(owner), json: { tags: [name] } })));
      expect(answers.map((a) => a.status)).toEqual(adds.map(() => 200));
      expect(names((await verification(v3)).tags)).toEqual(adds);
      // Between instances: two adds decided on the same revision; the loser is decided again and both land.
      for (const name of ['tide 0', 'tide 1']) expect((await call('POST', '/v1/tags/', { ...as(owner), json: { name } })).status).toBe(201);
      const race = contendedStore(t.service.deps.store, `verification_tags-${v3}`, 2);
      const instances: AppDeps[] = [0, 1].map(() => ({ ...t.service.deps, store: Object.create(race.store) as EventStore, streamLocks: new KeyedLock() }));
      const outcomes = await Promise.all(
        ['tide 0', 'tide 1'].map((name, i) => changeVerificationTags(instances[i]!, useCaseCall(ownerPrincipal), v3, { type: 'Add', names: [name] })),
      );
      expect(race.conflicts(), 'one append lost the race and was decided again').toBe(1);
      expect(names(outcomes[0]!.tags).includes('tide 0') && names(outcomes[1]!.tags).includes('tide 1')).toBe(true);
      await t.settled();
      expect(names((await verification(v3)).tags)).toEqual([...adds, 'tide 0', 'tide 1'].sort());
      // An instance that keeps losing the race gives up after COMMAND_ATTEMPTS decisions: 503 (busy, retry), nothing recorded.
      let attempts = 0;
      const losing: EventStore = Object.create(t.service.deps.store);
      losing.append = async (name, events, options) => {
        if (name !== `verification_tags-${v3}`) return t.service.deps.store.append(name, events, options);
        attempts += 1;
        throw new WrongExpectedRevisionError(name, 0n, 1n);
      };
      const before = await t.eventCount();
      const refused = await changeVerificationTags({ ...t.service.deps, store: losing }, useCaseCall(ownerPrincipal), v3, { type: 'Add', names: ['Ocean'] })
        .then(() => null, (error: unknown) => error as { code: string; suggestion?: string });
      expect(refused).toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: { retry_after_seconds: 1 } });
      expect(attempts).toBe(COMMAND_ATTEMPTS);
      expect(await t.eventCount()).toBe(before);
      expect(names((await verification(v3)).tags)).not.toContain('Ocean');
      // Detaching concurrently with adding: both land.
      const wave0 = await tagNamed(owner, 'wave 0');
      const [detached, added] = await Promise.all([
        call('DELETE', `${tagsOf(v3)}/${wave0.id}`, as(owner)),
        call('POST', tagsOf(v3), { ...as(owner), json: { tags: ['spray'] } }),
      ]);
      expect([detached.status, added.status]).toEqual([200, 200]);
      const now = names((await verification(v3)).tags);
      expect(now).toContain('spray');
      expect(now).not.toContain('wave 0');
      // The other account could not have been affected.
      expect(otherPrincipal.accountId).not.toBe(ownerPrincipal.accountId);
    });
  });
}
