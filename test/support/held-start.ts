import type { TestService } from './service.js';

/**
 * Runs `create` (an upload) with the workflow engine's starts held: the runs it starts are not
 * started, and neither are later starts of the same ids (the engine's sweep restarts a queued
 * verification through the same `start`), until `release` starts them. The verification then
 * stays queued for as long as a test needs to see it unfinished.
 */
export async function withStartsHeld<T extends string>(t: TestService, create: () => Promise<T>): Promise<{ id: T; release(): Promise<void> }> {
  const engine = t.service.deps.workflows;
  const start = engine.start.bind(engine);
  const held = new Map<string, [string, unknown]>();
  let holdingAll = true;
  engine.start = async (type, id, input) => {
    if (holdingAll || held.has(id)) {
      held.set(id, [type, input]);
      return;
    }
    return start(type, id, input);
  };
  let id: T;
  try {
    id = await create();
  } finally {
    holdingAll = false;
  }
  return {
    id,
    async release() {
      engine.start = start;
      for (const [heldId, [type, input]] of held) await start(type, heldId, input);
    },
  };
}
