import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  classify,
  CORE_PARTS,
  crossFeatureImports,
  fileCycles,
  format,
  infrastructureNamingFeatures,
  loadGraph,
  nonDeterministicWorkflowImports,
  projectionImports,
  RANKS,
  readSideImports,
  strayFeatureFolders,
  unitCycles,
  unknownPlaces,
  upwardArrows,
  type Graph,
} from './import-graph.js';

/**
 * The graph code and each rule over small trees written to a temporary directory: a tree that
 * keeps every rule passes them all, and each rule names exactly the one bad import added to it.
 */
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

function graphOf(files: Record<string, string>): Graph {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'import-graph-fixture-'));
  dirs.push(root);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  return loadGraph(root);
}

/** A tree that keeps every rule: each kind of allowed arrow once. */
const clean: Record<string, string> = {
  'src/core/errors.ts': `export class AppError extends Error {}\n`,
  'src/features/tags/events.ts': `export type TagAdded = { type: 'TagAdded' };\n`,
  'src/features/tags/index.ts': `export { addTag } from './use-cases.js';\n`,
  'src/features/tags/use-cases.ts': `import { AppError } from '../../core/errors.js';\nimport type { TagAdded } from './events.js';\nexport function addTag(): TagAdded { throw new AppError(); }\n`,
  'src/features/tags/module.ts': `import { tagWorkflow } from '../../../workflows/tags/index.js';\nexport const tagsModule = { tagWorkflow };\n`,
  'src/features/tags/queries-user.ts': `import { tagsTable } from '../../../projections/tags/index.js';\nexport const tags = tagsTable;\n`,
  'src/features/comments/use-cases.ts': `import { addTag } from '../tags/index.js';\nimport type { TagAdded } from '../tags/events.js';\nexport const comment = (e: TagAdded) => [addTag, e];\n`,
  'src/core/es/projector.ts': `export interface Projector { name: string }\n`,
  'projections/tags/projection.ts': `import type { Knex } from 'knex';\nimport { createHash } from 'node:crypto';\nimport type { TagAdded } from '../../src/features/tags/events.js';\nimport { AppError } from '../../src/core/errors.js';\nimport type { Projector } from '../../src/core/es/projector.js';\nimport { tagsTable } from './queries.js';\nexport const tagsProjector = [createHash, tagsTable, AppError] as unknown as Projector & ((k: Knex, e: TagAdded) => void);\n`,
  'projections/tags/queries.ts': `import { table } from '../schema.js';\nexport const tagsTable = table;\n`,
  'projections/tags/index.ts': `export { tagsTable } from './queries.js';\n`,
  'projections/schema.ts': `export const table = 'tags';\n`,
  'workflows/definition.ts': `export type Definition = { name: string };\n`,
  'workflows/tags/index.ts': `import { sleep } from '@temporalio/workflow';\nimport type { Definition } from '../definition.js';\nexport const tagWorkflow: Definition & { sleep: unknown } = { name: 'tag', sleep };\n`,
  'workflows/index.ts': `export { tagWorkflow } from './tags/index.js';\n`,
  'src/adapters/http/app.ts': `import { AppError } from '../../core/errors.js';\nexport const app = AppError;\n`,
  'src/web/pages.ts': `import { AppError } from '../core/errors.js';\nimport { addTag } from '../features/tags/index.js';\nimport type { TagAdded } from '../features/tags/events.js';\nimport { tagsTable } from '../../projections/tags/index.js';\nexport const page = (e: TagAdded) => [AppError, addTag, tagsTable, e];\n`,
  'src/web/module.ts': `import { page } from './pages.js';\nexport const webModule = { page };\n`,
  'src/modules.ts': `import { tagsModule } from './features/tags/module.js';\nimport { tagsProjector } from '../projections/tags/projection.js';\nimport { webModule } from './web/module.js';\nexport const modules = [{ ...tagsModule, projectors: [tagsProjector] }, webModule];\n`,
  'src/main.ts': `const { app } = await import('./adapters/http/app.js');\nimport { modules } from './modules.js';\nexport { app, modules };\n`,
  'src/features/tags/decider.spec.ts': `import { app } from '../../adapters/http/app.js';\nexport { app };\n`,
};

/** As in layout.test.ts: the module list and the Temporal bundle's entry. */
const mayNameFeatures = ['src/modules.ts', 'workflows/index.ts'];

const allRules = (graph: Graph) => ({
  unknown: format(unknownPlaces(graph)),
  upward: format(upwardArrows(graph)),
  workflows: format(nonDeterministicWorkflowImports(graph)),
  projections: format(projectionImports(graph)),
  crossFeature: format(crossFeatureImports(graph)),
  readSide: format(readSideImports(graph)),
  infrastructure: [...infrastructureNamingFeatures(graph, mayNameFeatures).values()].flat().map((v) => `${v.from} → ${v.to}`),
  cycles: unitCycles(graph),
  fileCycles: fileCycles(graph),
});

describe('the import graph', () => {
  it('classifies files into units and ranks', () => {
    expect(classify('workflows/tags/workflow.ts')).toEqual({ unit: 'workflows/tags', rank: RANKS.workflows, feature: 'tags' });
    expect(classify('workflows/definition.ts')).toEqual({ unit: 'workflows', rank: RANKS.workflows, feature: null });
    expect(classify('workflows/index.ts')).toEqual({ unit: 'workflows/index.ts', rank: RANKS.workflows, feature: null });
    expect(classify('src/core/errors.ts')).toEqual({ unit: 'core', rank: RANKS.core, feature: null });
    expect(classify('src/core/text/html.ts')).toEqual({ unit: 'core/text', rank: RANKS['core/text'], feature: null });
    expect(classify('src/core/audit/merkle.ts')).toEqual({ unit: 'core/audit', rank: RANKS['core/audit'], feature: null });
    expect(classify('src/core/es/decider.ts')).toEqual({ unit: 'core/es', rank: RANKS['core/es'], feature: null });
    expect(classify('src/core/http/route-spec.ts')).toEqual({ unit: 'core/http', rank: RANKS['core/http'], feature: null });
    expect(classify('src/core/module/deps.ts')).toEqual({ unit: 'core/module', rank: RANKS['core/module'], feature: null });
    expect(classify('src/core/misc/x.ts')).toBeNull();
    expect(classify('src/features/tags/events.ts')).toEqual({ unit: 'events/tags', rank: RANKS.events, feature: 'tags' });
    expect(classify('projections/tags/projection.ts')).toEqual({ unit: 'projections/tags', rank: RANKS.projections, feature: 'tags' });
    expect(classify('src/analysis/raw/index.ts')).toEqual({ unit: 'analysis', rank: RANKS.analysis, feature: null });
    expect(classify('src/provenance/grade.ts')).toEqual({ unit: 'provenance', rank: RANKS.provenance, feature: null });
    expect(classify('src/features/tags/sub/events.ts')).toEqual({ unit: 'features/tags', rank: RANKS.features, feature: 'tags' });
    expect(classify('src/web/pages.ts')).toEqual({ unit: 'web', rank: RANKS.web, feature: null });
    expect(classify('src/adapters/http/app.ts')).toEqual({ unit: 'adapters/http', rank: RANKS.adapters, feature: null });
    expect(classify('src/cli/commands/verify.ts')).toEqual({ unit: 'cli', rank: RANKS.compositionRoot, feature: null });
    expect(classify('src/service.ts')).toEqual({ unit: 'root', rank: RANKS.compositionRoot, feature: null });
    expect(classify('test/support/service.ts')).toBeNull();
    // Low to high as DESIGN.md's Layout reads: the web app above the features it shows, below the adapters.
    expect(Object.keys(RANKS).sort((a, b) => RANKS[a as keyof typeof RANKS] - RANKS[b as keyof typeof RANKS])).toEqual(Object.keys(RANKS));
    expect([RANKS.events < RANKS.projections, RANKS.projections < RANKS.features, RANKS.features < RANKS.web, RANKS.web < RANKS.adapters]).toEqual([true, true, true, true]);
    // Every part of core sits above core's own files and below the domain libraries.
    expect(CORE_PARTS.map((part) => RANKS[`core/${part}` as keyof typeof RANKS]).every((rank) => rank > RANKS.core && rank < RANKS.analysis)).toBe(true);
  });

  it('collects static, re-exported, dynamic and type-position imports, resolves .js to .ts, and skips specs', () => {
    const graph = graphOf(clean);
    expect(graph.files.has('src/features/tags/decider.spec.ts')).toBe(false);
    expect(graph.files.get('src/main.ts')!.edges.map((e) => [e.specifier, e.to, e.typeOnly])).toEqual([
      ['./adapters/http/app.js', 'src/adapters/http/app.ts', false],
      ['./modules.js', 'src/modules.ts', false],
    ]);
    const types = graphOf({
      'src/core/a.ts': `export type A = 1;\nexport const a = 1;\n`,
      'src/core/b.ts': [
        `import type { A } from './a.js';`,
        `import { type A as B } from './a.js';`,
        `export type { A as C } from './a.js';`,
        `export * from './a.js';`,
        `type D = typeof import('./a.js');`,
        `import type { Knex } from 'knex';`,
        `import fs from 'node:fs';`,
        `import { readFile } from 'fs/promises';`,
        `import { proxyActivities } from '@temporalio/workflow/lib/workflow.js';`,
        `export type E = [A, B, D, Knex, typeof fs, typeof readFile, typeof proxyActivities];`,
      ].join('\n'),
    });
    expect(types.files.get('src/core/b.ts')!.edges.map((e) => `${e.to ?? e.packageName} typeOnly=${e.typeOnly} builtin=${e.builtin}`)).toEqual([
      'src/core/a.ts typeOnly=true builtin=false',
      // `import { type X }` stays as `import {} from` under verbatimModuleSyntax: it loads the module.
      'src/core/a.ts typeOnly=false builtin=false',
      'src/core/a.ts typeOnly=true builtin=false',
      'src/core/a.ts typeOnly=false builtin=false',
      'src/core/a.ts typeOnly=true builtin=false',
      'knex typeOnly=true builtin=false',
      'node:fs typeOnly=false builtin=true',
      'fs typeOnly=false builtin=true',
      '@temporalio/workflow typeOnly=false builtin=false',
    ]);
  });

  it('passes a tree that keeps every rule', () => {
    expect(allRules(graphOf(clean))).toEqual({ unknown: '', upward: '', workflows: '', projections: '', crossFeature: '', readSide: '', infrastructure: [], cycles: [], fileCycles: [] });
  });

  it('names a projections/ or workflows/ folder that has no feature of its name in src/features', () => {
    const graph = graphOf({ ...clean, 'projections/tag/index.ts': `export {};\n`, 'workflows/tag/index.ts': `export {};\n` });
    expect(format(strayFeatureFolders(graph))).toBe(
      [
        'projections/tag/index.ts → src/features/tag: projections/tag has no feature of that name in src/features',
        'workflows/tag/index.ts → src/features/tag: workflows/tag has no feature of that name in src/features',
      ].join('\n'),
    );
    expect(format(strayFeatureFolders(graphOf(clean)))).toBe('');
  });

  it('sanity: names a relative import of no file, and a file in no place of the layout', () => {
    const graph = graphOf({ ...clean, 'src/core/bad.ts': `import './gone.js';\n`, 'src/stray/x.ts': `export {};\n` });
    expect(format(unknownPlaces(graph))).toBe(
      [
        'src/stray/x.ts → (itself): in no place the layout names (src/core, src/features/<f>, src/adapters/<x>, ...)',
        'src/core/bad.ts → ./gone.js: the relative import names no file',
      ].join('\n'),
    );
  });

  it('rule 1: names an upward import (core importing a feature, even type-only) and a sideways one', () => {
    const graph = graphOf({
      ...clean,
      'src/core/summary.ts': `import type { addTag } from '../features/tags/index.js';\nexport type S = typeof addTag;\n`,
      'src/adapters/mcp/server.ts': `import { app } from '../http/app.js';\nexport { app };\n`,
    });
    expect(format(upwardArrows(graph))).toBe(
      [
        `src/adapters/mcp/server.ts → src/adapters/http/app.ts: sideways: adapters/mcp imports adapters/http (same rank ${RANKS.adapters})`,
        `src/core/summary.ts → src/features/tags/index.ts: upward: core (rank ${RANKS.core}) imports features/tags (rank ${RANKS.features})`,
      ].join('\n'),
    );
  });

  it('rule 1: names a part of core importing one above it (the kernel reaching the module contracts) and two parts of one rank', () => {
    const graph = graphOf({
      ...clean,
      'src/core/module/deps.ts': `export type AppDeps = { now: () => Date };\n`,
      'src/core/es/commands.ts': `import type { AppDeps } from '../module/deps.js';\nexport type C = AppDeps;\n`,
      'src/core/text/html.ts': `import { a } from '../audit/merkle.js';\nexport const html = a;\n`,
      'src/core/audit/merkle.ts': `export const a = 1;\n`,
    });
    expect(format(upwardArrows(graph))).toBe(
      [
        `src/core/es/commands.ts → src/core/module/deps.ts: upward: core/es (rank ${RANKS['core/es']}) imports core/module (rank ${RANKS['core/module']})`,
        `src/core/text/html.ts → src/core/audit/merkle.ts: sideways: core/text imports core/audit (same rank ${RANKS['core/text']})`,
      ].join('\n'),
    );
  });

  it('rule 2: names a Node built-in, a type-only knex and an import of src/ in workflow code', () => {
    const graph = graphOf({
      ...clean,
      'workflows/tags/sweep.ts': [
        `import { randomUUID } from 'node:crypto';`,
        `import type { Knex } from 'knex';`,
        `import type { TagAdded } from '../../src/features/tags/events.js';`,
        `import { proxyActivities } from '@temporalio/workflow';`,
        `export type S = [typeof randomUUID, Knex, TagAdded, typeof proxyActivities];`,
      ].join('\n'),
    });
    expect(format(nonDeterministicWorkflowImports(graph))).toBe(
      [
        'workflows/tags/sweep.ts → node:crypto: workflow code imports no Node built-in (not deterministic; breaks the Temporal bundle)',
        'workflows/tags/sweep.ts → knex: workflow code imports no package but @temporalio/workflow (not even type-only)',
        'workflows/tags/sweep.ts → src/features/tags/events.ts: workflow code imports only workflows/**',
      ].join('\n'),
    );
  });

  it("rule 3: names a projector importing its feature's write side and a Node built-in other than node:crypto", () => {
    const graph = graphOf({
      ...clean,
      'src/features/tags/names.ts': `export const normalise = (s: string) => s;\n`,
      'projections/tags/rebuild.ts': `import fs from 'node:fs';\nimport { normalise } from '../../src/features/tags/names.js';\nexport const r = [fs, normalise];\n`,
    });
    expect(format(projectionImports(graph))).toBe(
      [
        'projections/tags/rebuild.ts → node:fs: projections import no package but knex and node:crypto',
        'projections/tags/rebuild.ts → src/features/tags/names.ts: projections import only projections/**, src/core/** and src/features/*/events.ts',
      ].join('\n'),
    );
    expect(format(upwardArrows(graph))).toBe(
      `projections/tags/rebuild.ts → src/features/tags/names.ts: upward: projections/tags (rank ${RANKS.projections}) imports features/tags (rank ${RANKS.features})`,
    );
  });

  it("rule 4: names a feature reaching past another feature's public entry, from src/ and from projections/", () => {
    const graph = graphOf({
      ...clean,
      'src/features/comments/routes.ts': `import { addTag } from '../tags/use-cases.js';\nexport { addTag };\n`,
      'projections/comments/index.ts': `import { tagsProjector } from '../tags/index.js';\nexport { tagsProjector };\n`,
      'src/features/comments/index.ts': `export {};\n`,
    });
    expect(format(crossFeatureImports(graph))).toBe(
      [
        'src/features/comments/routes.ts → src/features/tags/use-cases.ts: feature comments reaches into feature tags; import its public entry src/features/tags/index.ts or events.ts',
      ].join('\n'),
    );
    // projections/tags/index.ts is the tags feature's public entry on the read side: allowed.
    expect(format(upwardArrows(graph))).toBe('');
  });

  it('rule 4: names the web app reaching past a feature\'s public entry, and a feature importing the web app', () => {
    const graph = graphOf({
      ...clean,
      'src/web/tags-section.ts': `import { addTag } from '../features/tags/use-cases.js';\nexport { addTag };\n`,
      'src/features/tags/page.ts': `import { page } from '../../web/pages.js';\nexport { page };\n`,
    });
    expect(format(crossFeatureImports(graph))).toBe(
      'src/web/tags-section.ts → src/features/tags/use-cases.ts: web reaches into feature tags; import its public entry src/features/tags/index.ts or events.ts',
    );
    expect(format(upwardArrows(graph))).toBe(`src/features/tags/page.ts → src/web/pages.ts: upward: features/tags (rank ${RANKS.features}) imports web (rank ${RANKS.web})`);
    // The web app names features through their public entries without being the module list.
    expect([...infrastructureNamingFeatures(graph, mayNameFeatures).keys()]).toEqual([]);
  });

  it("rule 8: names a feature or the web app holding a projector or reading past a read model's entry, and an entry carrying its projector", () => {
    const graph = graphOf({
      ...clean,
      'src/features/tags/module.ts': `import { tagsProjector } from '../../../projections/tags/projection.js';\nexport const tagsModule = { projectors: [tagsProjector] };\n`,
      'src/web/tags-page.ts': `import { tagsTable } from '../../projections/tags/queries.js';\nexport { tagsTable };\n`,
      'projections/comments/projection.ts': `import type { Projector } from '../../src/core/es/projector.js';\nexport const commentsProjector = { name: 'comments' } satisfies Projector;\n`,
      'projections/comments/index.ts': `export { commentsProjector } from './projection.js';\n`,
      'src/features/comments/index.ts': `export {};\n`,
    });
    expect(format(readSideImports(graph))).toBe(
      [
        'src/features/tags/module.ts → projections/tags/projection.ts: features/tags reads a read model only through its public entry projections/tags/index.ts; its projector is paired with the feature by src/modules.ts',
        'src/web/tags-page.ts → projections/tags/queries.ts: web reads a read model only through its public entry projections/tags/index.ts; its projector is paired with the feature by src/modules.ts',
        "projections/comments/index.ts → projections/comments/projection.ts: a read model's public entry carries no projector (features never hold one; src/modules.ts pairs them)",
      ].join('\n'),
    );
  });

  it('rules 5 and 7: names infrastructure and the composition root importing a feature, but not the module list or the bundle entry', () => {
    const graph = graphOf({
      ...clean,
      'src/adapters/http/auth.ts': `import { addTag } from '../../features/tags/index.js';\nexport { addTag };\n`,
      'src/service.ts': `import type { TagAdded } from './features/tags/events.js';\nexport type T = TagAdded;\n`,
      'src/cli/tags.ts': `import { addTag } from '../features/tags/index.js';\nexport { addTag };\n`,
    });
    const byFeature = infrastructureNamingFeatures(graph, mayNameFeatures);
    expect([...byFeature.keys()]).toEqual(['tags']);
    expect(format(byFeature.get('tags')!)).toBe(
      [
        'src/adapters/http/auth.ts → src/features/tags/index.ts: adapters/http names feature tags; only the module list may',
        'src/cli/tags.ts → src/features/tags/index.ts: cli names feature tags; only the module list may',
        'src/service.ts → src/features/tags/events.ts: root names feature tags; only the module list may',
      ].join('\n'),
    );
  });

  it('rule 6: names a cycle among units with one file edge per arrow, type-only imports included', () => {
    const graph = graphOf({
      ...clean,
      'src/features/tags/summary.ts': `import type { Page } from '../comments/page.js';\nexport type S = Page;\n`,
      'src/features/comments/page.ts': `export type Page = string;\n`,
    });
    expect(unitCycles(graph)).toEqual([
      [
        'features/comments → features/tags → features/comments',
        '    features/comments → features/tags: src/features/comments/use-cases.ts → src/features/tags/index.ts',
        '    features/tags → features/comments: src/features/tags/summary.ts → src/features/comments/page.ts',
      ].join('\n'),
    ]);
  });

  it('rule 6: a cycle of three units through core is named once, from its first unit', () => {
    const graph = graphOf({
      ...clean,
      'src/core/deps.ts': `import type { Trust } from '../provenance/trust.js';\nexport type Deps = Trust;\n`,
      'src/provenance/trust.ts': `import type { Pixels } from '../analysis/types.js';\nexport type Trust = Pixels;\n`,
      'src/analysis/types.ts': `import { AppError } from '../core/errors.js';\nexport type Pixels = AppError;\n`,
    });
    expect(unitCycles(graph)).toEqual([
      [
        'analysis → core → provenance → analysis',
        '    analysis → core: src/analysis/types.ts → src/core/errors.ts',
        '    core → provenance: src/core/deps.ts → src/provenance/trust.ts',
        '    provenance → analysis: src/provenance/trust.ts → src/analysis/types.ts',
      ].join('\n'),
    ]);
  });

  it('rule 7: names a cycle between two files of one unit, which rule 6 cannot see', () => {
    const graph = graphOf({
      ...clean,
      'src/core/text.ts': `import type { Html } from './html.js';\nexport const text = (h: Html) => h;\n`,
      'src/core/html.ts': `import { text } from './text.js';\nexport type Html = string;\nexport const html = text;\n`,
    });
    expect(unitCycles(graph)).toEqual([]);
    expect(fileCycles(graph)).toEqual([
      [
        'src/core/html.ts → src/core/text.ts → src/core/html.ts',
        "    src/core/html.ts → src/core/text.ts: import './text.js'",
        "    src/core/text.ts → src/core/html.ts: import type './html.js'",
      ].join('\n'),
    ]);
  });
});
