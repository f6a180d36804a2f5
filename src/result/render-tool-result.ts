import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ExecutionResult } from "./execution-result.ts";
import { summarizeResult } from "./summarize-result.ts";

// Re-exported for the server, which builds tool definitions next to rendering their results.
export {
  COMPACT_EXECUTION_RESULT_JSON_SCHEMA,
  EXECUTION_RESULT_JSON_SCHEMA,
} from "./execution-result-json-schema.ts";

/** How to label a rendered result. */
export interface RenderOptions {
  /** What ran, e.g. `conda env list`. */
  summaryLabel: string;
  /** The output cap, to say where truncated output was cut. */
  maxOutputBytes?: number;
}

/**
 * Renders an execution result as an MCP tool result: the result as structured content, a text
 * block with a one-line summary and the result as JSON, and isError unless it exited with 0
 * (so timeouts, cancels, spawn failures and deaths by signal are errors). The text leaves out
 * parsed_json: it is stdout parsed, and stdout is already there.
 */
export function renderToolResult(result: ExecutionResult, options: RenderOptions): CallToolResult {
  const summary = summarizeResult(result, options.summaryLabel, options.maxOutputBytes);
  const { parsed_json: _sameAsStdout, ...textual } = result;
  return {
    structuredContent: { ...result },
    content: [{ type: "text", text: `${summary}\n${JSON.stringify(textual)}` }],
    isError: result.exit_code !== 0,
  };
}
