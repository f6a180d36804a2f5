import type { ExecutionResult } from "../result/execution-result.ts";

/** Why an execution never started: cancelled while it waited, or it could not be started. */
export type NotRun = { reason: "cancelled" } | { reason: "not_started"; detail: string };

/** The result of an execution that never started. */
export function notRunResult(durationMs: number, notRun: NotRun): ExecutionResult {
  return {
    exit_code: null,
    stop_reason: notRun.reason,
    stop_detail: notRun.reason === "not_started" ? notRun.detail : null,
    stdout: "",
    stderr: "",
    duration_ms: durationMs,
    parsed_json: null,
    timed_out: false,
    cancelled: notRun.reason === "cancelled",
    stdout_truncated: false,
    stderr_truncated: false,
    restart_required: false,
    killed: false,
  };
}
