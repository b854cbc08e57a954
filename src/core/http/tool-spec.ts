import type { z } from 'zod';
import './schemas.js'; // zod's .openapi() extension, before any tool schema is built
import type { Call } from '../principal.js';

/**
 * An agent tool as data: name, description, zod schemas and a handler that calls a use case.
 * Features declare these (their tools.ts) without knowing the protocol; the MCP adapter
 * (src/adapters/mcp) lists them, validates input with the same schemas and maps errors.
 */

/**
 * 'key': an API key (or session token) is required.
 * 'keyless': the free tier may call it too; the handler then gets a call without a principal
 * and decides what a keyless caller may do (verify as an anonymous user, read its own records).
 */
export type ToolAccess = 'key' | 'keyless';

/** What a long tool tells its caller while it runs (MCP progress notifications). */
export interface ToolProgress {
  /** A no-op when the caller asked for no progress. `progress` must grow from one report to the next. */
  report(progress: number, total: number | undefined, message: string): Promise<void>;
  /** Aborted when the caller cancels the call or goes away. */
  signal: AbortSignal;
}

export interface ToolResult<O> {
  /** The structured result (validated against `output`). */
  output: O;
  /** A short plain-words summary for the agent's conversation. */
  summary: string;
}

export interface ToolSpec<I = unknown, O = unknown> {
  /** snake_case, stable: agents and their configurations refer to it. */
  name: string;
  title: string;
  description: string;
  access: ToolAccess;
  /** Changes nothing: read-scoped API keys may call it, and clients are told so (readOnlyHint). */
  readOnly: boolean;
  /** Removes something for good (clients are told: destructiveHint). */
  destructive?: boolean;
  input: z.ZodType<I>;
  output: z.ZodType<O>;
  handler: (call: Call, input: I, progress: ToolProgress) => Promise<ToolResult<O>>;
}

/** Identity function that lets TypeScript infer a tool's input and output types from its schemas. */
export function tool<I, O>(spec: ToolSpec<I, O>): ToolSpec {
  return spec as unknown as ToolSpec;
}
