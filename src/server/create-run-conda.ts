import type { Config } from "../config/config-types.ts";
import { ExecutionQueue } from "../execute/execution-queue.ts";
import { notRunResult, runProcess } from "../execute/run-process.ts";
import type { ExecutionResult } from "../result/execution-result.ts";
import type { RunConda } from "./server-deps.ts";

/**
 * How long a cancelled or timed-out call that changes an environment gets after SIGTERM:
 * conda then rolls its transaction back, which takes seconds for a large package, and a
 * SIGKILL during the rollback leaves a broken environment.
 */
export const ROLLBACK_GRACE_MS = 300_000;

/** One conda run a server made, as an embedding host observes it. */
export interface ExecutionEvent {
  /** The tool that was called (`conda_install`, `conda_execute`). */
  tool: string;
  /** The arguments after the conda executable. */
  argv: string[];
  result: ExecutionResult;
  durationMs: number;
}

/** Runs one admitted call; a call that changes an environment gets conda's rollback time. */
async function spawnAdmitted(
  input: { config: Config; command: string; leadingArgs: string[]; log: (line: string) => void },
  argv: string[],
  options: Parameters<RunConda>[1],
  call: { signal: AbortSignal; label: string; changes: boolean },
): Promise<ExecutionResult> {
  const { config, log } = input;
  const { signal, label, changes } = call;
  const onStop = () =>
    log(
      `${label} was stopped; conda is rolling its transaction back, which may take minutes (killed after ${ROLLBACK_GRACE_MS / 1000} s).`,
    );
  if (changes) signal.addEventListener("abort", onStop, { once: true });
  const onHeartbeat = options.onHeartbeat;
  const result = await runProcess(
    {
      command: input.command,
      argv: [...input.leadingArgs, ...argv],
      cwd: options.cwd ?? config.cwd,
      stdin: options.stdin,
      env: config.env,
    },
    {
      timeoutMs: options.timeoutMs,
      maxOutputBytes: config.maxOutputBytes,
      signal,
      onHeartbeat: onHeartbeat && ((beat) => onHeartbeat(beat, label)),
      heartbeatMs: config.heartbeatMs,
      platform: config.platform,
      graceMs: changes ? ROLLBACK_GRACE_MS : undefined,
    },
  );
  signal.removeEventListener("abort", onStop);
  if (changes && result.killed) {
    log(
      `${label} was killed before conda finished rolling back; the environment it was changing may be inconsistent (check it with conda list or conda doctor).`,
    );
  }
  return result;
}

/**
 * The one way a server runs conda: calls wait their turn in one FIFO queue, are admitted there
 * (so the safety check sees every earlier call's changes), then run with the output cap,
 * timeout and cancellation; a call that changes an environment gets conda's rollback time.
 */
export function createRunConda(input: {
  config: Config;
  /** `[executable]`, or `[python, "-m", "conda"]` when CONDA_EXE is the interpreter itself. */
  condaArgv: readonly string[];
  /** Aborting it ends every running and queued call. */
  shutdown: AbortSignal;
  /** Every execution not yet ended, for the server's shutdown to wait on. */
  running: Set<Promise<ExecutionResult>>;
  log: (line: string) => void;
  onExecution?: (event: ExecutionEvent) => void;
}): RunConda {
  const { config, log } = input;
  const queue = new ExecutionQueue();
  const [command, ...leadingArgs] = input.condaArgv as [string, ...string[]];
  return async (argv, options) => {
    const started = performance.now();
    let refused: string | null = null;
    let label = "conda";
    const execution = queue.run(
      AbortSignal.any([options.signal, input.shutdown]),
      async (signal) => {
        const admission = await options.admit(signal);
        if (!admission.allowed) {
          refused = admission.message;
          // Never shown: a refusal is answered with its message instead.
          return notRunResult(0, { reason: "not_started", detail: "refused" });
        }
        label = admission.label;
        const call = { signal, label, changes: admission.changes };
        return spawnAdmitted({ config, command, leadingArgs, log }, argv, options, call);
      },
    );
    input.running.add(execution);
    const settled = () => input.running.delete(execution);
    execution.then(settled, settled);
    const result = await execution;
    if (refused !== null) return { refused };
    // A host's observer failing must not fail the call it observes.
    try {
      input.onExecution?.({
        tool: options.tool,
        argv,
        result,
        durationMs: performance.now() - started,
      });
    } catch (error) {
      log(`onExecution failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    return { ran: result, label };
  };
}
