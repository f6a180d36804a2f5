/** Why a process stopped: the first reason wins. */
export type StopReason = "exited" | "timed_out" | "cancelled" | "not_started" | "signal";

/** The one result shape of every execution, whether conda succeeded, failed or timed out. */
export interface ExecutionResult {
  /** Exit code, or null when the process was killed (timeout, cancel, signal) or never started. */
  exit_code: number | null;
  /**
   * How it ended: `exited` by itself, stopped by the server (`timed_out`, `cancelled`), killed by
   * a signal the server did not send (`signal`), or `not_started`.
   */
  stop_reason: StopReason;
  /** Why it did not start, or the name of the signal that killed it; else null. */
  stop_detail: string | null;
  stdout: string;
  stderr: string;
  duration_ms: number;
  /** stdout parsed when it is exactly one complete JSON document and not truncated, else null. */
  parsed_json: unknown;
  timed_out: boolean;
  cancelled: boolean;
  stdout_truncated: boolean;
  stderr_truncated: boolean;
  /** The discovery fingerprint changed during the run (e.g. a plugin was installed). */
  restart_required: boolean;
  /**
   * The process tree did not end within the grace after SIGTERM and was killed: work conda
   * was doing then (a transaction's rollback) may be incomplete.
   */
  killed: boolean;
}

/**
 * Parses stdout when it is exactly one complete JSON document (whitespace around it allowed) and
 * was not truncated; anything else, such as conda's NUL-separated progress records, gives null.
 */
export function parseJsonOutput(stdout: string, truncated: boolean): unknown {
  if (truncated || stdout.includes("\0")) return null;
  try {
    return JSON.parse(stdout);
  } catch {
    // Not JSON, several documents, or trailing text.
    return null;
  }
}
