/**
 * The module list as the one registry (issue 22 item 1): what the composition root derives from
 * the modules' declarations fails at start, naming the modules, when two declarations collide or
 * one is incomplete, instead of a request failing later. That every FeatureDeps member is
 * provided is a compile-time check (src/modules.ts), shown by `npm run typecheck`.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkAuthenticators, type Authenticator } from '../../src/core/module/authenticator.js';
import type { DependencyBase } from '../../src/core/module/deps.js';
import { extensionListParameters, searchDescription, type ResourceExtension } from '../../src/core/module/extensions.js';
import { buildFeatureDeps, type FeatureModule } from '../../src/core/module/module.js';
import { authenticators, modules } from '../../src/modules.js';

const core = {} as DependencyBase;
const resolve: Authenticator['resolve'] = async () => {
  throw new Error('not called');
};

describe('feature dependencies', () => {
  it('are built in list order, each module from the core, and merged', async () => {
    const order: string[] = [];
    const list: FeatureModule[] = [
      { name: 'a', dependencies: (given) => (order.push(`a:${given === core}`), { loginLimiter: 'a' as never }) },
      { name: 'b', dependencies: async (given) => (order.push(`b:${given === core}`), { pipelineBuild: 'b' }) },
      { name: 'c' },
    ];
    expect(await buildFeatureDeps(list, core)).toEqual({ loginLimiter: 'a', pipelineBuild: 'b' });
    expect(order).toEqual(['a:true', 'b:true']);
  });

  it('refuse a member two modules provide, naming both', async () => {
    const list: FeatureModule[] = [
      { name: 'first', dependencies: () => ({ pipelineBuild: 'x' }) },
      { name: 'second', dependencies: () => ({ pipelineBuild: 'y' }) },
    ];
    await expect(buildFeatureDeps(list, core)).rejects.toThrow('The dependency pipelineBuild is provided by both the first and the second module.');
  });

  it('refuse a member provided as undefined', async () => {
    const list: FeatureModule[] = [{ name: 'lazy', dependencies: () => ({ pipelineBuild: undefined }) }];
    await expect(buildFeatureDeps(list, core)).rejects.toThrow('The lazy module provides its dependency pipelineBuild as undefined.');
  });
});

describe('authenticators', () => {
  it("of the service's modules route every credential: one fallback for bearer tokens, distinct prefixes and headers", () => {
    expect(() => checkAuthenticators(authenticators)).not.toThrow();
    expect(authenticators.filter((a) => a.bearerPrefix === undefined)).toHaveLength(1);
  });

  it('refuse two fallbacks, none, and a prefix or header claimed twice', () => {
    const session = { name: 'session', resolve };
    const key = { name: 'key', header: 'x-api-key', bearerPrefix: 'pv_', resolve };
    expect(() => checkAuthenticators([session, { ...session, name: 'other session' }])).toThrow('got session, other session');
    expect(() => checkAuthenticators([key])).toThrow('got none');
    expect(() => checkAuthenticators([session, key, { ...key, name: 'key 2', header: 'x-other' }])).toThrow('same bearerPrefix: pv_');
    expect(() => checkAuthenticators([session, key, { ...key, name: 'key 2', bearerPrefix: 'pk_' }])).toThrow('same header: x-api-key');
  });
});

describe('list parameters other features declare', () => {
  const own = { offset: z.number(), search: z.string() };
  const tags: ResourceExtension = { resource: 'verification', listParameters: { tags: z.string() }, search: { matches: 'part of a tag name', ids: () => null as never } };

  it('join the owner’s list query, and complete its search description', () => {
    expect(Object.keys(extensionListParameters([tags], own))).toEqual(['tags']);
    expect(searchDescription(['the file name', 'the id'], [tags])).toBe('Matches the file name, the id, or part of a tag name.');
    expect(searchDescription(['the file name'], [])).toBe('Matches the file name.');
  });

  it('refuse a parameter declared twice, or one of the owner’s', () => {
    expect(() => extensionListParameters([tags, { ...tags }], own)).toThrow('"tags" of the verification resource is declared twice');
    expect(() => extensionListParameters([{ resource: 'verification', listParameters: { offset: z.string() } }], own)).toThrow('"offset"');
  });

  it("of the service's modules: the tags and requests features' filters reach the verification list", () => {
    const declared = modules.flatMap((m) => (m.extensions ?? []).flatMap((e) => Object.keys(e.listParameters ?? {})));
    expect(declared).toEqual(['tags', 'tag_match', 'request_id']);
  });
});
