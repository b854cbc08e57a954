import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CORE_PARTS,
  crossFeatureImports,
  fileCycles,
  format,
  infrastructureNamingFeatures,
  loadGraph,
  nonDeterministicWorkflowImports,
  projectionImports,
  rankList,
  readSideImports,
  strayFeatureFolders,
  unitCycles,
  unknownPlaces,
  upwardArrows,
  type Violation,
} from './import-graph.js';

/**
 * The layout of DESIGN.md ("Layout"), issue 22 items 1-3 and issue 37 items 3 and 8, checked over
 * the import graph of src/, projections/ and workflows/. Each rule fails listing every violation,
 * one per line, as `file → imported file: rule`, so the message says what to fix. The ranks are
 * RANKS in import-graph.ts (classify says which file has which); rule 1's name lists them.
 */
const root = path.resolve(import.meta.dirname, '../..');
const graph = loadGraph(root);

/**
 * Files outside every feature's own places that may still name a feature, each for a reason:
 * - `src/modules.ts` is the module list, the one registry (issue 22 item 1).
 * - `workflows/index.ts` is the Temporal bundle's entry: Temporal bundles a file, not a list, so
 *   that file re-exports every feature's workflows; its exports are checked against the module
 *   list by another test, so it cannot drift from the registry.
 * The CLI is not on this list, though it is a second entry point: a command that acts on one
 * feature's stream is that feature's code and is declared by its module (`commands`, run by
 * src/cli/operator.ts), or the CLI would become a second registry that every new feature must edit.
 * The web app (src/web/) names the features it shows, as a feature names another: through their
 * public entries (FEATURE_DOORS, rule 4).
 */
const MAY_NAME_FEATURES = ['src/modules.ts', 'workflows/index.ts'];

function expectNone(violations: Violation[], what: string): void {
  if (violations.length > 0) expect.fail(`${violations.length} ${what}:\n${format(violations)}`);
}

describe('the import graph of src/, projections/ and workflows/', () => {
  it('has read the tree (a guard against a rule passing because it saw nothing)', () => {
    expect(graph.files.size).toBeGreaterThan(100);
    expect([...graph.files.values()].some((f) => f.unit === 'core' && f.edges.length > 0)).toBe(true);
    expect([...graph.files.values()].some((f) => f.unit === 'web' && f.edges.length > 0)).toBe(true);
    const units = new Set([...graph.files.values()].map((f) => f.unit));
    expect(CORE_PARTS.filter((part) => !units.has(`core/${part}`))).toEqual([]);
  });

  it('places every file where the layout names it, and every relative import names a file', () => {
    expectNone(unknownPlaces(graph), 'files or imports outside the layout');
  });

  it('keeps one name per feature in each place: projections/<f> and workflows/<f> name a feature of src/features', () => {
    expectNone(strayFeatureFolders(graph), 'folders named for no feature');
  });

  it(`rule 1: arrows point down (a file imports its own rank or lower; core imports nothing above it); ranks ${rankList()}`, () => {
    expectNone(upwardArrows(graph), 'upward or sideways imports');
  });

  it('rule 2: workflows/ is deterministic code (workflows/** and @temporalio/workflow only; no Node built-ins, no knex, nothing of src/)', () => {
    expectNone(nonDeterministicWorkflowImports(graph), 'imports workflow code may not make');
  });

  it('rule 3: projections/ imports event types and the database port only (projections/**, src/core/**, src/features/*/events.ts, knex, node:crypto)', () => {
    expectNone(projectionImports(graph), 'imports the read side may not make');
  });

  it("rule 4: a feature (or the web app) reaches another only through that feature's public entry (index.ts, events.ts)", () => {
    expectNone(crossFeatureImports(graph), 'imports into another feature');
  });

  it("rule 8: features and the web app read a read model only through projections/<f>/index.ts, which carries no projector (src/modules.ts pairs them)", () => {
    expectNone(readSideImports(graph), 'imports of the read side past its public entry');
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

  it('rule 7: no cycles between files, inside a unit as across units (type-only imports included)', () => {
    const cycles = fileCycles(graph);
    if (cycles.length > 0) expect.fail(`${cycles.length} cycles between files:\n${cycles.join('\n')}`);
  });
});
