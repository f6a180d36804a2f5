import type { ExecutionResult } from "./execution-result.ts";

const KIB = 1024;
const MIB = 1024 * KIB;

/**
 * One line saying how an execution ended, e.g. `conda env list: exit 0 in 812 ms` or
 * `conda install: timed out after 600 s; stdout truncated at 1 MiB`.
 */
export function summarizeResult(
  result: ExecutionResult,
  label: string,
  maxOutputBytes?: number,
): string {
  const took = formatDuration(result.duration_ms);
  let line: string;
  if (result.timed_out) line = `${label}: timed out after ${took}`;
  else if (result.cancelled) line = `${label}: cancelled after ${took}`;
  else if (result.exit_code !== null) line = `${label}: exit ${result.exit_code} in ${took}`;
  else line = `${label}: ${result.stop_detail ?? `no exit code after ${took}`}`;

  const truncated = [
    result.stdout_truncated ? "stdout" : null,
    result.stderr_truncated ? "stderr" : null,
  ].filter((name) => name !== null);
  if (truncated.length > 0) {
    const cap = maxOutputBytes === undefined ? "" : ` at ${formatBytes(maxOutputBytes)}`;
    line += `; ${truncated.join(" and ")} truncated${cap}`;
  }
  if (result.killed) {
    line +=
      "; killed when it did not stop after SIGTERM: an environment it was changing may be inconsistent";
  }
  if (result.restart_required) line += "; conda changed: restart required";
  return line;
}

function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms / 1000)} s`;
}

function formatBytes(bytes: number): string {
  for (const [unit, size] of [
    ["MiB", MIB],
    ["KiB", KIB],
  ] as const) {
    if (bytes >= size) {
      const value = bytes / size;
      return `${Number.isInteger(value) ? value : value.toFixed(1)} ${unit}`;
    }
  }
  return `${bytes} bytes`;
}
