import type { ExecutionResult } from "../result/execution-result.ts";

/** The result of an execution that never started: refused, failed to spawn, or cancelled first. */
export function notRunResult(
  durationMs: number,
  stderr: string,
  cancelled: boolean,
): ExecutionResult {
  return {
    exit_code: null,
    stdout: "",
    stderr,
    duration_ms: durationMs,
    parsed_json: null,
    timed_out: false,
    cancelled,
    stdout_truncated: false,
    stderr_truncated: false,
    restart_required: false,
    killed: false,
  };
}
