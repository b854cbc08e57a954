import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { AppError, UnprocessableError, type ValidationIssue } from '../../core/errors.js';

/**
 * The one place where errors become MCP tool errors. The result carries the REST error
 * envelope's inner object as JSON text (`{"error_code", "message", "suggestion", "details"}`),
 * so an agent reads the same codes and advice as a REST client. No structuredContent: an error
 * is not the tool's output, and clients validate structuredContent against the output schema.
 */
export function toolError(error: unknown, log: Logger, correlationId: string): CallToolResult {
  if (error instanceof UnprocessableError && error.issues) return validationError(error.issues);
  if (error instanceof AppError) {
    return errorResult({
      error_code: error.code,
      message: error.message,
      ...(error.suggestion ? { suggestion: error.suggestion } : {}),
      ...(error.details ? { details: error.details } : {}),
    });
  }
  log.error({ err: error, correlationId }, 'unhandled error in an MCP tool');
  return errorResult({
    error_code: 'INTERNAL_ERROR',
    message: 'The service failed to handle this tool call.',
    suggestion: `Retry later; if it persists, report request id ${correlationId}.`,
  });
}

/** Arguments that do not match the tool's input schema: the REST 422 issues, under VALIDATION_ERROR. */
export function validationError(issues: ValidationIssue[]): CallToolResult {
  return errorResult({
    error_code: 'VALIDATION_ERROR',
    message: `Invalid arguments: ${issues.map((i) => `${i.loc.slice(1).join('.') || 'arguments'}: ${i.msg}`).join('; ')}`,
    suggestion: "Call the tool again with arguments that match its inputSchema (tools/list).",
    details: { issues },
  });
}

function errorResult(detail: Record<string, unknown>): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(detail) }] };
}
