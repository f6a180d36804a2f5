import { definedEnv } from "../../src/execute/launch.ts";
import { runProcess } from "../../src/execute/run-process.ts";

/** What a program a test ran printed, and how it ended. */
export interface ProgramRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Runs a program by argv (no shell) through the server's own process runner. */
export async function runProgram(
  argv: readonly string[],
  options: {
    env: Readonly<Record<string, string | undefined>>;
    timeoutMs: number;
    stdin?: string;
    cwd?: string;
  },
): Promise<ProgramRun> {
  const [command = "", ...rest] = argv;
  const result = await runProcess(
    { command, argv: rest, env: definedEnv(options.env), stdin: options.stdin, cwd: options.cwd },
    { platform: process.platform, timeoutMs: options.timeoutMs, maxOutputBytes: 64 * 1024 * 1024 },
  );
  return {
    exitCode: result.exit_code,
    stdout: result.stdout,
    stderr: result.stderr,
    timedOut: result.timed_out,
  };
}
