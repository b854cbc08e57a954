/**
 * Names shared by the workflow bundle and the Node side. No imports: the workflow bundle
 * (workflows/, entry workflows/index.ts) may only import deterministic code.
 */

/** The Temporal workflow type of a definition: the name workflows/index.ts (the bundle's entry) exports its function under. */
export const temporalWorkflowType = (type: string) => `${type}Workflow`;

/** One workflow per (type, id): `verification-<id>` for verifications (the ids existing histories carry). */
export const temporalWorkflowId = (type: string, id: string) => `${type}-${id}`;
