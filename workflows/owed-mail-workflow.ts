/**
 * The shape of the recovery workflows that queue a message a feature owes (an account invitation,
 * a share's message, a submission notice) which a crash left unqueued. Deterministic code only:
 * Temporal's workflow bundle includes this module (types and pure helpers).
 */
import { type ActivityOptions, oneStepWorkflow, recoveryStep } from './definition.js';

/** The failure type src/features/mail/owed-mail.ts raises for an address the mail feature refuses: no retry can cure it. */
export const INVALID_MAIL = 'InvalidMail';

/** `queued`: the message is queued (now, or by the request before); `superseded`: nothing is owed any more. */
export type OwedMailOutcome = 'queued' | 'superseded';

/**
 * The workflow of one step, `step(id, input)`, which re-reads the feature's streams and queues the
 * message `id` if it is still owed (the delivery sweep then sends it). Same activity name, options
 * and arguments as each workflow had written out, so recorded histories replay.
 */
export function owedMailWorkflow<I, K extends string>(type: string, step: K) {
  const activities = { [step]: recoveryStep([INVALID_MAIL]) } as { readonly [P in K]: ActivityOptions };
  return oneStepWorkflow<I, { [P in K]: (id: string, input: I) => Promise<OwedMailOutcome> }, OwedMailOutcome>(type, activities, (steps, input, id) => steps[step](id, input));
}
