import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  crossFeatureImports,
  format,
  infrastructureNamingFeatures,
  loadGraph,
  nonDeterministicWorkflowImports,
  projectionImports,
  strayFeatureFolders,
  unitCycles,
  unknownPlaces,
  upwardArrows,
  type Violation,
} from './import-graph.js';

/**
 * The layout of DESIGN.md ("Layout") and issue 22 items 1-3, checked over the import graph of
 * src/, projections/ and workflows/. Each rule fails listing every violation, one per line, as
 * `file → imported file: rule`, so the message says what to fix. Ranks, low to high:
 * workflows 0, core 1, events (src/features/<f>/events.ts) 2, projections 3, provenance and
 * analysis 4, features 5, adapters 6, cli and the composition root (src/*.ts) 7.
 */
const root = path.resolve(import.meta.dirname, '../..');
const graph = loadGraph(root);

/**
 * Files outside every feature's own places that may still name a feature, each for a reason:
 * - `src/modules.ts` is the module list, the one registry (issue 22 item 1).
 * - `workflows/index.ts` is the Temporal bundle's entry: Temporal bundles a file, not a list, so
 *   that file re-exports every feature's workflows; its exports are checked against the module
 *   list by another test, so it cannot drift from the registry.
 * The CLI is not on this list, though it is a second entry point. Today one command names a
 * feature (`src/cli/set-account-plan.ts` runs the accounts decider and reads its plans): a command
 * that acts on one feature's stream is that feature's code and belongs in its folder (or among what
 * its module declares), or the CLI becomes a second registry that every new feature must edit.
 */
const MAY_NAME_FEATURES = ['src/modules.ts', 'workflows/index.ts'];

function expectNone(violations: Violation[], what: string): void {
  if (violations.length > 0) expect.fail(`${violations.length} ${what}:\n${format(violations)}`);
}

describe('the import graph of src/, projections/ and workflows/', () => {
  it('has read the tree (a guard against a rule passing because it saw nothing)', () => {
    expect(graph.files.size).toBeGreaterThan(100);
    expect([...graph.files.values()].some((f) => f.unit === 'core' && f.edges.length > 0)).toBe(true);
  });

  it('places every file where the layout names it, and every relative import names a file', () => {
    expectNone(unknownPlaces(graph), 'files or imports outside the layout');
  });

  it('keeps one name per feature in each place: projections/<f> and workflows/<f> name a feature of src/features', () => {
    expectNone(strayFeatureFolders(graph), 'folders named for no feature');
  });

  it('rule 1: arrows point down (a file imports its own rank or lower; core imports nothing above it)', () => {
    expectNone(upwardArrows(graph), 'upward or sideways imports');
  });

  it('rule 2: workflows/ is deterministic code (workflows/** and @temporalio/workflow only; no Node built-ins, no knex, nothing of src/)', () => {
    expectNone(nonDeterministicWorkflowImports(graph), 'imports workflow code may not make');
  });

  it('rule 3: projections/ imports event types and the database port only (projections/**, src/core/**, src/features/*/events.ts, knex, node:crypto)', () => {
    expectNone(projectionImports(graph), 'imports the read side may not make');
  });

  it("rule 4: a feature reaches another only through that feature's public entry (index.ts, events.ts)", () => {
    expectNone(crossFeatureImports(graph), 'imports into another feature');
  });

  it('rules 5 and 7: only the module list names a feature outside its own places (src/features/<f>, projections/<f>, workflows/<f>)', () => {
    const byFeature = infrastructureNamingFeatures(graph, MAY_NAME_FEATURES);
    const report = [...byFeature].map(([feature, violations]) => `feature ${feature} is named by:\n${format(violations)}`);
    if (report.length > 0) {
      const count = [...byFeature.values()].reduce((n, list) => n + list.length, 0);
      expect.fail(`${count} imports of a feature from outside it, by feature:\n${report.join('\n')}`);
    }
  });

  it('rule 6: no cycles among units (type-only imports included)', () => {
    const cycles = unitCycles(graph);
    if (cycles.length > 0) expect.fail(`${cycles.length} cycles among units:\n${cycles.join('\n')}`);
  });
});
