import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import * as bundle from '../../workflows/index.js';
import { temporalWorkflowType } from '../../src/adapters/workflows/temporal/shared.js';
import type { WorkflowRegistration } from '../../src/core/es/workflow.js';
import { modules } from '../../src/modules.js';
import { databaseTargets } from '../support/databases.js';
import { serviceSuite } from '../support/suite.js';

/**
 * The module list is the one registry of workflows (issue 22); Temporal finds a workflow only by
 * the name workflows/index.ts (the bundle's entry) exports it under, so that list is written out
 * by hand. This keeps the two in step, both ways: every definition a module registers is
 * exported as `temporalWorkflowType(type)` by a function that runs that very definition (not a
 * copy, not another one), and the entry exports nothing else. A registration missing from the
 * entry would be started on Temporal and never run. The registrations are built as the service
 * builds them, from a started test service's dependencies.
 */
describe('the Temporal bundle entry and the module list agree', () => {
  const { t } = serviceSuite(databaseTargets[0]!);
  const releases: (() => Promise<void>)[] = [];
  let registrations: WorkflowRegistration[];

  beforeAll(() => {
    registrations = modules.flatMap((m) => m.workflows?.({ ...t.service.deps, onStop: (release) => releases.push(release) }) ?? []);
  });
  afterAll(async () => {
    await Promise.all(releases.map((release) => release()));
  });
  afterEach(() => vi.restoreAllMocks());

  it('exports one workflow function per registered definition, under its Temporal type name, and nothing else', () => {
    const expected = registrations.map((r) => temporalWorkflowType(r.definition.type));
    const exported = Object.keys(bundle);
    expect(registrations.length).toBeGreaterThan(0);
    expect({
      registeredButNotExported: expected.filter((name) => !exported.includes(name)),
      exportedButNotRegistered: exported.filter((name) => !expected.includes(name)),
    }).toEqual({ registeredButNotExported: [], exportedButNotRegistered: [] });
  });

  it("runs, under each registration's Temporal type name, that registration's own definition", async () => {
    const exports = bundle as Record<string, unknown>;
    for (const registration of registrations) {
      const name = temporalWorkflowType(registration.definition.type);
      if (typeof exports[name] !== 'function') continue; // reported by the test above
      // Every registered definition records being run; the real run would call an activity,
      // which only works inside a Temporal workflow.
      const ran: string[] = [];
      for (const other of registrations) {
        vi.spyOn(other.definition, 'run').mockImplementation(async (ctx) => {
          ran.push(other.definition.type);
          return `ran as ${ctx.type}`;
        });
      }
      const outcome = await (exports[name] as (id: string, input: unknown) => Promise<unknown>)('probe', {}).catch((error: unknown) => `threw: ${String(error)}`);
      expect({ name, ran, outcome }).toEqual({ name, ran: [registration.definition.type], outcome: `ran as ${registration.definition.type}` });
      vi.restoreAllMocks();
    }
  });
});
