import type { ExecutionResult } from "./execution-result.ts";

type PropertySchema = {
  readonly type?: string | readonly string[];
  readonly enum?: readonly string[];
  readonly description: string;
  readonly minimum?: number;
};

// `satisfies` over the keys: adding a field to ExecutionResult without a schema fails to compile.
const PROPERTIES = {
  exit_code: {
    type: ["integer", "null"],
    description: "Exit code; null when killed (timeout, cancel, signal) or never started.",
  },
  stop_reason: {
    type: "string",
    enum: ["exited", "timed_out", "cancelled", "not_started", "signal"],
    description:
      "exited by itself; timed_out or cancelled by the server; signal: killed by a signal the server did not send; not_started.",
  },
  stop_detail: {
    type: ["string", "null"],
    description: "Why it did not start, or the signal that killed it; else null.",
  },
  stdout: { type: "string", description: "Head of standard output, UTF-8." },
  stderr: { type: "string", description: "Head of standard error, UTF-8." },
  duration_ms: { type: "number", minimum: 0, description: "Wall time in milliseconds." },
  parsed_json: {
    description: "stdout parsed when it is exactly one complete JSON document, else null.",
  },
  timed_out: { type: "boolean", description: "The server's timeout ended the process tree." },
  cancelled: { type: "boolean", description: "The request was cancelled." },
  stdout_truncated: { type: "boolean", description: "stdout exceeded the output cap." },
  stderr_truncated: { type: "boolean", description: "stderr exceeded the output cap." },
  restart_required: {
    type: "boolean",
    description: "conda's commands or plugins changed during the run: restart the server.",
  },
  killed: {
    type: "boolean",
    description:
      "The process did not stop within the grace after SIGTERM and was killed; an environment it was changing may be inconsistent.",
  },
} as const satisfies Record<keyof ExecutionResult, PropertySchema>;

/** JSON Schema of ExecutionResult, the outputSchema of every tool that runs conda. */
export const EXECUTION_RESULT_JSON_SCHEMA = {
  type: "object",
  properties: PROPERTIES,
  required: Object.keys(PROPERTIES) as (keyof ExecutionResult)[],
  additionalProperties: false,
} as const;

/**
 * The same schema without the fields' descriptions, as compact tool definitions carry it: every
 * tool repeats it (a third of the tool list), and the server's instructions explain the fields
 * once (RESULT_FIELDS).
 */
export const COMPACT_EXECUTION_RESULT_JSON_SCHEMA = {
  ...EXECUTION_RESULT_JSON_SCHEMA,
  properties: Object.fromEntries(
    Object.entries(PROPERTIES).map(([name, { description: _explained, ...rules }]) => [
      name,
      rules,
    ]),
  ),
};

/** What a model is told once about every conda_* result (the server's instructions). */
export const RESULT_FIELDS =
  "Each conda_* result has exit_code (null when the run was stopped or never started), " +
  "stop_reason (exited, timed_out, cancelled, signal or not_started), the heads of stdout and " +
  "stderr (stdout_truncated, stderr_truncated past the output cap), parsed_json (stdout when it " +
  "is one JSON document, else null), duration_ms, killed (it outlived SIGTERM: an environment " +
  "it was changing may be inconsistent) and restart_required (conda's commands or plugins " +
  "changed: restart the server).";
