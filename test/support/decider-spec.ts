import { expect } from 'vitest';
import type { Decider } from '../../src/core/es/decider.js';
import { AppError, type ErrorCode } from '../../src/core/errors.js';
import type { EventDefinition, EventOf } from '../../src/core/es/events.js';

/**
 * Given/when/then for a pure decider:
 *
 *   given(decider, [pastEvents]).when(command).then([expectedEvents])
 *   given(decider, [pastEvents]).when(command).thenNothing()
 *   given(decider, [pastEvents]).when(command).thenThrows('ACCOUNT_NOT_FOUND')
 *
 * The past events pass through their catalogue schema before they are folded, as they do when
 * read from the store, and decided events must satisfy it too (the append would reject them).
 * Do not `await` the object `when` returns: its `then` method makes it look like a promise.
 */

type ErrorClass = abstract new (...args: never[]) => Error;

function definitionOf(catalogue: Record<string, EventDefinition>, type: string): EventDefinition {
  const definition = Object.values(catalogue).find((d) => d.type === type);
  if (!definition) throw new Error(`Event ${type} is not in this decider's catalogue`);
  return definition;
}

export function given<State, Command, Catalogue extends Record<string, EventDefinition>>(
  decider: Decider<State, Command, Catalogue>,
  history: readonly EventOf<Catalogue>[] = [],
) {
  type Event = EventOf<Catalogue>;
  const fold = () =>
    history.reduce(
      (state, event) => decider.evolve(state, { type: event.type, data: definitionOf(decider.catalogue, event.type).schema.parse(event.data) } as Event),
      decider.initialState(),
    );

  return {
    when(command: Command) {
      const decide = () => decider.decide(command, fold());
      return {
        then(expected: Event[]): Event[] {
          const events = decide();
          expect(events).toEqual(expected);
          for (const event of events) {
            const parsed = definitionOf(decider.catalogue, event.type).schema.safeParse(event.data);
            expect(parsed.error, `decided ${event.type} must satisfy its schema`).toBeUndefined();
          }
          return events;
        },
        thenNothing(): void {
          expect(decide()).toEqual([]);
        },
        thenThrows<E extends ErrorClass>(expected: ErrorCode | E, message?: string | RegExp): AppError & InstanceType<E> {
          let thrown: unknown;
          let decided: Event[] | undefined;
          try {
            decided = decide();
          } catch (error) {
            thrown = error;
          }
          expect(decided, 'decide should have thrown, but decided events').toBeUndefined();
          if (typeof expected === 'string') {
            expect(thrown).toBeInstanceOf(AppError);
            expect((thrown as AppError).code).toBe(expected);
          } else {
            expect(thrown).toBeInstanceOf(expected);
          }
          if (message !== undefined) expect((thrown as Error).message).toMatch(message);
          return thrown as AppError & InstanceType<E>;
        },
      };
    },
  };
}
